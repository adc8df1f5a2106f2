#!/usr/bin/python3
"""HCN/BCN paper: network orders and bisection widths (Table 2, whose cells
are lost in the text, and Figs. 7 and 8) of BCN(alpha, n-alpha, 1, 1) with
the best alpha, FiConn(n,2) and HCN(n,2), n = 8..16 (even, as FiConn needs),
32 and 48 (787,968 servers).

Measured on the library's built networks (dcn-topo):
  order      servers of the built network, for every alpha = 2..n-1 (Fig. 7),
             and the alpha that maximises it;
  bisection  cables crossing the cut that puts the first half of the top-level
             units on one side (BCN: the alpha*beta+1 copies BCN_u; FiConn: the
             g_2 copies of FiConn(n,1); HCN: the n copies of HCN(n,1)), counted
             on the exported wiring. This is an upper bound on the bisection
             width (the minimum over balanced cuts), the cut the paper's proofs use.
  path diversity  the size of the library's parallel path set (HCN: Lemma 1;
             BCN: its construction, max-flow across copies) for PAIRS random
             pairs of servers on different switches, checked for pairwise
             disjoint intermediate servers; the minimum over the pairs.
             FiConn has no path set in the library: not measured.
The paper's formulas and quoted numbers are in the paper_* columns only."""
import json
import random
import re
import subprocess
import sys

import simlib as L

NS = [8, 10, 12, 14, 16, 32, 48]
FIG7_NS = [32, 48]
PAIRS = 20
PAPER = {"bcn_best_order": {"32": 155904, "48": 787968}, "bcn_best_alpha": {"32": 21, "48": 32},
         "ficonn_order": {"48": 361200, "16": 5327},
         "order_ratio_bcn_over_ficonn_range_n8_16": [1.4545, 1.849],
         "bcn_order_formula": "alpha^(h-gamma) * alpha^gamma (alpha+beta)(alpha^gamma beta+1) (Eq. 7)",
         "best_alpha_formula": "about 2 gamma n / (2 gamma + 1) = 2n/3 for gamma = 1 (Theorem 8)",
         "bcn_bisection_formula": "alpha^(h-gamma) (alpha^gamma beta + 2) alpha^gamma beta / 4 (Theorem 10, h >= gamma)",
         "ficonn_bisection_formula": "at least N_k / (4 * 2^k) (FiConn paper, quoted)",
         "hcn_order_formula": "n^(h+1)",
         "path_diversity": "BCN alpha-1, HCN(n,2) n-1 (FiConn's cell lost)",
         "text": "HCN(n,2) has fewer servers and a smaller bisection width than FiConn(n,2); BCN is larger than "
                 "FiConn in both for every n",
         "source": "Guo et al., IEEE TC 62(7) 2013, Sec. 5.1-5.3, Theorems 8 and 10, Figs. 7-8, Table 2 (lost)"}

LINK = re.compile(r'"a": "(h[^"]*)".*"b": "(h[^"]*)".*"kind": "server-server"')


