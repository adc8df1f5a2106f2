"""Summary of tests/bench/forwarding.sh: reads its runs (one JSON object a
line), writes OUT/summary.json, OUT/runs.csv and OUT/ratios.png and prints a
line per MTU and mode. Every ratio pairs the two modes of one round, which ran
back to back, so that the drift of a shared box falls on both.

Modes: "agent", "agent:OPTIONS" and "kernel" go through the relay
("agent": the agents' own data path; "agent:--data-path=kernel": the
kernel's data path, relay and ends in the kernel);
"agent-direct" and "kernel-direct" go one hop, with no relay. agent-direct
over kernel is the ceiling: what the agent would reach if its relay cost
nothing.

Usage: forwarding_summary.py RUNS OUT SECONDS BUILD LOAD_BEFORE ROUNDS MODES
"""
import csv
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from tests.support import testing  # noqa: E402

GOAL = 0.8


def ratio_stats(rs, rounds, mode, base):
    """Median, spread and per-round values of mode / base over the rounds
    that ran both; None when none did."""
    ratios = []
    for rd in range(1, rounds + 1):
        a = [r["gbps"] for r in rs if r["mode"] == mode and r["round"] == rd]
        k = [r["gbps"] for r in rs if r["mode"] == base and r["round"] == rd]
        if a and k and k[0] > 0:
            ratios.append(a[0] / k[0])
    if not ratios:
        return None
    return {"median": round(statistics.median(ratios), 3), "min": round(min(ratios), 3),
            "max": round(max(ratios), 3), "per_round": [round(x, 3) for x in ratios]}


def relayed_share(run):
    """Frames relayed, by the agents or their kernel relays, over the
    transfer's data frames (at most MTU bytes each)."""
    frames = run["gbps"] * 1e9 / 8 * run.get("seconds", 5) / run["mtu"]
    relayed = (run.get("relayed_by_agents") or 0) + (run.get("relayed_in_kernel") or 0)
    return relayed / frames if frames > 0 else 0.0


def summarize(runs, modes):
    """One row per MTU: each mode's throughput; each agent mode's ratio to the
    kernel through the relay, and whether it meets GOAL; the ceiling."""
    agent_modes = [m for m in modes if m.startswith("agent")]
    per_mtu = []
    for mtu in sorted({r["mtu"] for r in runs}):
        rs = [r for r in runs if r["mtu"] == mtu]
        row = {"mtu": mtu, "rounds": max(r["round"] for r in rs)}
        for m in modes:
            g = [r["gbps"] for r in rs if r["mode"] == m]
            if not g:
                continue
            row[m] = {"median_gbps": round(statistics.median(g), 3), "min_gbps": round(min(g), 3),
                      "max_gbps": round(max(g), 3),
                      "median_box_cpu_busy": round(statistics.median(r["box_cpu_busy"] for r in rs if r["mode"] == m), 3)}
            for key, name, agg in (("relay_agent_cpu_pct", "median_relay_agent_cpu_pct", statistics.median),
                                   ("relayed_by_agents", "max_relayed_by_agents", max),
                                   ("relayed_in_kernel", "max_relayed_in_kernel", max)):
                vals = [r[key] for r in rs if r["mode"] == m and r.get(key) is not None]
                if vals:
                    row[m][name] = agg(vals)
            if m == "agent-direct":
                # direct means no relay: a round where the agents relayed more
                # than 1 % of the data's frames did not measure that
                row[m]["rounds_not_direct"] = [r["round"] for r in rs if r["mode"] == m and relayed_share(r) > 0.01]
        for m in agent_modes:
            ratio = ratio_stats(rs, row["rounds"], m, "kernel") if m in row else None
            if ratio is None:
                continue
            row[m]["ratio_to_kernel"] = ratio
            if m == "agent-direct":
                row["ceiling"] = dict(ratio, goal_reachable=ratio["median"] >= GOAL,
                                      rounds_not_direct=row[m]["rounds_not_direct"])
            else:
                row[m]["meets_goal"] = ratio["median"] >= GOAL
        if "agent-direct" in row and "kernel-direct" in row:
            row["agent-direct"]["ratio_to_kernel_direct"] = ratio_stats(rs, row["rounds"], "agent-direct", "kernel-direct")
        per_mtu.append(row)
    return per_mtu


