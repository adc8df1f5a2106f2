#!/usr/bin/python3
"""HCN/BCN paper Fig. 9 (path lengths in server hops; a hop through a switch
or over a direct cable counts 1):
  (a) all-to-all mean path length against n = 8..16, the best alpha:
      FiConn(n,2) shortest, BCN(alpha, n-alpha, 1, 1) shortest and BCN routing
      (FdimRouting/BdimRouting); FiConn's TOR beside them. Every ordered pair.
  (b) mean routing path length of BCN(6,10,1,1) (5,856 servers) against
      FiConn(16,2) under random server failures. BCN routes with the paper's
      local and remote reroute (the library's "reroute": a BFS from the failure
      point where the rules give no path). FiConn's fault-tolerant routing is
      not in the library (nor in the seeds): FiConn is shown on shortest live
      paths, a lower bound for any routing of it, and its TOR without repair
      gives the share of pairs whose fault-free path is broken.
      The paper states neither the ratios nor the trials: 0-20 % here, the
      mean of --seeds seeds per point with the sd and min..max beside it
      (fig9b_points.csv; error bars: min..max); the two routings on SAMPLE
      flows drawn uniformly among all ordered pairs per point, the shortest
      live paths over every pair."""
import simlib as L

NS = [8, 10, 12, 14, 16]
BEST_ALPHA = {8: 5, 10: 7, 12: 8, 14: 9, 16: 11}  # maximise the order (sim-hcn-bcn-table2)
SEEDS = 3  # default of --seeds
SAMPLE = 500000
BCN9B = ["bcn", "alpha=6", "beta=10", "h=1", "gamma=1"]
FICONN9B = ["ficonn", "n=16", "k=2"]
PAPER = {"order_ratio_bcn_over_ficonn_range": [1.4545, 1.849],
         "fig9a": "BCN routing a little longer than BCN shortest, which is a little longer than FiConn shortest",
         "fig9b": "both rise with the server failure ratio; BCN's routing path is 'a lot shorter' than FiConn's",
         "fig9b_servers": {"bcn": 5856, "ficonn": 5327},
         "source": "Guo et al., IEEE TC 62(7) 2013, Sec. 5.4, Fig. 9 (no numbers in the text)"}


