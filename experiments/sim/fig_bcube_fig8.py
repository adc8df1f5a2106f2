#!/usr/bin/python3
"""BCube paper Fig. 8: ABT of 2048-server BCube (partial BCube_3, n=8, BSR),
fat-tree (5 layers of 8-port switches, ECMP) and DCell (partial DCell_2,
n=8, DFR) under 0-20 % server (a) and switch (b) failures, all-to-all,
1 Gb/s links. Also DCell's per-level flow counts without failures.
Each point is the mean over --seeds failure draws (and routing draws), with
the sd and min..max beside it (abt_points.csv; error bars: min..max)."""
import simlib as L

SEEDS = 3  # default of --seeds: the 20 % switch-failure BCube point is the slow one (BFS repairs)
RATIOS = [0.0, 0.02, 0.06, 0.20]  # the ratios the paper quotes numbers for (the box is shared)
STRUCTS = {
    "bcube": (["bcube", "n=8", "k=3", "parts=4"], "bsr"),
    "fattree": (["mlfattree", "n=8", "layers=5"], "ecmp"),
    "dcell": (["dcell", "n=8", "k=2", "servers=2048"], "dfr"),
}
PAPER = {
    "abt_gbps_no_failure": {"bcube": 2006, "fattree": 1895, "dcell": 298},
    "switch_failure_abt_gbps": {"fattree": {"0.02": 1145, "0.06": 704, "0.20": 267}, "bcube": {"0.20": 765}},
    "dcell_level_max_flows": {"0": 14047, "1": 9280, "2": 5184},
    "dcell_level0_min_flows": 2095,
    "source": "Guo et al., BCube, SIGCOMM 2009, Sec. 6 and Fig. 8 (numbers quoted in the text)",
}


def main():
    seeds = L.seeds_arg(SEEDS, __doc__)
    out = L.results_dir("sim-bcube-fig8")
    rows, curves, points = [], {}, []
    for kind in ("server", "switch"):
        for name, (words, routing) in STRUCTS.items():
            r, _, _ = L.run_sim(words, routing, kind, RATIOS, seeds)
            for x in r:
                x["structure"] = name
            rows += r
            curves.setdefault(kind, {})[name] = L.stats_by_ratio(r, "abt_gbps")
            points += L.point_rows(curves[kind][name], structure=name, fail=kind, metric="abt_gbps")
    L.write_csv(f"{out}/abt.csv", rows, ["structure"] + list(rows[0].keys())[:-1])
    L.write_csv(f"{out}/abt_points.csv", points)
    # No failure: DCell's per-level loads, and BSR's greedy variant for comparison.
    _, lv, _ = L.run_sim(STRUCTS["dcell"][0], "dfr", levels=True)
    L.write_csv(f"{out}/dcell_levels.csv", lv)
    greedy, _, _ = L.run_sim(STRUCTS["bcube"][0], "bsr-greedy")
    shortest, _, _ = L.run_sim(STRUCTS["bcube"][0], "route")
    dmodk, _, _ = L.run_sim(STRUCTS["fattree"][0], "dmodk")
    no_fail = {n: L.r4(curves["server"][n][0.0]["mean"]) for n in STRUCTS}
    measured = {
        "abt_gbps_no_failure": no_fail,
        "abt_gbps_no_failure_variants": {
            "bcube_bsr_greedy_least_loaded": L.r4(greedy[0]["abt_gbps"]),
            "bcube_bcuberouting_single_path": L.r4(shortest[0]["abt_gbps"]),
            "fattree_dmodk": L.r4(dmodk[0]["abt_gbps"]),
        },
        "ratios": RATIOS,
        "seeds_per_point": seeds,
        "abt_gbps_server_failures": {n: L.spread(c)["mean"] for n, c in curves["server"].items()},
        "abt_gbps_switch_failures": {n: L.spread(c)["mean"] for n, c in curves["switch"].items()},
        "abt_gbps_server_failures_spread": {n: L.spread(c) for n, c in curves["server"].items()},
        "abt_gbps_switch_failures_spread": {n: L.spread(c) for n, c in curves["switch"].items()},
        "dcell_level_max_flows": {x["level"]: int(x["max_flows"]) for x in lv},
        "dcell_level_min_flows": {x["level"]: int(x["min_flows"]) for x in lv},
        "routing": {n: r for n, (_, r) in STRUCTS.items()},
    }
    sw, sv = measured["abt_gbps_switch_failures_spread"], measured["abt_gbps_server_failures_spread"]
    i2, i6, i20 = RATIOS.index(0.02), RATIOS.index(0.06), RATIOS.index(0.20)
    headline = {"measured": "mean (min..max) of %d seeds, Gb/s: no failure BCube %s, fat-tree %s, DCell %s; "
                "switch failures: fat-tree %s / %s / %s at 2 / 6 / 20 %%, BCube %s at 20 %%"
                % (seeds, L.mmm(sv["bcube"], 0), L.mmm(sv["fattree"], 0), L.mmm(sv["dcell"], 0),
                   L.mmm(sw["fattree"], i2), L.mmm(sw["fattree"], i6), L.mmm(sw["fattree"], i20),
                   L.mmm(sw["bcube"], i20)),
                "paper": "no failure 2006 / 1895 / 298; switch failures: fat-tree 1145 / 704 / 267, BCube 765 at 20 %"}
    L.write_summary(out, "sim-bcube-fig8", measured, PAPER, range(1, seeds + 1),
                    {"headline": headline, "definitions": "ABT = routed flows x min over directed links (capacity / flows); "
                                    "flows with a failed end point dropped; mean over seeds, sd = sample "
                                    "standard deviation, min/max over seeds (docs/simulator.md)"})
    fig, axes = L.failure_panels(curves, {"bcube": ("BCube", "o-"), "fattree": ("Fat-tree", "s-"),
                                          "dcell": ("DCell", "^-")}, seeds)
    for ax in axes:
        ax.set_ylim(0, 2400)
        ax.set_xlim(0, 20)
    axes[1].plot([2, 6, 20], [1145, 704, 267], "kx", label="paper: fat-tree")
    axes[1].plot([20], [765], "k+", ms=9, label="paper: BCube")
    axes[0].legend()
    axes[1].legend(fontsize=8)
    L.save_figure(fig, f"{out}/fig8.png")
    L.log("done")


if __name__ == "__main__":
    main()
