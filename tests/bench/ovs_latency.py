#!/usr/bin/python3
"""Why OVS's userspace datapath loses pings at scale: the round-trip time of
one hop on an idle testbed, against the number of switch ports, on OVS
(netdev datapath) and on Linux bridges, the two alternating in one run.

  tests/bench/ovs_latency.py BUILD_DIR [--sizes 16,64,256] [--rounds 2] [--pings 50]

Sizes are server counts: 16, 64, 256 (BCube n=4 k=1..3), 1024 and 2048 (the
bring-up bench's BCube_3 n=8 containers). Each run brings BCube up with 1 s
hellos (the agents then take about 0.1 of a core at 256 servers), waits 5 s,
then pings from the first server to the second (one hop, through one level-0
switch) every 0.1 s, while ovs-vswitchd's CPU time and its "Unreasonably
long ... poll interval" warnings are counted. On OVS it also counts, over
the same window, what its main thread (the one that forwards every veth
port) does: its passes through the main loop (one poll() each), its
receive attempts (recvmmsg, one per port per pass) and sends (sendmmsg),
with `perf stat` on the syscall tracepoints when perf is installed, and the
frames and allocations OVS itself counts (ovs-appctl coverage/show).
Writes results/bench/ovs_latency.json and ovs_latency.md. Needs root; takes
the machine-wide namespace lock per run (DCN_NETNS_LOCKED=1: the caller holds
it). Not a timed test: nothing is asserted."""
import argparse
import fcntl
import json
import os
import re
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from orchestrator import ovs, state  # noqa: E402
from orchestrator.testbed import Testbed, TestbedError  # noqa: E402
from tests.support import testing  # noqa: E402
from ovs_counters import SyscallCounter, coverage_totals  # noqa: E402  (tests/bench, this script's folder)

SIZES = {16: "bcube n=4 k=1", 64: "bcube n=4 k=2", 256: "bcube n=4 k=3",
         1024: "bcube n=8 k=3 parts=2", 2048: "bcube n=8 k=3 parts=4"}
VSWITCHD_LOG = "/var/log/openvswitch/ovs-vswitchd.log"
# ovs-vswitchd's main thread: poll() once per pass of its main loop,
# recvmmsg() once per veth port per pass, sendmmsg() once per frame batch
SYSCALLS = ("poll", "recvmmsg", "sendmmsg")
COVERAGE = ("netdev_received", "netdev_sent", "util_xalloc")


def main_loop_record(calls, cov0, cov1, elapsed):
    """What ovs-vswitchd's main thread did per second over the window, and
    per pass of its loop."""
    rec = {}
    if calls:
        rec["per_s"] = {k: round(v / elapsed, 1) for k, v in calls.items()}
        passes = calls.get("poll", 0)
        if passes:
            rec["loop_passes"] = passes
            rec["loop_period_ms"] = round(elapsed * 1000.0 / passes, 1)
            rec["recv_attempts_per_pass"] = round(calls.get("recvmmsg", 0) / passes, 1)
    for k in COVERAGE:
        if k in cov0 and k in cov1:
            rec.setdefault("coverage_per_s", {})[k] = round((cov1[k] - cov0[k]) / elapsed, 1)
    return rec


def log_warnings():
    try:
        with open(VSWITCHD_LOG, errors="replace") as f:
            return sum(1 for line in f if "Unreasonably long" in line)
    except OSError:
        return 0


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def one_run(build, spec, switch, pings):
    rec = {"spec": spec, "switch": switch}
    tb = Testbed(build, spec, switch=switch, hello_ms=1000, log=lambda m: None)
    try:
        tb.start()
        w = tb.wiring
        rec["switch_ports"] = len(tb._root_ifnames())
        if switch == "ovs":
            rec["datapath"] = tb.datapath
        src, dst = w.server_list[0]["name"], w.server_list[1]["name"]
        rec["pair"] = [src, dst]
        time.sleep(5)
        pid = ovs.vswitchd_pid() if switch == "ovs" else None
        counter = SyscallCounter([pid], SYSCALLS).start() if pid else None
        cov0 = coverage_totals(COVERAGE) if pid else {}
        c0, warn0, t0 = (state.proc_cpu_s(pid) if pid else None), log_warnings(), time.time()
        out = tb.hosts[src].cmd("ping -n -c %d -i 0.1 -W 1 %s" % (pings, w.ip_of(dst)))
        elapsed = time.time() - t0
        if counter:
            calls = counter.stop()
            rec["main_thread"] = main_loop_record(calls, cov0, coverage_totals(COVERAGE), time.time() - t0)
        rtts = [float(x) for x in re.findall(r"time=([0-9.]+) ms", out)]
        rec["pings"], rec["answered"] = pings, len(rtts)
        if rtts:
            rec["rtt_ms"] = {"min": min(rtts), "median": round(statistics.median(rtts), 3),
                             "p90": pct(rtts, 90), "max": max(rtts)}
        if pid:
            c1 = state.proc_cpu_s(pid)
            if c0 is not None and c1 is not None:
                rec["vswitchd_cores"] = round((c1 - c0) / elapsed, 3)
            rec["long_poll_warnings"] = log_warnings() - warn0
    except (TestbedError, RuntimeError) as e:
        rec["error"] = str(e)[:300]
    finally:
        tb.stop()
    return rec


