#!/usr/bin/python3
"""MDCube paper Fig. 7: all-to-all between two containers of the 2-D MDCube
(33x33 BCube_1 n=32), failed servers or switches drawn from the whole MDCube,
0-20 %. Routing: random jump (detour) with each container repairing its own
segment (detour-ft). Flows are sampled; the drop is relative to the
equally sampled no-failure point. Each point is the mean over --seeds
failure and flow-sample draws, with the sd and min..max beside it
(fig7_points.csv; error bars: min..max); fig7.csv gives each seed's
estimate and its 95 % interval."""
import simlib as L

T = 1024
WORDS = ["mdcube", "n=32", "k=1", "m=33x33"]
SAMPLES = 500000
SEEDS = 3  # default of --seeds
PAPER = {"abt_gbps_no_failure": 1584, "abt_gbps_2pct_server_failures": 1543, "drop_2pct_server_failures": 0.026,
         "server_failures_20pct": "about half of the no-failure ABT",
         "switch_failures": "worse than server failures (no numbers in the text)",
         "source": "Wu et al., MDCube, CoNEXT 2009, Sec. 6 Fig. 7"}


def main():
    seeds = L.seeds_arg(SEEDS, __doc__)
    out = L.results_dir("sim-mdcube-fig7")
    rows, points, stats = [], [], {}
    meas = {"ratios": L.RATIOS, "sampled_flows": SAMPLES, "seeds_per_point": seeds}
    for kind in ("server", "switch"):
        r, _, _ = L.run_sim(WORDS, "detour-ft", kind, L.RATIOS, seeds,
                            extra=["--highspeed-gbps", "10", "--pattern", f"first:{2 * T}", "--sample-flows",
                                   str(SAMPLES)])
        for x in r:  # each seed's estimate is already the whole pattern's ABT (docs/simulator.md)
            x["abt_estimate_gbps"], x["abt_ci95_low_gbps"], x["abt_ci95_high_gbps"] = \
                (L.r4(v) for v in L.sampled_abt_ci(x))
        st = stats[kind] = L.stats_by_ratio(r, "abt_estimate_gbps")
        rel = L.stats_by_ratio([dict(x, q=float(x["abt_estimate_gbps"]) / st[0.0]["mean"]) for x in r], "q")
        pfr = L.stats_by_ratio(r, "path_failure_ratio")
        meas[f"abt_gbps_{kind}_failures"] = L.spread(st)["mean"]
        meas[f"abt_gbps_{kind}_failures_spread"] = L.spread(st)
        meas[f"relative_to_no_failure_{kind}"] = L.spread(rel)["mean"]
        meas[f"relative_to_no_failure_{kind}_spread"] = L.spread(rel)
        meas[f"path_failure_ratio_{kind}"] = L.spread(pfr)["mean"]
        points += L.point_rows(st, fail=kind, metric="abt_gbps_sampled_estimate")
        points += L.point_rows(rel, fail=kind, metric="relative_to_no_failure")
        rows += r
    L.write_csv(f"{out}/fig7.csv", rows)
    L.write_csv(f"{out}/fig7_points.csv", points)
    i2, i20 = L.RATIOS.index(0.02), L.RATIOS.index(0.20)
    rs, rw = meas["relative_to_no_failure_server_spread"], meas["relative_to_no_failure_switch_spread"]
    headline = {"measured": "mean (min..max) of %d seeds, %d sampled flows each: %s Gb/s without failure; relative "
                "to it %s / %s at 2 / 20 %% server failures, %s at 20 %% switch failures"
                % (seeds, SAMPLES, L.mmm(meas["abt_gbps_server_failures_spread"], 0), L.mmm(rs, i2, 1, "%.3f"),
                   L.mmm(rs, i20, 1, "%.3f"), L.mmm(rw, i20, 1, "%.3f")),
                "paper": "1584 Gb/s; 1543 (0.974) at 2 % server failures; about half at 20 %"}
    L.write_summary(out, "sim-mdcube-fig7", meas, PAPER, range(1, seeds + 1),
                    {"headline": headline, "definitions": "ABT estimated from sampled flows (docs/simulator.md, Sampling); mean over "
                                    "seeds, sd = sample standard deviation, min/max over seeds; relative = each "
                                    "seed's estimate / mean no-failure estimate"})
    plt = L.pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    L.errorbar(ax, stats["server"], "o-", label="server failure")
    L.errorbar(ax, stats["switch"], "s-", label="switch failure")
    ax.set_title(f"mean of {seeds} seeds ({SAMPLES} sampled flows each), bars min..max", fontsize=9)
    ax.plot([0, 2], [1584, 1543], "kx", ms=8, label="paper (server)")
    ax.set_ylim(0, 1800)
    L.label(ax, "Failure ratio (%)", "ABT (Gb/s)")
    L.save_figure(fig, f"{out}/fig7.png")
    L.log("done")


if __name__ == "__main__":
    main()
