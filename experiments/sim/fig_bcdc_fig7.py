#!/usr/bin/python3
"""BCDC paper Fig. 7: path failure ratio under random server or switch
failures, 0-20 %, in B_8 (the figure) and B_9 (the text). The paper leaves
the metric undefined, so two are measured over all live ordered pairs:
  - oblivious: BRouting's fault-free path crosses a failure (no repair);
  - informed: no live path exists at all (the source knows the failures,
    as BFRouting assumes; beyond its fault bound BFRouting is a BFS).
Each point is the mean over --seeds failure draws, with the sd and min..max
beside it (fig7_points.csv; error bars: min..max)."""
import simlib as L

SEEDS = 3  # default of --seeds
PAPER = {"path_failure_ratio_10pct_server_failures_B8": 0.097, "path_failure_ratio_20pct_server_failures_max": 0.182,
         "path_failure_ratio_20pct_switch_failures_max": 0.296, "below_1pct_failures": "about 0",
         "source": "Wang et al., BCDC, JCST 2018, Sec. 6 Fig. 7 (text)"}


def main():
    seeds = L.seeds_arg(SEEDS, __doc__)
    out = L.results_dir("sim-bcdc-fig7")
    rows, points, stats = [], [], {}
    meas = {"ratios": L.RATIOS, "seeds_per_point": seeds}
    for n in (8, 9):
        for kind in ("server", "switch"):
            for metric, routing in (("oblivious", "brouting"), ("informed", "shortest")):
                r, _, _ = L.run_sim(["bcdc", f"n={n}"], routing, kind, L.RATIOS, seeds)
                for x in r:
                    x["metric"] = metric
                rows += r
                key = f"B{n}_{kind}_{metric}"
                stats[key] = L.stats_by_ratio(r, "path_failure_ratio")
                meas[key] = L.spread(stats[key])["mean"]
                meas[key + "_spread"] = L.spread(stats[key])
                points += L.point_rows(stats[key], network=f"B_{n}", fail=kind, metric=metric,
                                       quantity="path_failure_ratio")
    L.write_csv(f"{out}/fig7.csv", rows)
    L.write_csv(f"{out}/fig7_points.csv", points)
    i10, i20 = L.RATIOS.index(0.10), L.RATIOS.index(0.20)
    headline = {"measured": "B_8, mean (min..max) of %d seeds, BRouting without repair: %s %% / %s %% at 10 / 20 %% "
                "server failures, %s %% at 20 %% switch failures; no live path %s %% (20 %% switch)"
                % (seeds, L.mmm(meas["B8_server_oblivious_spread"], i10, 100, "%.1f"),
                   L.mmm(meas["B8_server_oblivious_spread"], i20, 100, "%.1f"),
                   L.mmm(meas["B8_switch_oblivious_spread"], i20, 100, "%.1f"),
                   L.mmm(meas["B8_switch_informed_spread"], i20, 100, "%.1f")),
                "paper": "9.7 % at 10 % server failures, < 18.2 % (server) and < 29.6 % (switch) at 20 %"}
    L.write_summary(out, "sim-bcdc-fig7", meas, PAPER, range(1, seeds + 1),
                    {"headline": headline, "definitions": "path failure ratio = live ordered pairs without a path / live ordered pairs; "
                                    "mean over seeds, sd = sample standard deviation, min/max over seeds"})
    plt = L.pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    for n, col in ((8, "C0"), (9, "C1")):
        for kind, mk in (("server", "o"), ("switch", "s")):
            L.errorbar(ax, stats[f"B{n}_{kind}_oblivious"], mk + "-", scale=100, color=col,
                       label=f"B_{n} {kind}, BRouting without repair")
            L.errorbar(ax, stats[f"B{n}_{kind}_informed"], mk + "--", scale=100, color=col,
                       label=f"B_{n} {kind}, no live path")
    ax.plot([10, 20, 20], [9.7, 18.2, 29.6], "kx", ms=8, label="paper (server 10 %, bounds at 20 %)")
    L.label(ax, "Failure ratio (%)", "Path failure ratio (%)", f"mean of {seeds} seeds, bars min..max", legend=7,
            fontsize=9)
    L.save_figure(fig, f"{out}/fig7.png")
    L.log("done")


if __name__ == "__main__":
    main()
