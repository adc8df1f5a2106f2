"""The smoke check at scale (issue 9, section 5): a bounded random sample of
pairs, pinged in parallel, progress printed while it runs, and a time budget
after which unanswered pings are stopped and counted failed. No namespaces:
a stand-in testbed runs the ping shells locally with a fake `ping` on PATH
(its behaviour chosen by the destination's last octet)."""
import os
import subprocess
import time

from orchestrator import smoke

FAKE_PING = """#!/bin/sh
for a; do last=$a; done
case "${last##*.}" in
  9) exec sleep 1000 ;;          # never answers
  8) sleep 0.5; exit 1 ;;        # answers "unreachable"
  77) w=0; prev=                 # slow: answers only when it may wait 3 s or more
      for a; do [ "$prev" = "-W" ] && w=$a; prev=$a; done
      if [ "$w" -ge 3 ]; then sleep 0.3; exit 0; else sleep 0.5; exit 1; fi ;;
  *) sleep %s; exit 0 ;;
esac
"""


class _State:
    def __init__(self):
        self.saves = 0

    def save(self):
        self.saves += 1


class _Wiring:
    def __init__(self, ips):
        self.ips = ips

    def ip_of(self, name):
        return self.ips[name]


class FakeTestbed:
    def __init__(self, tmp, ips, ok_delay=0.2):
        bindir = tmp / "bin"
        bindir.mkdir()
        (bindir / "ping").write_text(FAKE_PING % ok_delay)
        (bindir / "ping").chmod(0o755)
        self.env = dict(os.environ, PATH="%s:%s" % (bindir, os.environ.get("PATH", "")))
        self.wiring = _Wiring(ips)
        self.state = _State()
        self.spawned = []
        self.reaped = []
        self.is_ovs, self.datapath = False, None  # as a Linux-bridge run

    def spawn_in(self, name, cmd, what=None, save=True, **kw):
        p = subprocess.Popen(cmd, env=self.env, start_new_session=True, **kw)
        self.spawned.append(p.pid)
        if save:
            self.state.save()
        return p

    def reap(self, p, save=True):
        self.reaped.append(p.pid)


def _session_gone(pid, wait=3.0):
    """No live (non-zombie) process left in the session pid started."""
    deadline = time.time() + wait
    while True:
        alive = []
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open("/proc/%s/stat" % d) as f:
                        st = f.read()
                except OSError:
                    continue
                fields = st[st.rindex(")") + 2:].split()
                if int(fields[3]) == pid and fields[0] != "Z":  # session id, state
                    alive.append(int(d))
        if not alive or time.time() > deadline:
            return not alive
        time.sleep(0.1)


def test_progress_is_printed_while_pings_run(tmp_path):
    ips = {"h%d" % i: "10.0.0.%d" % (i + 1) for i in range(6)}  # octets 1..6 answer after 3 s
    tb = FakeTestbed(tmp_path, ips, ok_delay=3)
    lines = []
    t0 = time.time()
    ok, failed = smoke.ping_pairs(tb, [("h0", "h1"), ("h2", "h3"), ("h4", "h5"), ("h1", "h0")],
                                  log=lambda m: lines.append((time.time() - t0, m)), progress_s=1.0)
    assert len(ok) == 4 and not failed
    progress = [t for t, m in lines if m.startswith("*** ping:")]
    assert progress, "no progress printed during a 3 s ping round"
    assert progress[0] < 2.0
    assert sorted(tb.reaped) == sorted(tb.spawned)


