"""The soak's limit on a stall where a path remained (explib/soak.py,
Phase.stalls; docs/soak.md): 3 s, or the sender's RTO + 1 s when its own
RTO, not backed off, was longer. No root: the phase is a stand-in."""
import types

from explib import soak


def stalls_of(conns, no_path=None, before=None):
    """Phase.stalls over stand-in connections; no_path: {a stall's start:
    seconds of it without a path}; before: the last time without a path
    before any stall, (start, end)."""
    no_path = no_path or {}
    oracle = types.SimpleNamespace(no_path_seconds=lambda src, dst, t0, t1: no_path.get(t0, 0.0),
                                   last_no_path=lambda src, dst, t: before if before and before[0] < t else None)
    phase = types.SimpleNamespace(conns={c["id"]: c for c in conns}, oracle=oracle)
    return {s["conn"]: s for s in soak.Phase.stalls(phase)}


def conn(cid, gap, rto=None, outcome="completed"):
    c = {"id": cid, "src": "h00", "dst": "h13", "gaps": [list(gap)], "outcome": outcome}
    if rto is not None:
        c["stall_rto"] = rto
    return c


def test_a_stall_over_3s_with_a_path_is_over_its_limit():
    s = stalls_of([conn(1, (20.0, 23.5)), conn(2, (30.0, 32.9))])
    assert s[1]["path_remained"] and s[1]["limit_s"] == 3.0 and s[1]["over_limit"]
    assert not s[2]["over_limit"]


def test_the_senders_own_rto_extends_the_limit_by_a_second():
    # the first snapshot's key is the controller's view of the stall's start, a little before the
    # receiver's (the sender's start time)
    s = stalls_of([conn(1, (10.0, 13.4), rto={9.9: 3.132}), conn(2, (40.0, 44.5), rto={40.0: 3.132}),
                   conn(3, (50.0, 53.4), rto={50.0: None})])
    assert s[1]["sender_rto_s"] == 3.132 and s[1]["limit_s"] == 4.132 and not s[1]["over_limit"]
    # the retransmission lost as well: the RTO doubles, the stall runs past RTO + 1 s
    assert s[2]["over_limit"]
    # an RTO that had backed off (None) extends nothing
    assert s[3]["limit_s"] == 3.0 and s[3]["over_limit"]


def test_an_rto_of_another_stall_of_the_same_connection_does_not_count():
    c = conn(1, (10.0, 13.5), rto={2.0: 3.132, 20.0: 3.132})
    assert stalls_of([c])[1]["over_limit"]


def test_a_stall_without_a_path_is_never_over_the_limit():
    s = stalls_of([conn(1, (60.0, 70.0))], no_path={60.0: 2.5})
    assert not s[1]["path_remained"] and not s[1]["over_limit"]


def test_a_stall_just_after_a_time_without_a_path_may_last_that_much_longer():
    # the source's agent was down 3.8 s: TCP backed off through it
    s = stalls_of([conn(1, (16.4, 20.7)), conn(2, (30.0, 37.0))], before=(12.5, 16.2))
    assert s[1]["after_no_path_s"] == 3.7 and s[1]["limit_s"] == 6.7 and not s[1]["over_limit"]
    # long after it, the limit is 3 s again
    assert s[2]["after_no_path_s"] is None and s[2]["over_limit"]


def test_a_stall_after_a_stall_without_a_path_may_last_as_long_again():
    # the destination's agent was killed: a stall of 14.9 s without a path for 10.1 of them, a byte, then
    # TCP's RTO, backed off through the outage, holds the next stall 14.7 s
    c = conn(1, (116.9, 131.8))
    c["gaps"].append([131.9, 146.6])
    oracle = types.SimpleNamespace(no_path_seconds=lambda src, dst, t0, t1: 10.1 if t0 == 116.9 else 0.0,
                                   last_no_path=lambda src, dst, t: None)
    first, second = sorted(soak.Phase.stalls(types.SimpleNamespace(conns={1: c}, oracle=oracle)),
                           key=lambda x: x["start"])
    assert not first["path_remained"] and second["path_remained"]
    assert second["after_no_path_s"] == 14.9 and second["limit_s"] == 17.9 and not second["over_limit"]
