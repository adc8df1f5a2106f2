#!/usr/bin/python3
"""Why OVS's userspace datapath loses pings at 256 servers: the round-trip
time of one hop on an idle testbed, against the number of switch ports, on
OVS (netdev datapath) and on Linux bridges, the two alternating in one run.

  tests/bench/ovs_latency.py BUILD_DIR [--sizes 16,64,256] [--rounds 2] [--pings 50]

Each run brings BCube up with 1 s hellos (the agents then take about 0.1 of a
core at 256 servers), waits 5 s, then pings from the first server to the
second (one hop, through one level-0 switch) every 0.1 s, while ovs-vswitchd's
CPU time and its "Unreasonably long ... poll interval" warnings are counted.
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

from orchestrator import ovs, state, testing  # noqa: E402
from orchestrator.testbed import Testbed, TestbedError  # noqa: E402

SIZES = {16: "bcube n=4 k=1", 64: "bcube n=4 k=2", 256: "bcube n=4 k=3"}
VSWITCHD_LOG = "/var/log/openvswitch/ovs-vswitchd.log"


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
        c0, warn0, t0 = (state.proc_cpu_s(pid) if pid else None), log_warnings(), time.time()
        out = tb.hosts[src].cmd("ping -n -c %d -i 0.1 -W 1 %s" % (pings, w.ip_of(dst)))
        elapsed = time.time() - t0
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
        "| ovs-vswitchd cores | long-poll warnings |",
        "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in summary["runs"]:
        rt = r.get("rtt_ms", {})
        cells = [r["spec"], str(r.get("switch_ports", "")), r["switch"] + (" " + r["datapath"] if r.get("datapath")
                                                                      else ""), str(r["round"]),
                 "%s / %s" % (r.get("answered", 0), r.get("pings", "")) if "error" not in r
                 else "error: " + r["error"][:60].replace("|", "/")]
        cells += ["%.2f" % rt[k] if k in rt else "" for k in ("min", "median", "p90", "max")]
        cells += [str(r.get("vswitchd_cores", "")), str(r.get("long_poll_warnings", ""))]
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
                       "alternating; ovs-vswitchd CPU over the pings",
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
