#!/usr/bin/python3
"""BCDC paper Fig. 8: all-to-all ABT of B_9 (2304 servers) against a partial
BCube_3 (n=9, three BCube_2 = 2187 servers, BSR) and a partial DCell_2 (n=9,
2304 servers, DFR) under random server and switch failures. BCDC is routed
on the shortest live path (BRouting's length; BFRouting beyond its fault
bound is a BFS); BRouting's own fault-free ABT and 2N/L are given beside.
Each point is the mean over --seeds failure draws (and routing draws), with
the sd and min..max beside it (fig8_points.csv; error bars: min..max)."""
import simlib as L

RATIOS = [0.0, 0.02, 0.10, 0.20]
SEEDS = 3  # default of --seeds: BCube's 20 % points are the slow ones (BFS repairs)
STRUCTS = {
    "bcdc": (["bcdc", "n=9"], "shortest"),
    "bcube": (["bcube", "n=9", "k=3", "parts=3"], "bsr"),
    "dcell": (["dcell", "n=9", "k=2", "servers=2304"], "dfr"),
}
PAPER = {"bcdc_abt_gbps_no_failure": 1152, "bcdc_abt_gbps_2pct_server": 1106, "bcdc_abt_gbps_2pct_switch": 1086,
         "bcdc_drop_20pct_server": 0.362, "bcdc_drop_20pct_switch": 0.489,
         "ordering": "BCube above BCDC, DCell below",
         "source": "Wang et al., BCDC, JCST 2018, Sec. 6 Fig. 8 (text)"}


def main():
    seeds = L.seeds_arg(SEEDS, __doc__)
    out = L.results_dir("sim-bcdc-fig8")
    rows, points, stats = [], [], {}
    meas = {"ratios": RATIOS, "seeds_per_point": seeds, "routing": {k: v[1] for k, v in STRUCTS.items()}}
    for kind in ("server", "switch"):
        for name, (words, routing) in STRUCTS.items():
            r, _, _ = L.run_sim(words, routing, kind, RATIOS, seeds)
            for x in r:
                x["structure"] = name
            rows += r
            st = stats.setdefault(kind, {})[name] = L.stats_by_ratio(r, "abt_gbps")
            meas.setdefault(f"abt_gbps_{kind}_failures", {})[name] = L.spread(st)["mean"]
            meas.setdefault(f"abt_gbps_{kind}_failures_spread", {})[name] = L.spread(st)
            points += L.point_rows(st, structure=name, fail=kind, metric="abt_gbps")
            if name == "bcdc":
                # the drop of each seed against the mean no-failure ABT
                drop = L.stats_by_ratio([dict(x, d=1 - float(x["abt_gbps"]) / st[0.0]["mean"]) for x in r], "d")
                meas[f"bcdc_drop_{kind}"] = L.spread(drop)["mean"]
                meas[f"bcdc_drop_{kind}_spread"] = L.spread(drop)
    L.write_csv(f"{out}/fig8.csv", rows)
    L.write_csv(f"{out}/fig8_points.csv", points)
    br, _, _ = L.run_sim(["bcdc", "n=9"], "brouting")
    meas["bcdc_brouting_abt_gbps_no_failure"] = L.r4(br[0]["abt_gbps"])
    meas["bcdc_2N_over_mean_hops"] = L.r4(2 * 2304 / float(br[0]["mean_hops"]))
    i2, i20 = RATIOS.index(0.02), RATIOS.index(0.20)
    ds, dw = meas["bcdc_drop_server_spread"], meas["bcdc_drop_switch_spread"]
    headline = {"measured": "BCDC B_9, mean (min..max) of %d seeds: ABT %.0f Gb/s without failure (2N/L %.0f); drop "
                "%s / %s %% at 2 / 20 %% server failures, %s / %s %% switch"
                % (seeds, meas["abt_gbps_server_failures"]["bcdc"][0], meas["bcdc_2N_over_mean_hops"],
                   L.mmm(ds, i2, 100, "%.1f"), L.mmm(ds, i20, 100, "%.1f"), L.mmm(dw, i2, 100, "%.1f"),
                   L.mmm(dw, i20, 100, "%.1f")),
                "paper": "1152 Gb/s; drop 4 / 36.2 % (server), 5.7 / 48.9 % (switch)"}
    L.write_summary(out, "sim-bcdc-fig8", meas, PAPER, range(1, seeds + 1),
                    {"headline": headline, "definitions": "ABT = routed flows x min over directed links (capacity / flows); mean over "
                                    "seeds, sd = sample standard deviation, min/max over seeds; drop = 1 - ABT / "
                                    "mean no-failure ABT, per seed"})
    fig, axes = L.failure_panels(stats, {"bcdc": ("BCDC", "o-"), "bcube": ("BCube", "s-"), "dcell": ("DCell", "^-")},
                                 seeds)
    axes[0].plot([0, 2, 20], [1152, 1106, 1152 * (1 - 0.362)], "kx", ms=8, label="paper: BCDC")
    axes[1].plot([0, 2, 20], [1152, 1086, 1152 * (1 - 0.489)], "kx", ms=8, label="paper: BCDC")
    axes[0].legend(fontsize=8)
    axes[1].legend(fontsize=8)
    L.save_figure(fig, f"{out}/fig8.png")
    L.log("done")


if __name__ == "__main__":
    main()