def report_lines(per_mtu, modes):
    lines = []
    for row in per_mtu:
        for m in modes:
            if m not in row:
                continue
            line = "MTU %5d  %-24s median %7.3f Gb/s (min %.3f, max %.3f)" % (
                row["mtu"], m, row[m]["median_gbps"], row[m]["min_gbps"], row[m]["max_gbps"])
            r = row[m].get("ratio_to_kernel")
            if r:
                line += "  / kernel: median %.3f (min %.3f, max %.3f over %d rounds)" % (
                    r["median"], r["min"], r["max"], len(r["per_round"]))
                if m == "agent-direct":
                    line += "  ceiling, no relay: %s" % (
                        "0.8 reachable" if row["ceiling"]["goal_reachable"] else "0.8 OUT OF REACH")
                    if row[m]["rounds_not_direct"]:
                        line += " (NOT DIRECT in rounds %s: the agents relayed)" % row[m]["rounds_not_direct"]
                else:
                    line += "  %s" % ("meets 0.8" if row[m]["meets_goal"] else "BELOW 0.8")
            lines.append(line)
    return lines


def plot(per_mtu, runs, modes, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot")
        return
    fig, axes = plt.subplots(1, len(per_mtu), figsize=(5.5 * len(per_mtu), 3.8), squeeze=False)
    for ax, row in zip(axes[0], per_mtu):
        for m in modes:
            xs = [r["round"] for r in runs if r["mtu"] == row["mtu"] and r["mode"] == m]
            ys = [r["gbps"] for r in runs if r["mtu"] == row["mtu"] and r["mode"] == m]
            direct = m.endswith("-direct")
            ax.plot(xs, ys, "s--" if direct else "o-", label=m + (" (no relay)" if direct else ""))
        title = "MTU %d" % row["mtu"]
        if "ceiling" in row:
            title += ": ceiling %.2f x kernel" % row["ceiling"]["median"]
        ax.set_title(title)
        ax.set_xlabel("round (modes alternate within a round)")
        ax.set_xticks(range(1, row["rounds"] + 1))
        ax.set_ylabel("Gb/s, one TCP flow")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv):
    runs_file, out, seconds, build, load_before, rounds, modes = argv[1:8]
    modes = modes.split()
    runs = [json.loads(line) for line in open(runs_file) if line.strip()]
    if not runs:
        print("forwarding_summary.py: no runs in %s: nothing written" % runs_file, file=sys.stderr)
        return 1
    per_mtu = summarize(runs, modes)
    for line in report_lines(per_mtu, modes):
        print(line)
    commit, dirty = testing.repo_head()  # the rule of every summary: only code counts
    doc = {
        "benchmark": "forwarding",
        "goal": "agent >= %.1f x kernel IP forwarding, median over alternating rounds, at MTU 1500 and 9000" % GOAL,
        "summary": per_mtu,
        "runs": runs,
        "setup": {
            "topology": "bcube n=2 k=1, h00 -> h11 through one relay server (the *-direct modes: h00 -> h01, "
                        "one hop, no relay), namespaces + veth + Linux bridges",
            "ceiling": "agent-direct / kernel per round: the agent's two ends with no relay at all, over the kernel "
                       "through its relay; no relay, however fast, takes the agent above it",
            "traffic": "one iperf3 TCP flow per run, %s s (first second omitted)" % seconds,
            "order": "rounds of modes %s, alternating in one run; %s rounds per MTU" % (" ".join(modes), rounds),
            "offloads": "tso, gso, gro, tx and rx checksum off on every veth; the agent's TUN takes 64 KB TCP "
                        "segments unless --tun-offload off",
            "agent": "dcn-agent from the build tree %s (Release unless said), AF_PACKET recvmmsg/sendmmsg + TUN, "
                     "one libev thread" % os.path.basename(build),
            "kernel": "same namespaces, veths and bridges; IPv4 on the port interfaces, ip_forward=1 on the relay",
            "relay_agent_cpu_pct": "user+system time of the relay's dcn-agent over the transfer, percent of one core",
            "box_cpu_busy": "fraction of both cores busy over the transfer (/proc/stat)",
            "cpus": os.cpu_count(),
            "loadavg_1min_before": float(load_before),
            "loadavg_1min_after": os.getloadavg()[0],
            "commit": commit, "repo_modified": dirty,
            "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
    }
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(doc, f, indent=2)
    with open(os.path.join(out, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(runs[0].keys()))
        w.writeheader()
        w.writerows(runs)
    plot(per_mtu, runs, modes, os.path.join(out, "ratios.png"))
    print("wrote", os.path.join(out, "summary.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
