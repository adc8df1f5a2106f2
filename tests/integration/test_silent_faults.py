"""Silent faults (orchestrator/failures.py, Testbed.link_silent): a link's
frames dropped with the carrier up, in both directions or one, so that the
agents can tell only by missed hellos (issue 40: the soak's faults all
dropped the carrier). On a BCube_1 n=2 with 100 ms hellos: h00's link to
s0_0 silenced, its carrier stays up, h00 and h01 declare each other down
and ping still goes through the other level; one direction silenced, the
side that stops hearing declares its neighbour down, and the other side,
whose hellos are no longer listed, takes it down too (two-way liveness)
while it still hears it; unsilenced, the shaping is back as it was and
both are up. The fault drops frames and holds none. Root: network
namespaces."""
import os
import re
import time

import pytest

from orchestrator import errors, smoke
from orchestrator.testbed import Testbed
from tests.support import testing

BUILD = testing.build_dir()
pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not testing.agent_built(BUILD),
                                reason="needs root and a built agent")


def neighbour_row(tb, name, peer):
    answer = tb.agent_request(name, "neighbors") or {}
    rows = answer.get("neighbors") or []
    return {r["name"]: r for r in rows}.get(peer) or {}


def neighbour_up(tb, name, peer):
    return neighbour_row(tb, name, peer).get("up")


def wait_for(cond, timeout=10.0):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.1)
    return False


def qdiscs(tb, node, ifname):
    rc, out, _ = tb.run_in(node, ["tc", "qdisc", "show", "dev", ifname])
    assert rc == 0
    return out


def silent_fifo(tb, node, ifname):
    """(packets held, packets dropped) by a silent fault's FIFO (handle 70:)."""
    rc, out, _ = tb.run_in(node, ["tc", "-s", "qdisc", "show", "dev", ifname])
    assert rc == 0
    block = out[out.index("qdisc pfifo 70:"):]
    dropped = int(re.search(r"dropped (\d+)", block).group(1))
    held = int(re.search(r"backlog \S+ (\d+)p", block).group(1))
    return held, dropped


def carrier(tb, node, ifname):
    """Has the interface its carrier (LOWER_UP), seen from its namespace?"""
    rc, out, _ = tb.run_in(node, ["ip", "-o", "link", "show", "dev", ifname])
    assert rc == 0, out
    return "LOWER_UP" in out.split(">")[0]


def test_silent_link_is_found_by_missed_hellos_and_routed_around():
    with Testbed(BUILD, "bcube n=2 k=1", switch="lxbr", log=lambda _m: None) as tb:
        ifn = next(l["a_if"] if l["a"] == "h00" else l["b_if"] for l in tb.wiring.links_between("h00", "s0_0"))
        before = qdiscs(tb, "h00", ifn)
        assert neighbour_up(tb, "h00", "h01") and neighbour_up(tb, "h01", "h00")

        tb.link_silent("h00", "s0_0")
        assert carrier(tb, "h00", ifn)            # a silent fault: the carrier stays
        assert wait_for(lambda: neighbour_up(tb, "h00", "h01") is False and neighbour_up(tb, "h01", "h00") is False)
        ok, failed = smoke.ping_pairs(tb, [("h00", "h01")])
        assert ok and not failed, failed          # through h10 and h11
        # the hellos sent meanwhile were dropped, none held: a frame held in the fault's queue would keep its
        # TCP segment in the host queue, which Linux does not retransmit until the fault ends
        held, dropped = silent_fifo(tb, "h00", ifn)
        assert held == 0 and dropped > 0, (held, dropped)

        tb.link_unsilent("h00", "s0_0")
        assert qdiscs(tb, "h00", ifn) == before   # shaped as before
        assert wait_for(lambda: neighbour_up(tb, "h00", "h01") and neighbour_up(tb, "h01", "h00"))

        tb.link_silent("h00", "s0_0", "h00>s0_0")  # what h00 sends is lost; it still hears h01
        assert wait_for(lambda: neighbour_up(tb, "h01", "h00") is False)
        # h01's hellos leave h00 out: h00 takes h01 down though it hears it
        assert wait_for(lambda: neighbour_up(tb, "h00", "h01") is False)
        row = neighbour_row(tb, "h00", "h01")
        assert row["hears_us"] is False and row["last_heard_ms"] < 1000, row
        ok, failed = smoke.ping_pairs(tb, [("h00", "h01")])
        assert ok and not failed, failed          # through the other level again
        tb.link_unsilent("h00", "s0_0")
        assert wait_for(lambda: neighbour_up(tb, "h01", "h00") and neighbour_up(tb, "h00", "h01"))
        assert [e.split()[1] for e in tb.events if "silent" in e] == \
            ["link_silent", "link_unsilent", "link_silent", "link_unsilent"]

        with pytest.raises(errors.TestbedError, match="direction"):
            tb.link_silent("h00", "s0_0", "s0_0>h99")
        with pytest.raises(errors.TestbedError, match="no link"):
            tb.link_silent("h00", "s1_1")
