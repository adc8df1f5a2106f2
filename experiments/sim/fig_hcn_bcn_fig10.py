#!/usr/bin/python3
"""HCN/BCN paper Fig. 10: path length distributions over all ordered pairs,
(a) BCN(6,10,1,1) routing against its shortest paths, (b) shortest paths of
BCN(6,10,1,1) (5,856 servers) against FiConn(16,2). Lengths in server hops
(a hop through a switch or over a direct cable counts 1)."""
import simlib as L

NETS = {"bcn": ["bcn", "alpha=6", "beta=10", "h=1", "gamma=1"], "ficonn": ["ficonn", "n=16", "k=2"]}
PAPER = {"share_of_shortest_paths_of_length_7": {"ficonn": 0.6, "bcn": 0.4}, "diameter": {"ficonn": 7, "bcn": 7},
         "bcn_routing": "misses some shortest paths (a little longer on average)",
         "source": "Guo et al., IEEE TC 62(7) 2013, Fig. 10 (text: 'about 60%' and 'about 40%')"}


def dist(hist):
    total = sum(int(h["flows_by_server_hops"]) for h in hist)
    return {int(h["length"]): int(h["flows_by_server_hops"]) / total for h in hist
            if int(h["flows_by_server_hops"])}


def main():
    out = L.results_dir("sim-hcn-bcn-fig10")
    meas, rows = {}, []
    for name, words, routing in (("bcn_shortest", NETS["bcn"], "shortest"), ("bcn_routing", NETS["bcn"], "route"),
                                 ("ficonn_shortest", NETS["ficonn"], "shortest")):
        r, _, h = L.run_sim(words, routing, hist=True)
        d = dist(h)
        meas[name] = {"servers_flows": int(r[0]["flows_routed"]), "mean_server_hops": L.r4(r[0]["mean_hops"]),
                      "diameter_server_hops": max(d), "distribution": {str(k): L.r4(v) for k, v in d.items()}}
        for k, v in d.items():
            rows.append({"series": name, "server_hops": k, "share": round(v, 6)})
    L.write_csv(f"{out}/fig10.csv", rows)
    meas["share_of_shortest_paths_of_length_7"] = {"bcn": meas["bcn_shortest"]["distribution"].get("7"),
                                                    "ficonn": meas["ficonn_shortest"]["distribution"].get("7")}
    L.write_summary(out, "sim-hcn-bcn-fig10", meas, PAPER, [1])
    plt = L.pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, series, title in ((axes[0], ("bcn_routing", "bcn_shortest"), "(a) BCN(6,10,1,1)"),
                              (axes[1], ("bcn_shortest", "ficonn_shortest"), "(b) shortest paths")):
        for i, s in enumerate(series):
            d = meas[s]["distribution"]
            xs = [int(k) + (i - 0.5) * 0.38 for k in d]
            ax.bar(xs, [100 * v for v in d.values()], width=0.38, label=s.replace("_", " "))
        ax.set_xlabel("path length (server hops)")
        ax.set_ylabel("share of server pairs (%)")
        ax.set_title(title)
        ax.legend(fontsize=8)
    L.save_figure(fig, f"{out}/fig10.png")
    L.log("done")


if __name__ == "__main__":
    main()