def table(summary):
    lines = ["Written by tests/bench/ovs_latency.py at %s (commit %s%s); see docs/testbed.md." % (
        summary["date_utc"], summary["repo_head"], ", modified" if summary["repo_modified"] else ""), "",
        "| instance | switch ports | switch | round | answered | RTT min | median | p90 | max (ms) "
        "| ovs-vswitchd cores | long-poll warnings | main-loop period (ms) | receive attempts per pass "
        "| frames in / out per s | allocations per s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in summary["runs"]:
        rt = r.get("rtt_ms", {})
        cells = [r["spec"], str(r.get("switch_ports", "")), r["switch"] + (" " + r["datapath"] if r.get("datapath")
                                                                      else ""), str(r["round"]),
                 "%s / %s" % (r.get("answered", 0), r.get("pings", "")) if "error" not in r
                 else "error: " + r["error"][:60].replace("|", "/")]
        cells += ["%.2f" % rt[k] if k in rt else "" for k in ("min", "median", "p90", "max")]
        cells += [str(r.get("vswitchd_cores", "")), str(r.get("long_poll_warnings", ""))]
        m = r.get("main_thread", {})
        cov = m.get("coverage_per_s", {})
        cells += [str(m.get("loop_period_ms", "")), str(m.get("recv_attempts_per_pass", "")),
                  "%.0f / %.0f" % (cov["netdev_received"], cov["netdev_sent"])
                  if "netdev_received" in cov and "netdev_sent" in cov else "",
                  "%.0f" % cov["util_xalloc"] if "util_xalloc" in cov else ""]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--sizes", default="16,64,256")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--pings", type=int, default=50)
    ap.add_argument("--out", default=os.path.join(REPO, "results", "bench", "ovs_latency.json"))
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("ovs latency bench: needs root; skipped")
        return 0
    try:
        sizes = [int(x) for x in a.sizes.split(",") if x]
        specs = [SIZES[s] for s in sizes]
    except (ValueError, KeyError):
        ap.error("--sizes: a comma-separated list of %s" % ", ".join(str(s) for s in SIZES))
    if a.rounds < 1 or a.pings < 1:
        ap.error("--rounds and --pings must be at least 1")
    head, dirty = testing.repo_head()
    summary = {"repo_head": head, "repo_modified": bool(dirty),
               "what": "ping RTT of one hop on an idle BCube (1 s hellos), OVS netdev against Linux bridges, "
                       "alternating; ovs-vswitchd CPU over the pings, and what its main thread did meanwhile "
                       "(main-loop passes = poll() calls, receive attempts = recvmmsg() calls, from perf stat; "
                       "frames and allocations from ovs-appctl coverage/show)",
               "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "runs": []}
    plan = [(rnd, spec, sw) for rnd in range(1, a.rounds + 1) for spec in specs for sw in ("ovs", "lxbr")]
    for i, (rnd, spec, sw) in enumerate(plan, 1):
        print("== [%d/%d] round %d: %s on %s" % (i, len(plan), rnd, spec, sw), flush=True)
        with open("/run/dcn-netns.lock", "a") as lock:
            if not os.environ.get("DCN_NETNS_LOCKED"):
                fcntl.flock(lock, fcntl.LOCK_EX)
            rec = one_run(a.build, spec, sw, a.pings)
        rec["round"] = rnd
        print("   -> %s" % json.dumps({k: rec.get(k) for k in ("answered", "rtt_ms", "vswitchd_cores", "error")}),
              flush=True)
        summary["runs"].append(rec)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(summary, f, indent=2)
    with open(os.path.splitext(a.out)[0] + ".md", "w") as f:
        f.write(table(summary))
    print("wrote %s" % a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
