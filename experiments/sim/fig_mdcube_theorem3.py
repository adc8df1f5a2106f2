#!/usr/bin/python3
"""MDCube Theorem 3 against dcn-sim: all-to-all over the whole 2-D MDCube
(33x33 BCube_1 n=32 containers, 1,115,136 servers), MDCubeRouting and detour
routing, 2 M sampled flows. Every container and dimension is alike under a
uniform all-to-all, so each link class (server port 0, port 1, fibres) has
one expected load; the class means of the sample estimate it without the
upward bias of a sampled maximum."""
import simlib as L

WORDS = ["mdcube", "n=32", "k=1", "m=33x33"]
SAMPLES = 2000000
N, D, K, T = 33 * 33 * 1024, 1, 1, 1024
PAPER = {"theorem3_abt": "N / ((2k+1)/(k+1) + D(k^2+k+1)/(k+1)^2); k=1: N/(1.5+0.75D) = 4N/9 in 2-D",
         "theorem3_normal_link_flows": "(2k+1+D(k^2/(k+1)+1)) (N-1)/(k+1)",
         "theorem3_fibre_flows_dim_i": "t N / m_i",
         "source": "Wu et al., MDCube, CoNEXT 2009, Theorem 3 (notes: reconstructed)"}


def main():
    out = L.results_dir("sim-mdcube-theorem3")
    theorem3 = N / ((2 * K + 1) / (K + 1) + D * (K * K + K + 1) / (K + 1) ** 2)
    normal = (2 * K + 1 + D * (K * K / (K + 1) + 1)) * (N - 1) / (K + 1)
    fibre = T * N / 33
    meas, rows = {"theorem3_abt_gbps": L.r4(theorem3), "theorem3_per_server": L.r4(theorem3 / N),
                  "theorem3_normal_link_flows": L.r4(normal), "theorem3_fibre_flows": L.r4(fibre)}, []
    flows = N * (N - 1)
    for routing, cap, tag in (("route", 10, "10g"), ("detour", 10, "10g"), ("route", 1000, "unbounded")):
        r, lv, _ = L.run_sim(WORDS, routing, extra=["--highspeed-gbps", str(cap), "--sample-flows", str(SAMPLES)],
                             levels=True)
        scale = flows / float(r[0]["flows_pattern"])
        share = min((cap if x["level"] == "-1" else 1.0) / float(x["mean_flows"]) for x in lv)
        abt = float(r[0]["flows_routed"]) * share
        meas[f"{routing}_fibres_{tag}"] = {
            "abt_gbps_by_link_class_means": L.r4(abt), "per_server": L.r4(abt / N),
            "mean_flows_per_link_scaled": {x["level"]: L.r4(float(x["mean_flows"]) * scale) for x in lv},
            "mean_links": L.r4(r[0]["mean_links"])}
        for x in lv:
            x.update({"routing": routing, "fibre_gbps": cap})
        rows += lv
    L.write_csv(f"{out}/link_classes.csv", rows)
    L.write_summary(out, "sim-mdcube-theorem3", meas, PAPER, [1],
                    {"note": "levels: 0, 1 = server ports (both directions), -1 = fibres; sampled flows scaled "
                             "to the full all-to-all for the per-link means"})
    plt = L.pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.4))
    names = ["Theorem 3", "MDCubeRouting, 10G fibres", "detour, 10G fibres"]
    vals = [theorem3 / N, meas["route_fibres_10g"]["per_server"], meas["detour_fibres_10g"]["per_server"]]
    ax.bar(names, vals, color=["grey", "C0", "C1"])
    ax.set_ylabel("ABT per server (Gb/s)")
    ax.tick_params(axis="x", labelsize=8)
    L.save_figure(fig, f"{out}/theorem3.png")
    L.log("done")


if __name__ == "__main__":
    main()
