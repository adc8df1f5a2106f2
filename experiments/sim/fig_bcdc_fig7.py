#!/usr/bin/python3
"""BCDC paper Fig. 7: path failure ratio under random server or switch
failures, 0-20 %, in B_8 (the figure) and B_9 (the text). The paper leaves
the metric undefined, so two are measured over all live ordered pairs:
  - oblivious: BRouting's fault-free path crosses a failure (no repair);
  - informed: no live path exists at all (the source knows the failures,
    as BFRouting assumes; beyond its fault bound BFRouting is a BFS)."""
import simlib as L

SEEDS = 3
PAPER = {"path_failure_ratio_10pct_server_failures_B8": 0.097, "path_failure_ratio_20pct_server_failures_max": 0.182,
         "path_failure_ratio_20pct_switch_failures_max": 0.296, "below_1pct_failures": "about 0",
         "source": "Wang et al., BCDC, JCST 2018, Sec. 6 Fig. 7 (text)"}


def main():
    out = L.results_dir("sim-bcdc-fig7")
    rows, meas = [], {"ratios": L.RATIOS}
    for n in (8, 9):
        for kind in ("server", "switch"):
            for metric, routing in (("oblivious", "brouting"), ("informed", "shortest")):
                r, _, _ = L.run_sim(["bcdc", f"n={n}"], routing, kind, L.RATIOS, SEEDS)
                for x in r:
                    x["metric"] = metric
                rows += r
                meas[f"B{n}_{kind}_{metric}"] = [L.r4(v) for v in L.mean_by_ratio(r, "path_failure_ratio").values()]
    L.write_csv(f"{out}/fig7.csv", rows)
    L.write_summary(out, "sim-bcdc-fig7", meas, PAPER, range(1, SEEDS + 1),
                    {"definitions": "path failure ratio = live ordered pairs without a path / live ordered pairs"})
    plt = L.pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    xs = [100 * r for r in L.RATIOS]
    for n, col in ((8, "C0"), (9, "C1")):
        for kind, mk in (("server", "o"), ("switch", "s")):
            ax.plot(xs, [100 * v for v in meas[f"B{n}_{kind}_oblivious"]], mk + "-", color=col, ms=4,
                    label=f"B_{n} {kind}, BRouting without repair")
            ax.plot(xs, [100 * v for v in meas[f"B{n}_{kind}_informed"]], mk + "--", color=col, ms=4,
                    label=f"B_{n} {kind}, no live path")
    ax.plot([10, 20, 20], [9.7, 18.2, 29.6], "kx", ms=8, label="paper (server 10 %, bounds at 20 %)")
    ax.set_xlabel("Failure ratio (%)")
    ax.set_ylabel("Path failure ratio (%)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(f"{out}/fig7.png", dpi=120)
    L.log("done")


if __name__ == "__main__":
    main()
