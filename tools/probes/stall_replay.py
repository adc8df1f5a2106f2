#!/usr/bin/python3
"""Replays a stretch of a soak's failure schedule (results/soak/failures.csv)
against long TCP connections between two servers, with the paths of both
directions watched at both ends every 0.1 s, to see why a soak connection
stalled although a path remained (docs/soak.md). The connections carry data
from --src to --dst; their ACKs are flows of --dst's agent.

Prints one RESULT line per run and writes, under --out, replay.json,
run<i>_paths.csv (every path change of the connections' flows, both agents)
and run<i>_rx.csv (the destination's and the source's receive rates).

  sudo tools/probes/stall_replay.py --topo "hcn n=4 h=1" --src h33 --dst h44 \\
      --failures results/soak-agent/failures.csv --data-path agent --phase hcn --from 327 --to 353 \\
      --out /tmp/replay
"""
import csv
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "experiments"))
from explib import Experiment, agentctl, soak, traffic  # noqa: E402
from explib.series import rx_series  # noqa: E402
from explib.agentctl import PathWatcher  # noqa: E402


def schedule(path, phase, t_from, t_to):
    """[(offset s, down, kind, target)] of the soak's events in [t_from, t_to]
    of one phase; a failure still in force at t_to is lifted 1 s later."""
    out, active = [], {}
    with open(path) as f:
        for r in csv.DictReader(f):
            t = float(r["t_s"])
            if r["phase"] != phase or not t_from <= t <= t_to:
                continue
            target = tuple(r["target"].split("-")) if r["kind"] in soak.LINK_KINDS else r["target"]
            down = r["action"] == "down"
            if not down and (r["kind"], target) not in active:
                continue  # put in force before the window
            out.append((t - t_from, down, r["kind"], target))
            if down:
                active[(r["kind"], target)] = True
            else:
                active.pop((r["kind"], target))
    end = (out[-1][0] if out else 0.0) + 1.0
    out += [(end, False, k, tgt) for k, tgt in active]
    return out


def gaps(series, t0, t1, floor_mbps):
    """Spans of [t0, t1] in which the rate stayed under floor_mbps: [(start, length)]."""
    out, start = [], None
    for t, v in series:
        if not t0 <= t <= t1:
            continue
        if v < floor_mbps and start is None:
            start = t
        elif v >= floor_mbps and start is not None:
            out.append((round(start, 2), round(t - start, 2)))
            start = None
    if start is not None:
        out.append((round(start, 2), round(t1 - start, 2)))
    return sorted(out, key=lambda g: -g[1])


def one_run(ex, a, events, i):
    span = events[-1][0] if events else 0.0
    seconds = int(a.lead + span + a.tail)
    with ex.testbed(a.topo, "run%d" % i, link_period=0.1) as net:
        tb = net.tb
        ips = {tb.wiring.ip_of(a.src), tb.wiring.ip_of(a.dst)}
        watcher = PathWatcher(tb, [a.src, a.dst], period=0.1,
                              match=lambda f: f["proto"] == 6 and {f["src"], f["dst"]} == ips)
        watcher.start()
        todo, applied = list(events), []
        flows = [traffic.Flow(a.src, a.dst, seconds=seconds, label="C%d" % j) for j in range(a.connections)]

        def tick(elapsed):
            while todo and elapsed >= a.lead + todo[0][0]:
                off, down, kind, target = todo.pop(0)
                soak.apply_failure(tb, kind, target, down)
                applied.append((round(elapsed, 3), "down" if down else "up", kind,
                                "-".join(target) if isinstance(target, tuple) else target))
                ex.log("  %.1f s: %s %s %s" % (elapsed, applied[-1][1], kind, applied[-1][3]))
        traffic.run_flows(ex, tb, flows, timeout=seconds + 120, on_tick=tick)
        watcher.stop()
        t0 = min(f.start_time for f in flows)
        counters = {n: agentctl.counters(tb, n) for n in (a.src, a.dst)}
        summ = [f.summary() for f in flows]
        ex.write_csv("run%d_paths.csv" % i, watcher.rows(t0))
        into_dst, into_src = rx_series(net, a.dst, t0), rx_series(net, a.src, t0)
        ex.write_csv("run%d_rx.csv" % i, [["t_s", "into_%s_mbps" % a.dst, "into_%s_mbps" % a.src]] +
                     [["%.2f" % t, "%.3f" % v, "%.3f" % w] for (t, v), (_, w) in zip(into_dst, into_src)])
        floor = 0.05 * a.link_mbps * a.connections
        g = gaps(into_dst, a.lead, seconds, floor)
    return {"run": i, "events": applied, "gaps_s": g[:5], "longest_gap_s": g[0][1] if g else 0.0,
            "flows": [{k: s[k] for k in ("label", "mbps", "retransmits", "bytes_received", "error")} for s in summ],
            "path_changes": len(watcher.changes),
            "counters": {n: {k: v for k, v in c.items() if v and ("fail" in k or "timeout" in k or "reroute" in k)}
                         for n, c in counters.items()}}


def run(ex):
    ex.add_argument("--topo", default="hcn n=4 h=1")
    ex.add_argument("--src", default="h33")
    ex.add_argument("--dst", default="h44")
    ex.add_argument("--failures", default=os.path.join(REPO, "results", "soak", "failures.csv"))
    ex.add_argument("--phase", default="hcn", help="the soak phase whose events are replayed")
    ex.add_argument("--from", dest="t_from", type=float, default=327.0, help="soak time of the window's start (s)")
    ex.add_argument("--to", dest="t_to", type=float, default=353.0, help="soak time of the window's end (s)")
    ex.add_argument("--lead", type=float, default=5.0, help="traffic before the window (s)")
    ex.add_argument("--tail", type=float, default=30.0, help="traffic after the last event (s)")
    ex.add_argument("--connections", type=int, default=1)
    ex.add_argument("--runs", type=int, default=1)
    ex.set_defaults(hello_ms=100)
    a = ex.parse()
    if a.connections < 1 or a.runs < 1 or a.lead < 0 or a.tail < 0 or a.t_to < a.t_from:
        ex.ap.error("--connections and --runs >= 1, --lead and --tail >= 0, --to >= --from")
    try:
        events = schedule(a.failures, a.phase, a.t_from, a.t_to)
    except (OSError, KeyError, ValueError) as e:
        ex.ap.error("--failures %s: %s" % (a.failures, e))
    ex.log("replay: %d events of %s [%.1f, %.1f] s, %s -> %s, %d connection(s), %d run(s)" % (
        len(events), a.phase, a.t_from, a.t_to, a.src, a.dst, a.connections, a.runs))
    out = []
    for i in range(a.runs):
        r = one_run(ex, a, events, i)
        print("RESULT", json.dumps(r), flush=True)
        out.append(r)
        time.sleep(1)
    ex.write_json("replay.json", out)
    return ex.finish(measured={"runs": out}, reasons=[])


if __name__ == "__main__":
    sys.exit(Experiment("stall-replay", __doc__, repeat=False).main(run))
