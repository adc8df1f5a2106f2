#!/usr/bin/python3
"""BCube paper Table 1 / Theorem 6: all-to-all ABT of complete BCubes,
n(N-1)/(n-1) with unit links, against dcn-sim with BCubeRouting (one
shortest path) and with BSR (a random path of the parallel set)."""
import simlib as L

CASES = [(2, 1), (3, 1), (4, 1), (8, 1), (2, 3), (3, 2), (4, 2), (8, 2), (4, 3), (5, 3)]


def main():
    out = L.results_dir("sim-bcube-table1")
    rows = []
    for n, k in CASES:
        words = ["bcube", f"n={n}", f"k={k}"]
        N = n ** (k + 1)
        formula = n * (N - 1) / (n - 1)
        route, _, _ = L.run_sim(words, "route")
        bsr, _, _ = L.run_sim(words, "bsr")
        rows.append({"n": n, "k": k, "servers": N, "theorem6_abt": round(formula, 6),
                     "sim_bcuberouting_abt": round(float(route[0]["abt_gbps"]), 6),
                     "sim_bsr_random_abt": round(float(bsr[0]["abt_gbps"]), 6),
                     "tree_abt_paper_formula": n, "fattree_abt_paper_formula": N})
    L.write_csv(f"{out}/table1.csv", rows)
    exact = all(abs(r["theorem6_abt"] - r["sim_bcuberouting_abt"]) < 1e-6 * r["theorem6_abt"] for r in rows)
    L.write_summary(out, "sim-bcube-table1",
                    {"cases": rows, "bcuberouting_equals_theorem6_in_every_case": exact},
                    {"abt_formula": "n(N-1)/(n-1) (Theorem 6, Table 1; unit link capacity)",
                     "source": "Guo et al., BCube, SIGCOMM 2009, Table 1 and Theorem 6"}, [1])
    plt = L.pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.6))
    xs = [r["servers"] for r in rows]
    ax.loglog(xs, [r["theorem6_abt"] for r in rows], "k-", marker="", label="Theorem 6: n(N-1)/(n-1)", lw=0.8)
    ax.loglog(xs, [r["sim_bcuberouting_abt"] for r in rows], "o", mfc="none", label="dcn-sim, BCubeRouting")
    ax.loglog(xs, [r["sim_bsr_random_abt"] for r in rows], "x", label="dcn-sim, BSR (random path of the set)")
    L.label(ax, "servers N", "ABT (link units)")
    L.save_figure(fig, f"{out}/table1.png")
    L.log("done")


if __name__ == "__main__":
    main()