def main():
    seeds = L.seeds_arg(SEEDS, __doc__)
    out = L.results_dir("sim-hcn-bcn-fig9")
    rows_a, meas_a = [], {}
    for n in NS:
        a = BEST_ALPHA[n]
        bw = ["bcn", f"alpha={a}", f"beta={n - a}", "h=1", "gamma=1"]
        fw = ["ficonn", f"n={n}", "k=2"]
        res = {}
        for key, words, routing in (("bcn_shortest", bw, "shortest"), ("bcn_routing", bw, "route"),
                                    ("ficonn_shortest", fw, "shortest"), ("ficonn_tor", fw, "route")):
            r, _, _ = L.run_sim(words, routing)
            res[key] = float(r[0]["mean_hops"])
            res[key.split("_")[0] + "_servers"] = int(round((1 + (1 + 4 * int(r[0]["flows_pattern"])) ** 0.5) / 2))
        row = {"n": n, "alpha": a, **{k: (L.r4(v) if isinstance(v, float) else v) for k, v in res.items()}}
        row["order_ratio"] = round(row["bcn_servers"] / row["ficonn_servers"], 4)
        rows_a.append(row)
        meas_a[str(n)] = row
    L.write_csv(f"{out}/fig9a.csv", rows_a)
    order_ok = [r["n"] for r in rows_a if r["bcn_routing"] > r["bcn_shortest"] > r["ficonn_shortest"]]

    rows_b, meas_b, points_b, stats_b = [], {}, [], {}
    for key, words, routing in (("bcn_reroute", BCN9B, "reroute"), ("bcn_shortest_live", BCN9B, "shortest"),
                                ("ficonn_shortest_live", FICONN9B, "shortest"), ("ficonn_tor", FICONN9B, "route")):
        # Shortest paths come from one BFS tree per source, so every pair is
        # cheaper than a sample of per-flow BFS: only the routings are sampled.
        extra = [] if routing == "shortest" else ["--sample-flows", str(SAMPLE)]
        r, _, _ = L.run_sim(words, routing, "server", L.RATIOS, seeds, extra=extra)
        for x in r:
            x["series"] = key
        rows_b += r
        hops, pfr = L.stats_by_ratio(r, "mean_hops"), L.stats_by_ratio(r, "path_failure_ratio")
        stats_b[key] = hops
        meas_b[key] = {"mean_hops": L.spread(hops)["mean"], "path_failure_ratio": L.spread(pfr)["mean"],
                       "mean_hops_spread": L.spread(hops), "path_failure_ratio_spread": L.spread(pfr)}
        points_b += L.point_rows(hops, series=key, quantity="mean_hops")
        points_b += L.point_rows(pfr, series=key, quantity="path_failure_ratio")
    L.write_csv(f"{out}/fig9b.csv", rows_b)
    L.write_csv(f"{out}/fig9b_points.csv", points_b)
    i20 = L.RATIOS.index(0.20)
    measured = {
        "fig9a_order_routing_gt_shortest_gt_ficonn_for_n": order_ok,
        "fig9a_order_ratio_range": [min(r["order_ratio"] for r in rows_a), max(r["order_ratio"] for r in rows_a)],
        "fig9b_bcn_reroute_mean_hops_0_20pct": [meas_b["bcn_reroute"]["mean_hops"][0],
                                                meas_b["bcn_reroute"]["mean_hops"][i20]],
        "fig9b_ficonn_shortest_live_mean_hops_0_20pct": [meas_b["ficonn_shortest_live"]["mean_hops"][0],
                                                         meas_b["ficonn_shortest_live"]["mean_hops"][i20]],
        "fig9b_ficonn_tor_path_failure_20pct": meas_b["ficonn_tor"]["path_failure_ratio"][i20],
        "fig9a": meas_a, "fig9b_ratios": L.RATIOS, "fig9b_seeds_per_point": seeds, "fig9b": meas_b}
    headline = {"measured": "9a: routing > BCN shortest > FiConn shortest for n = %s; 9b at 0 / 20 %% server failures: "
                "BCN reroute %.3f / %.3f hops, FiConn shortest live %.3f / %.3f, FiConn TOR unrepaired fails %.1f %%"
                % (",".join(map(str, order_ok)) or "none", *measured["fig9b_bcn_reroute_mean_hops_0_20pct"],
                   *measured["fig9b_ficonn_shortest_live_mean_hops_0_20pct"],
                   100 * measured["fig9b_ficonn_tor_path_failure_20pct"]),
                "paper": "9a: BCN routing > BCN shortest > FiConn shortest (a little); 9b: BCN 'a lot shorter' than FiConn"}
    L.write_summary(out, "sim-hcn-bcn-fig9", measured, PAPER, range(1, seeds + 1),
                    {"headline": headline, "sampled_flows_fig9b": SAMPLE,
                     "definitions": __doc__.split("\n", 1)[1]})
    plt = L.pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.8))
    ax = axes[0]
    for key, mk in (("bcn_routing", "s-"), ("bcn_shortest", "o-"), ("ficonn_shortest", "^-"), ("ficonn_tor", "v:")):
        ax.plot(NS, [r[key] for r in rows_a], mk, ms=4, label=key.replace("_", " "))
    L.label(ax, "n (switch ports), best alpha", "mean path length (server hops)", "(a) all-to-all, no failure")
    ax = axes[1]
    for key, mk in (("bcn_reroute", "s-"), ("bcn_shortest_live", "o--"), ("ficonn_shortest_live", "^--")):
        L.errorbar(ax, stats_b[key], mk, label=key.replace("_", " "))
    L.label(ax, "server failure ratio (%)", "mean routing path length (server hops)",
            f"(b) BCN(6,10,1,1) vs FiConn(16,2)\nmean of {seeds} seeds, bars min..max", fontsize=9)
    L.save_figure(fig, f"{out}/fig9.png")
    L.log("done")


if __name__ == "__main__":
    main()