def topo_json(words):
    out = subprocess.run(["nice", "-n", "19", L.TOPO] + words, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"fig_hcn_bcn_table2: {' '.join(words)}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def order(words):
    return topo_json(["stats"] + words + ["--bfs-limit", "0"])["servers"]


def top_unit(family, name):
    """The top-level unit of a server name: BCN's copy u (h<u>_<x>), FiConn's
    a_2 (h<a2>_<a1>_<a0>), HCN's x_2 (h<x2><x1><x0>, or h<x2>_<x1>_<x0> when n > 9)."""
    body = name[1:]
    if family == "hcn" and "_" not in body:
        return int(body[0])
    return int(body.split("_")[0])


def half_cut(family, words, units):
    """Server-server cables across {units 1..floor(K/2) | the rest} (BCN and
    HCN units count from 1, FiConn's from 0); the two sides' server counts."""
    first = 1 if family in ("bcn", "hcn") else 0
    lim = first + units // 2
    proc = subprocess.Popen(["nice", "-n", "19", L.TOPO, "export"] + words, stdout=subprocess.PIPE, text=True)
    cut = 0
    side = [0, 0]
    names = []
    for line in proc.stdout:
        if '"ports"' in line and line.lstrip().startswith('{"id"') and '"name": "h' in line:
            name = line.split('"name": "', 1)[1].split('"', 1)[0]
            side[top_unit(family, name) >= lim] += 1
            names.append(name)
            continue
        m = LINK.search(line)
        if m:
            a, b = (top_unit(family, x) >= lim for x in m.groups())
            cut += a != b
    if proc.wait() != 0:
        sys.exit(f"fig_hcn_bcn_table2: export {' '.join(words)} failed")
    return cut, side, names


def path_diversity(words, names, pairs, seed):
    """(min paths, all disjoint?) of the library's path set over `pairs`
    random server pairs on different switches."""
    rng = random.Random(seed)
    sizes, disjoint = [], True
    while len(sizes) < pairs:
        a, b = rng.sample(names, 2)
        ps = topo_json(["paths"] + words + [a, b, "--algo", "pathset"])["paths"]
        if ps[0][1] == ps[0][-2]:  # same switch: one hop, no diversity to measure
            continue
        inner = [set(x for x in p[1:-1] if x.startswith("h")) for p in ps]
        seen = set()
        for i in inner:
            disjoint &= not (i & seen)
            seen |= i
        sizes.append(len(ps))
    return min(sizes), disjoint


def ficonn_g2(n):
    n1 = n * (n // 2 + 1)  # FiConn_1 = (n/2 + 1) FiConn_0s of n servers
    return n1 // 2 // 2 + 1  # g_2 = b_1 / 2 + 1, b_1 = N_1 / 2


def main():
    out = L.results_dir("sim-hcn-bcn-table2")
    rows, sweep = [], []
    for n in NS:
        L.log(f"n = {n}: BCN(alpha, {n}-alpha, 1, 1) for alpha = 2..{n - 1}")
        orders = {}
        for a in range(2, n):
            orders[a] = order(["bcn", f"alpha={a}", f"beta={n - a}", "h=1", "gamma=1"])
            if n in FIG7_NS:
                sweep.append({"n": n, "alpha": a, "servers": orders[a],
                              "paper_formula_servers": a * n * (a * (n - a) + 1)})
        best = max(orders, key=lambda a: orders[a])
        beta = n - best
        bw = ["bcn", f"alpha={best}", f"beta={beta}", "h=1", "gamma=1"]
        fw = ["ficonn", f"n={n}", "k=2"]
        hw = ["hcn", f"n={n}", "h=2"]
        nf, nh = order(fw), order(hw)
        L.log(f"n = {n}: cuts of BCN({best},{beta},1,1), FiConn({n},2), HCN({n},2)")
        cb, sb, nb = half_cut("bcn", bw, best * beta + 1)
        cf, sf, _ = half_cut("ficonn", fw, ficonn_g2(n))
        ch, sh, nh_names = half_cut("hcn", hw, n)
        pairs = PAIRS if n <= 16 else PAIRS // 4
        db, djb = path_diversity(bw, nb, pairs, n)
        dh, djh = path_diversity(hw, nh_names, pairs, n)
        ab = best * beta
        rows.append({
            "n": n, "bcn_best_alpha": best, "bcn_servers": orders[best], "ficonn_servers": nf, "hcn_servers": nh,
            "order_ratio_bcn_ficonn": round(orders[best] / nf, 4),
            "bcn_bisection_cut": cb, "bcn_cut_sides": f"{sb[0]}/{sb[1]}",
            "ficonn_bisection_cut": cf, "ficonn_cut_sides": f"{sf[0]}/{sf[1]}",
            "hcn_bisection_cut": ch, "hcn_cut_sides": f"{sh[0]}/{sh[1]}",
            "bisection_ratio_bcn_ficonn": round(cb / cf, 4),
            "bcn_path_set_min": db, "bcn_path_set_disjoint": djb, "hcn_path_set_min": dh,
            "hcn_path_set_disjoint": djh, "path_set_pairs": pairs,
            "paper_best_alpha_2n_over_3": round(2 * n / 3, 2),
            "paper_formula_bcn_servers": best * n * (ab + 1), "paper_formula_hcn_servers": n ** 3,
            "paper_formula_bcn_bisection": (ab + 2) * ab / 4, "paper_formula_ficonn_bisection_min": nf / 16,
            "paper_formula_hcn_bisection": n * n // 4,
            "paper_path_diversity_bcn": best - 1, "paper_path_diversity_hcn": n - 1})
        L.log(f"n = {n}: {rows[-1]}")
    L.write_csv(f"{out}/table2.csv", rows)
    L.write_csv(f"{out}/fig7.csv", sweep)
    by_n = {str(r["n"]): r for r in rows}
    small = [r for r in rows if r["n"] <= 16]
    measured = {
        "bcn_best_order_n32": by_n["32"]["bcn_servers"], "bcn_best_alpha_n32": by_n["32"]["bcn_best_alpha"],
        "bcn_best_order_n48": by_n["48"]["bcn_servers"], "bcn_best_alpha_n48": by_n["48"]["bcn_best_alpha"],
        "ficonn_order_n48": by_n["48"]["ficonn_servers"], "ficonn_order_n16": by_n["16"]["ficonn_servers"],
        "order_ratio_range_n8_16": [min(r["order_ratio_bcn_ficonn"] for r in small),
                                    max(r["order_ratio_bcn_ficonn"] for r in small)],
        "bcn_cut_equals_theorem10_when_alpha_beta_even": all(
            r["bcn_bisection_cut"] == r["paper_formula_bcn_bisection"] for r in rows
            if r["bcn_best_alpha"] * (r["n"] - r["bcn_best_alpha"]) % 2 == 0),
        "bcn_cut_minus_theorem10_when_alpha_beta_odd": sorted({
            r["bcn_bisection_cut"] - r["paper_formula_bcn_bisection"] for r in rows
            if r["bcn_best_alpha"] * (r["n"] - r["bcn_best_alpha"]) % 2 == 1}),
        "hcn_cut_equals_n2_over_4": all(r["hcn_bisection_cut"] == r["paper_formula_hcn_bisection"] for r in rows),
        "ficonn_cut_at_least_N_over_16": all(r["ficonn_bisection_cut"] >= r["paper_formula_ficonn_bisection_min"]
                                             for r in rows),
        "hcn_order_below_ficonn_for_n": [r["n"] for r in rows if r["hcn_servers"] < r["ficonn_servers"]],
        "hcn_order_above_ficonn_for_n": [r["n"] for r in rows if r["hcn_servers"] > r["ficonn_servers"]],
        "hcn_cut_below_ficonn_cut_for_every_n": all(r["hcn_bisection_cut"] < r["ficonn_bisection_cut"] for r in rows),
        "path_sets_equal_paper_diversity_and_disjoint": all(
            r["bcn_path_set_min"] == r["paper_path_diversity_bcn"] and r["hcn_path_set_min"] ==
            r["paper_path_diversity_hcn"] and r["bcn_path_set_disjoint"] and r["hcn_path_set_disjoint"] for r in rows),
        "bcn_larger_than_ficonn_in_order_and_cut": all(r["order_ratio_bcn_ficonn"] > 1
                                                       and r["bisection_ratio_bcn_ficonn"] > 1 for r in rows),
        "by_n": by_n}
    headline = {"measured": "best BCN n=32: %d (alpha %d), n=48: %d (alpha %d); FiConn(48,2) %d; ratio n=8..16 "
                "%.4f..%.4f; BCN cut = Th.10 (alpha*beta even): %s; BCN > FiConn (order, cut): %s; "
                "HCN(n,2) order above FiConn(n,2) for n = %s"
                % (measured["bcn_best_order_n32"], measured["bcn_best_alpha_n32"], measured["bcn_best_order_n48"],
                   measured["bcn_best_alpha_n48"], measured["ficonn_order_n48"], *measured["order_ratio_range_n8_16"],
                   measured["bcn_cut_equals_theorem10_when_alpha_beta_even"],
                   measured["bcn_larger_than_ficonn_in_order_and_cut"],
                   ",".join(map(str, measured["hcn_order_above_ficonn_for_n"])) or "none"),
                "paper": "155,904 (alpha 21, n=32), 787,968 (alpha 32, n=48); FiConn(48,2) 361,200; ratio 1.4545..1.849"}
    L.write_summary(out, "sim-hcn-bcn-table2", measured, PAPER, [], {"headline": headline,
                    "tool": "dcn-topo (agent/src/cli): built networks of the dcntopo library",
                    "definitions": __doc__.split("\n\n", 1)[1]})
    plt = L.pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    for n in FIG7_NS:
        pts = [s for s in sweep if s["n"] == n]
        ax.plot([s["alpha"] for s in pts], [s["servers"] for s in pts], "o-", ms=3, label=f"n = {n} (measured)")
    ax.plot([21, 32], [155904, 787968], "kx", ms=8, label="paper peaks")
    L.label(ax, "alpha", "servers of BCN(alpha, n-alpha, 1, 1)")
    L.save_figure(fig, f"{out}/fig7.png")
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    ns = [r["n"] for r in small]
    axes[0].plot(ns, [r["order_ratio_bcn_ficonn"] for r in small], "o-", ms=4, label="measured")
    axes[0].plot([8, 16], [1.4545, 1.849], "kx", ms=8, label="paper (ends of the range)")
    axes[0].set_ylabel("order BCN / FiConn(n,2)")
    axes[1].plot(ns, [r["bisection_ratio_bcn_ficonn"] for r in small], "o-", ms=4, label="measured cuts")
    axes[1].plot(ns, [r["paper_formula_bcn_bisection"] / r["paper_formula_ficonn_bisection_min"] for r in small],
                 "k+--", ms=8, label="paper: Th. 10 / (N/16)")
    axes[1].set_ylabel("bisection BCN / FiConn(n,2)")
    for ax in axes:
        ax.set_xlabel("n (switch ports)")
        ax.legend(fontsize=8)
    L.save_figure(fig, f"{out}/fig8.png")
    L.log("done")


if __name__ == "__main__":
    main()
