#!/usr/bin/python3
"""The tree's all-to-all alone (bcube-all-to-all's baseline), run several
times in one invocation with the queue size, the hosts' TCP congestion
control and small-frames-first varied per run, to see what keeps the tree's
uplinks full. Prints one JSON line per run (RESULT ...) and writes
probe.json under --out. docs/experiments.md ("Small frames first").

  sudo tools/probes/tree_probe.py --size-scale 0.25 --queues 0,0 --ccs cubic --small off,on
"""
import importlib.machinery
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "experiments"))
from explib import Experiment  # noqa: E402
from orchestrator import netops  # noqa: E402

A2A = importlib.machinery.SourceFileLoader("a2a", os.path.join(REPO, "experiments", "bcube-all-to-all")).load_module()


def cycle(text, i):
    items = text.split(",")
    return items[i % len(items)]


def run(ex):
    ex.add_argument("--tree", default="tree leaves=4 per_leaf=4")
    ex.add_argument("--queues", default="0,100", help="per run, cycled: queue packets (0: the kernel's)")
    ex.add_argument("--ccs", default="cubic", help="per run, cycled: the hosts' TCP congestion control")
    ex.add_argument("--small", default="off,on", help="per run, cycled: small frames first on/off")
    a = ex.parse()
    per_conn = ex.scaled_bytes(10 * (1 << 30)) // 15
    runs = max(len(a.queues.split(",")), len(a.ccs.split(",")), len(a.small.split(",")))
    out = []
    for i in range(runs):
        q, cc, small = int(cycle(a.queues, i)), cycle(a.ccs, i), cycle(a.small, i)
        ex.a.queue_pkts, ex.a.small_first = q or None, small
        with ex.testbed(a.tree, "tree%d" % i) as net:
            for h in net.tb.hosts.values():
                netops.write_sysctls([("/proc/sys/net/ipv4/tcp_congestion_control", cc)], h.pid)
            ex.log("run %d: queue %s, %s, small frames first %s" % (i, q or "kernel", cc, small))
            _, _, t0, dur, per_server, failed = A2A.pattern(ex, net, per_conn, "tree%d" % i)
            dirs = net.uplink_dirs()
            w0, w1 = t0 + 0.3 * dur, t0 + 0.6 * dur
            net.expect_saturated(dirs, w0, w1)  # the experiments' own check, reported below
            idx = [net.links.names.index(d) for d in dirs]
            low = tot = 0
            for t, v in net.links.samples:
                if w0 <= t <= w1:
                    for j in idx:
                        tot += 1
                        low += (v[j] or 0) < 0.5 * a.link_mbps
            r = {"queue": q, "cc": cc, "small_first": small, "completion_s": round(dur, 1),
                 "per_server_mbps": round(per_server, 3), "failed": failed,
                 "uplink_utilisation": {c["link"]: c["utilisation"] for c in net.saturation},
                 "uplink_checks": [c for c in net.saturation if c["run"] == "tree%d" % i],
                 "uplink_samples_under_half": [low, tot], "cpu_busy_max": net.cpu.stats(t0, t0 + dur)["max"]}
            print("RESULT", json.dumps(r), flush=True)
            out.append(r)
    ex.write_json("probe.json", out)
    return ex.finish(measured={"runs": out}, reasons=[])


if __name__ == "__main__":
    sys.exit(Experiment("tree-probe", __doc__).main(run))