def test_budget_stops_pings_that_do_not_answer(tmp_path):
    ips = {"a": "10.0.0.1", "b": "10.0.0.2", "hang": "10.0.0.9", "bad": "10.0.0.8"}
    tb = FakeTestbed(tmp_path, ips)
    pairs = [("a", "b"), ("a", "hang"), ("b", "hang"), ("b", "bad"), ("hang", "a")]
    lines = []
    t0 = time.time()
    ok, failed = smoke.ping_pairs(tb, pairs, log=lines.append, deadline_s=3, progress_s=1.0)
    took = time.time() - t0
    assert took < 6, took
    assert sorted(ok) == [("a", "b"), ("hang", "a")]
    assert sorted(failed) == [("a", "hang"), ("b", "bad"), ("b", "hang")]
    assert any("budget" in m for m in lines), lines
    # every shell session (with its hanging ping) is gone, and reaped
    assert all(_session_gone(pid) for pid in tb.spawned)
    assert sorted(tb.reaped) == sorted(tb.spawned)


def test_many_sources_run_in_parallel_with_one_state_save_per_wave(tmp_path):
    names = ["h%d" % i for i in range(40)]
    ips = {n: "10.0.1.%d" % (i % 7 + 1) for i, n in enumerate(names)}  # octets 1..7: all answer
    tb = FakeTestbed(tmp_path, ips, ok_delay=1)
    pairs = [(names[i], names[(i + 1) % 40]) for i in range(40)]
    t0 = time.time()
    ok, failed = smoke.ping_pairs(tb, pairs, max_inflight=256)
    assert len(ok) == 40 and not failed
    assert time.time() - t0 < 5  # 40 one-second pings at once, not one after another
    assert tb.state.saves <= 3


def test_pairs_at_scale_are_a_bounded_sample():
    big = ["h%04d" % i for i in range(2048)]
    pairs = smoke.smoke_pairs(big, max_pairs=1100)
    assert len(pairs) == smoke.SCALE_PAIRS <= 256
    assert len(set(pairs)) == len(pairs) and all(a != b for a, b in pairs)
    assert smoke.smoke_pairs(big, max_pairs=1100) == pairs  # deterministic
    assert len(smoke.smoke_pairs(big, max_pairs=50)) == 50
    small = ["h%02d" % i for i in range(16)]
    assert len(smoke.smoke_pairs(small)) == 240  # all ordered pairs, as before
    mid = ["h%03d" % i for i in range(256)]
    srcs = {a for a, _ in smoke.smoke_pairs(mid)}
    assert srcs == set(mid)  # up to SCALE_SERVERS: every server sends


def test_late_check_tells_a_slow_network_from_a_cut_one(tmp_path):
    ips = {"a": "10.0.0.1", "slow": "10.0.0.77", "hang": "10.0.0.9", "bad": "10.0.0.8"}
    tb = FakeTestbed(tmp_path, ips)
    ok, failed = smoke.ping_pairs(tb, [("a", "slow"), ("a", "hang"), ("a", "bad")], deadline_s=3)
    assert not ok and sorted(failed) == [("a", "bad"), ("a", "hang"), ("a", "slow")]  # 2 s is too short
    lines = []
    t0 = time.time()
    late = smoke.late_check(tb, failed, lines.append, wait_s=3)
    assert time.time() - t0 < 7  # bounded by wait_s + 2 s, the hanging ping stopped
    assert late == {"tried": 3, "answered": 1, "wait_s": 3}
    assert "slow rather than cut" in lines[-1] and "OVS" not in lines[-1]  # a Linux-bridge run
    tb.is_ovs, tb.datapath = True, "netdev"
    smoke.late_check(tb, [("a", "slow")], lines.append, wait_s=3)
    assert "OVS's userspace datapath" in lines[-1]
    # nothing answers: no claim that the network is slow
    late = smoke.late_check(tb, [("a", "bad")], lines.append, wait_s=3)
    assert late["answered"] == 0 and "slow" not in lines[-1]
    # at most `pairs` of them are tried
    assert smoke.late_check(tb, [("a", "bad"), ("a", "slow"), ("a", "hang")], lines.append, pairs=2,
                            wait_s=3) == {"tried": 2, "answered": 1, "wait_s": 3}
    assert all(_session_gone(pid) for pid in tb.spawned)
    assert sorted(tb.reaped) == sorted(tb.spawned)
