#!/usr/bin/python3
"""MDCube paper Fig. 6: all-to-all ABT against the number of containers in
the 2-D MDCube of BCube_1 (n=32) containers, 33x33 = 1,115,136 servers, 1 Gb/s
server links, 10 Gb/s fibres, detour routing (random jump). Two containers:
every flow; more containers: sampled flows with a 95 % interval; the whole
MDCube beside Theorem 3, two containers beside Theorem 5."""
import simlib as L

T = 1024                      # servers per container
WORDS = ["mdcube", "n=32", "k=1", "m=33x33"]
EXTRA = ["--highspeed-gbps", "10"]
CONTAINERS = [2, 3, 4, 6, 10, 16, 33]
SAMPLES = 2000000
PAPER = {"abt_gbps_2_containers": 1584, "abt_per_server_2_containers": 0.77, "analysis_per_server_2_containers": 0.8,
         "abt_per_server_10_containers": 0.68,
         "theorem3_abt": "N / ((2k+1)/(k+1) + D(k^2+k+1)/(k+1)^2) = N/(1.5+0.75D) for k=1",
         "theorem5_abt_two_containers": "2t(2k+2)/(3k+2) = 0.8 per server for k=1",
         "source": "Wu et al., MDCube, CoNEXT 2009, Sec. 6 Fig. 6, Theorems 3 and 5"}


def main():
    out = L.results_dir("sim-mdcube-fig6")
    rows, pts = [], []
    full, _, _ = L.run_sim(WORDS, "detour", extra=EXTRA + ["--pattern", f"first:{2 * T}"])
    full[0]["containers"], full[0]["sampled"] = 2, 0
    rows.append(full[0])
    pts.append({"containers": 2, "servers": 2 * T, "flows": int(full[0]["flows_routed"]), "sampled": False,
                "abt_gbps": L.r4(full[0]["abt_gbps"]), "per_server": L.r4(float(full[0]["abt_gbps"]) / (2 * T))})
    for c in CONTAINERS + [33 * 33]:
        whole = c == 33 * 33
        r, lv, _ = L.run_sim(WORDS, "detour", extra=EXTRA + ["--pattern", f"first:{c * T}", "--sample-flows",
                                                              str(SAMPLES)], levels=whole)
        r[0]["containers"], r[0]["sampled"] = c, SAMPLES
        rows.append(r[0])
        # F_s x cap / c_s estimates the whole pattern's ABT (the counts scale with the flows).
        est, lo, hi = L.sampled_abt_ci(r[0])
        p = {"containers": c, "servers": c * T, "sampled": True, "sampled_flows": SAMPLES,
             "abt_gbps": L.r4(est), "abt_gbps_ci95": [L.r4(lo), L.r4(hi)], "per_server": L.r4(est / (c * T)),
             "bottleneck_link_sampled_flows": int(r[0]["bottleneck_link_flows"])}
        if whole:
            # Every container and every dimension is alike under a uniform all-to-all, so the
            # links of one level (server port 0, 1; -1: fibres) carry the same load in
            # expectation: the class means are unbiased where the sampled maximum is not.
            share = min((10.0 if x["level"] == "-1" else 1.0) / float(x["mean_flows"]) for x in lv)
            p["abt_gbps_by_link_class_means"] = L.r4(float(r[0]["flows_routed"]) * share)
            p["per_server_by_link_class_means"] = L.r4(float(r[0]["flows_routed"]) * share / (c * T))
            p["link_class_mean_sampled_flows"] = {x["level"]: L.r4(x["mean_flows"]) for x in lv}
            L.write_csv(f"{out}/whole_mdcube_link_classes.csv", lv)
        pts.append(p)
    L.write_csv(f"{out}/fig6.csv", rows, ["containers", "sampled"] + [k for k in rows[0] if k not in
                                                                       ("containers", "sampled")])
    N, D, k, n = 33 * 33 * T, 1, 1, 32
    theorem3 = N / ((2 * k + 1) / (k + 1) + D * (k * k + k + 1) / (k + 1) ** 2)
    theorem5 = 2 * T * (2 * k + 2) / (3 * k + 2)
    measured = {"points": pts, "abt_gbps_2_containers": pts[0]["abt_gbps"],
                "abt_per_server_2_containers": pts[0]["per_server"],
                "abt_per_server_10_containers_sampled": next(p["per_server"] for p in pts if p["containers"] == 10),
                "whole_mdcube_per_server_by_link_class_means": pts[-1]["per_server_by_link_class_means"],
                "theorem3_abt_gbps_whole_mdcube": L.r4(theorem3), "theorem3_per_server": L.r4(theorem3 / N),
                "theorem5_abt_gbps_two_containers": L.r4(theorem5), "theorem5_per_server": L.r4(theorem5 / (2 * T)),
                "routing": "detour (random jump) from the library; 1 Gb/s server links, 10 Gb/s fibres"}
    L.write_summary(out, "sim-mdcube-fig6", measured, PAPER, [1])
    plt = L.pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    sp = [p for p in pts[1:] if p["containers"] <= 33]
    ax.errorbar([p["containers"] for p in sp], [p["per_server"] for p in sp],
                yerr=[[p["per_server"] - p["abt_gbps_ci95"][0] / p["servers"] for p in sp],
                      [p["abt_gbps_ci95"][1] / p["servers"] - p["per_server"] for p in sp]],
                fmt="o-", ms=4, capsize=2, label="dcn-sim, sampled flows (95 % CI)")
    ax.plot([2], [pts[0]["per_server"]], "ks", label="dcn-sim, every flow")
    ax.plot([2, 10], [0.77, 0.68], "rx", ms=8, label="paper")
    ax.axhline(1.0, color="grey", lw=0.8, ls="--", label="super-crossbar bound")
    ax.set_ylim(0, 1.1)
    L.label(ax, "number of containers", "ABT per server (Gb/s)")
    L.save_figure(fig, f"{out}/fig6.png")
    L.log("done")


if __name__ == "__main__":
    main()
