#!/usr/bin/python3
"""Which of the path-failure and probe-response rules acts when hellos
flap (issue 40; results/bcube-one-to-one-trust-ab/NOTES.md): two builds
alternated (A: --build-dir, B: --build-dir-b, A B A B ...), each round a
fresh BCube_1 n=4 with fast hellos, two long TCP connections (h00 to h13
and h01 to h12) and no failure injected. After the traffic every agent's
counters are summed: neighbours declared dead and up again, path-failure
messages sent, received, adopted and not adopted, probe responses dropped
as coming from the wrong neighbour or capped, failures received again
within 50 ms; and path selection's probes answered, ignored, timed out
and the path switches. A counter a build lacks reads as absent (None), not 0.

Prints one RESULT line per run and writes runs.csv and summary.json
under --out.

  sudo tools/probes/trust_counters.py --build-dir build --build-dir-b ../wt-rules/build \\
      --out /tmp/trust-counters
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "experiments"))
from explib import Experiment, agentctl, traffic  # noqa: E402

COUNTERS = ("neighbor_down_events", "neighbor_up_events", "path_failure_tx", "path_failure_rx",
            "path_failure_overheard", "path_failure_not_adopted", "drop_failure_rate_limited",
            "drop_fail_rate_limited_rx", "drop_fail_wrong_neighbor", "drop_probe_resp_wrong_neighbor",
                        "probe_resp_capped", "probe_tx", "probe_resp_tx", "probe_resp_rx")
# path selection's own (dcn-ctl counters, "path_select"): whether answers
# were taken, ignored as on another path, or timed out, and what moved
PS_COUNTERS = ("probes_sent", "probe_responses", "probe_responses_stale", "probe_responses_wrong_path",
               "probe_timeouts", "path_switches", "moves_deferred", "failures_heard", "faildb_entries")
FLOWS = (("h00", "h13"), ("h01", "h12"))


def one_run(ex, a, build, build_dir, rnd):
    ex.a.build_dir = build_dir
    with ex.testbed(a.topo, f"{build}_r{rnd}") as net:
        tb = net.tb
        pairs = [p.split("-") for p in a.pairs.split(",")] if a.pairs else FLOWS
        flows = [traffic.Flow(s, d, seconds=a.seconds, label=f"{s}-{d}-{i:d}") for i, (s, d) in enumerate(pairs)]
        traffic.run_flows(ex, tb, flows, timeout=a.seconds + 120)
        replies = {n: agentctl.ctl(tb, n, "counters") or {} for n in sorted(tb.agents)}
        per_agent = {n: {**r.get("counters", {}), **r.get("path_select", {})} for n, r in replies.items()}
        summ = [f.summary() for f in flows]
    totals = {}
    for k in COUNTERS + PS_COUNTERS:
        seen = [c[k] for c in per_agent.values() if k in c]
        totals[k] = sum(seen) if seen else None
    return {"build": build, "round": rnd, **totals,
            "flows_mbps": [s["mbps"] for s in summ], "flows_ok": all(s["ok"] for s in summ)}


def run(ex):
    ex.add_argument("--build-dir-b", required=True, help="the build to compare with --build-dir's")
    ex.add_argument("--rounds", type=int, default=2, help="rounds of A then B (default 2)")
    ex.add_argument("--seconds", type=int, default=25, help="traffic per run (default 25)")
    ex.add_argument("--topo", default="bcube n=4 k=1")
    ex.add_argument("--pairs", default="",
                    help="connections as SRC-DST,SRC-DST (default h00-h13,h01-h12; "
                         "h00-h13,h00-h13 is the one-to-one's pair)")
    ex.set_defaults(hello_ms=50, switch="lxbr")
    a = ex.parse()
    builds = (("A", os.path.abspath(a.build_dir)), ("B", os.path.abspath(a.build_dir_b)))
    for _, d in builds:
        if not os.path.isdir(d):
            ex.fail(f"no build directory {d}")
    runs = []
    for rnd in range(1, a.rounds + 1):
        for build, d in builds:
            ex.log(f"round {rnd}/{a.rounds}: build {build} ({d})")
            r = one_run(ex, a, build, d, rnd)
            print("RESULT", json.dumps(r), flush=True)
            runs.append(r)
    cols = list(runs[0])
    ex.write_csv("runs.csv", [cols] + [[r[k] for k in cols] for r in runs])
    return ex.finish(measured={"runs": runs, "builds": {b: d for b, d in builds}},
                     flows_failed=sum(1 for r in runs if not r["flows_ok"]),
                     notes="a diagnostic of issue 40, not a paper figure: two builds alternated on one box, "
                           "no failure injected; counters summed over every agent after the traffic")


if __name__ == "__main__":
    sys.exit(Experiment("trust-counters", __doc__, repeat=False).main(run))
