#!/usr/bin/python3
"""BCDC paper Table 2, the BCDC row: the analytic columns (server degree,
connectivity, diameter, bisection width, ABT) beside values measured on the
library's B_n, n = 3..10.

Measured, per column:
  degree        server ports in use, from the built wiring (dcn-topo export);
  connectivity  vertex connectivity of the logical graph B_n (servers, joined
                when they share a switch: the library's server graph), from
                dcn-topo connectivity: Esfahanian-Hakimi's pair selection,
                each pair a unit-capacity max-flow, in the C library;
  diameter      all-pairs BFS (dcn-topo stats), in B_n hops;
  BiW           edges of B_n crossing the proof's balanced cut {B^0 + W1 | B^1 + W0}
                (an upper bound on the bisection width), counted on the built
                wiring; for n = 3 also the exact minimum over all balanced cuts;
  ABT           dcn-sim all-to-all at 1 Gb/s per server link, shortest paths and
                BRouting: routed flows x the bottleneck flow's rate; and 2N/L
                (server ports / mean hops, the bound with equal link loads).
The other server-centric rows of Table 2 (BCube, DCell, FiConn) are measured
the same way on one instance each of a few hundred servers (BCube n=4 k=3,
DCell n=4 k=2, FiConn n=8 k=2, beside B_7), each routed by its own
algorithm; their bisection width is not measured (the rows count it in
different units: cables, or logical edges for BCDC)."""
import itertools
import json
import math
import subprocess
import sys

import simlib as L

NS = range(3, 11)
PAPER = {"degree": "2", "connectivity": "2n-2", "diameter": "ceil(log2(N/n)/2)+1",
         "bisection_width": "(n-1)N/n", "abt": "> 4N/n",
         "theorem2_diameter": "ceil((n+1)/2)+1", "theorem3_bisection_width": "(n-1)2^(n-1)",
         "theorem4_abt": "> 2^(n+1)",
         "source": "Wang et al., BCDC, JCST 33(2) 2018, Table 2 (BCDC row) and Theorems 1-4"}


def paper_row(n):
    N = n << (n - 1)
    return {"degree": 2, "connectivity": 2 * n - 2, "diameter": math.ceil(math.log2(N / n) / 2) + 1,
            "theorem2_diameter": math.ceil((n + 1) / 2) + 1, "bisection_width": (n - 1) * N // n,
            "abt_lower_bound": 4 * N // n}


def topo(*words):
    cmd = ["nice", "-n", "19", L.TOPO] + list(words)
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"fig_bcdc_table2: {' '.join(words)}: {out.stderr.strip()}")
    return json.loads(out.stdout)


OTHERS = [("BCube", ["bcube", "n=4", "k=3"], ["route", "bsr"]), ("DCell", ["dcell", "n=4", "k=2"], ["dfr"]),
          ("FiConn", ["ficonn", "n=8", "k=2"], ["route"]), ("BCDC", ["bcdc", "n=7"], ["brouting"])]


def paper_other(name, N, n, k):
    """Table 2's cells for one structure (numbers where the cell is a formula
    of N, n, k; text where it is a bound with an unknown term)."""
    lg = math.log(N, n)
    if name == "BCube":
        return {"degree": k + 1, "connectivity": (k + 1) * (n - 1), "diameter": k + 1, "bisection_width": N / 2,
                "abt": n * (N - 1) / (n - 1)}
    if name == "DCell":
        return {"degree": k + 1, "connectivity": n + k + 1, "diameter": f"< {2 * lg - 1:.2f}",
                "bisection_width": round(N / (4 * lg), 2), "abt": f"N/2^k' with k' < k: {N // 2 ** (k - 1)} or more"}
    if name == "FiConn":
        return {"degree": 2 - 1 / 2 ** k, "connectivity": n - 1,
                "diameter": f"<= {4 * math.log(N, n / 4) - 1:.2f}", "bisection_width": f">= {N / 2 ** (k + 2):g}",
                "abt": f"> {N / (2 * 3 ** k - 1):.2f}"}
    row = paper_row(n)
    return {"degree": 2, "connectivity": row["connectivity"], "diameter": row["diameter"],
            "bisection_width": row["bisection_width"], "abt": f"> {row['abt_lower_bound']}"}


def generic_logical_graph(words):
    """Servers of any built network, joined when they share a switch or a cable;
    (adjacency, mean server ports in use)."""
    ex = topo("export", *words)
    sid = {x["name"]: i for i, x in enumerate(ex["servers"])}
    groups, adj, ports = {}, [set() for _ in sid], [0] * len(sid)
    for ln in ex["links"]:
        a, b = ln["a"], ln["b"]
        for x in (a, b):
            if x in sid:
                ports[sid[x]] += 1
        if a in sid and b in sid:
            adj[sid[a]].add(sid[b])
            adj[sid[b]].add(sid[a])
        elif a in sid or b in sid:
            srv, sw = (a, b) if a in sid else (b, a)
            groups.setdefault(sw, []).append(sid[srv])
    for members in groups.values():
        for x in members:
            adj[x].update(y for y in members if y != x)
    return [sorted(a) for a in adj], sum(ports) / len(ports)


def other_rows():
    rows = []
    for name, words, routings in OTHERS:
        params = {w.split("=")[0]: int(w.split("=")[1]) for w in words[1:]}
        n, k = params["n"], params.get("k", 0)
        L.log(f"Table 2 row {name}: {' '.join(words)}")
        adj, deg = generic_logical_graph(words)
        st = topo("stats", *words, "--bfs-limit", "100000")
        N = st["servers"]
        row = {"structure": name, "instance": " ".join(words), "servers": N, "degree_mean": round(deg, 4),
               "logical_degree_min": min(len(a) for a in adj), "connectivity": connectivity(words, adj),
               "diameter_server_hops": st["bfs"]["server_hops"]["diameter"]}
        for routing in routings:
            r, _, _ = L.run_sim(words, routing)
            row[f"abt_gbps_{routing}"] = round(float(r[0]["abt_gbps"]), 2)
        p = paper_other(name, N, n, k)
        row.update({f"paper_{key}": v for key, v in p.items()})
        rows.append(row)
        L.log(f"Table 2 row {name}: {row}")
    return rows


def logical_graph(n):
    """Servers of the built B_n, their switches, and the logical adjacency."""
    ex = topo("export", "bcdc", f"n={n}")
    sid = {s["name"]: i for i, s in enumerate(ex["servers"])}
    sw_servers, server_sw, ports = {}, [[] for _ in sid], [0] * len(sid)
    for ln in ex["links"]:
        a, b = ln["a"], ln["b"]
        if a in sid and b not in sid:
            server_sw[sid[a]].append(int(b[1:]))
            sw_servers.setdefault(b, []).append(sid[a])
            ports[sid[a]] += 1
        elif b in sid and a not in sid:
            server_sw[sid[b]].append(int(a[1:]))
            sw_servers.setdefault(a, []).append(sid[b])
            ports[sid[b]] += 1
        else:
            sys.exit("fig_bcdc_table2: BCDC has only server-switch cables")
    adj = [set() for _ in sid]
    for members in sw_servers.values():
        for x in members:
            adj[x].update(y for y in members if y != x)
    return [sorted(a) for a in adj], server_sw, ports


def connectivity(words, adj):
    """Vertex connectivity of the built network's server graph, from
    `dcn-topo connectivity`; exits unless that graph is adj, the servers
    joined here from the export (same servers, edges and least degree)."""
    c = topo("connectivity", *words)
    got = (c["servers"], c["edges"], c["degree_min"])
    want = (len(adj), sum(map(len, adj)) // 2, min(map(len, adj)))
    if got != want:
        sys.exit(f"fig_bcdc_table2: {' '.join(words)}: dcn-topo's server graph has (servers, edges, least degree) "
                 f"{got}, the export's logical graph {want}")
    return c["connectivity"]


def proof_cut(n, adj, server_sw):
    """Edges of B_n across {B^0 + W1 | B^1 + W0}: B^0 / B^1 = servers whose two
    switches both have top bit 0 / 1, W0 and W1 the two halves of S_n (the
    dimension n-1 servers) by their lower switch's id."""
    top = 1 << (n - 1)
    side = []
    sn = sorted(i for i, sw in enumerate(server_sw) if (min(sw) < top) != (max(sw) < top))
    w1 = set(sn[: len(sn) // 2])
    for i, sw in enumerate(server_sw):
        if max(sw) < top:
            side.append(0)
        elif min(sw) >= top:
            side.append(1)
        else:
            side.append(0 if i in w1 else 1)
    cut = sum(1 for x in range(len(adj)) for y in adj[x] if x < y and side[x] != side[y])
    return cut, side.count(0), side.count(1)


def exact_bisection(adj):
    """Minimum crossing edges over every balanced cut (small graphs only)."""
    nv = len(adj)
    best = None
    for half in itertools.combinations(range(1, nv), nv // 2 - 1):
        a = set(half) | {0}
        c = sum(1 for x in a for y in adj[x] if y not in a)
        best = c if best is None else min(best, c)
    return best


def main():
    out = L.results_dir("sim-bcdc-table2")
    rows, meas = [], {}
    for n in NS:
        N = n << (n - 1)
        adj, server_sw, ports = logical_graph(n)
        assert len(adj) == N
        st = topo("stats", "bcdc", f"n={n}", "--bfs-limit", "100000")
        diam = st["bfs"]["server_hops"]["diameter"]
        mean_hops = st["bfs"]["server_hops"]["mean"]
        L.log(f"B_{n}: vertex connectivity (dcn-topo connectivity)")
        conn = connectivity(["bcdc", f"n={n}"], adj)
        cut, a, b = proof_cut(n, adj, server_sw)
        exact = exact_bisection(adj) if N <= 12 else None
        abt = {}
        for routing in ("shortest", "brouting"):
            r, _, _ = L.run_sim(["bcdc", f"n={n}"], routing)
            abt[routing] = float(r[0]["abt_gbps"])
        p = paper_row(n)
        row = {"n": n, "servers": N,
               "degree_min": min(ports), "degree_max": max(ports), "paper_degree": p["degree"],
               "logical_degree": len(adj[0]), "connectivity": conn, "connectivity_method": "dcn-topo",
               "paper_connectivity": p["connectivity"],
               "diameter": diam, "paper_diameter_table2": p["diameter"],
               "paper_diameter_theorem2": p["theorem2_diameter"],
               "bisection_proof_cut": cut, "bisection_cut_sides": f"{a}/{b}", "bisection_exact": exact,
               "paper_bisection_width": p["bisection_width"],
               "abt_gbps_shortest": round(abt["shortest"], 2), "abt_gbps_brouting": round(abt["brouting"], 2),
               "abt_gbps_2N_over_mean_hops": round(2 * N / mean_hops, 2),
               "paper_abt_lower_bound": p["abt_lower_bound"]}
        rows.append(row)
        meas[str(n)] = {k: v for k, v in row.items() if not k.startswith("paper_") and k != "n"}
        L.log(f"B_{n}: {meas[str(n)]}")
    L.write_csv(f"{out}/table2.csv", rows)
    others = other_rows()
    fields = []
    for r in others:
        fields += [k for k in r if k not in fields]
    L.write_csv(f"{out}/table2_structures.csv", others, fields)
    checks = {
        "degree_equals_2": all(r["degree_min"] == r["degree_max"] == 2 for r in rows),
        "connectivity_equals_2n_minus_2": all(r["connectivity"] == r["paper_connectivity"] for r in rows),
        "connectivity_measured_for_n": [r["n"] for r in rows],
        "diameter_equals_table2_entry": [r["n"] for r in rows if r["diameter"] == r["paper_diameter_table2"]],
        "diameter_equals_theorem2": all(r["diameter"] == r["paper_diameter_theorem2"] for r in rows),
        "proof_cut_equals_bisection_entry": all(r["bisection_proof_cut"] == r["paper_bisection_width"]
                                                for r in rows),
        "exact_bisection_n3": rows[0]["bisection_exact"],
        "abt_brouting_above_bound_for_n": [r["n"] for r in rows
                                           if r["abt_gbps_brouting"] > r["paper_abt_lower_bound"]],
        "abt_2N_over_L_above_bound_for_n": [r["n"] for r in rows
                                            if r["abt_gbps_2N_over_mean_hops"] > r["paper_abt_lower_bound"]],
    }
    measured = dict(checks)
    measured["by_n"] = meas
    measured["structures"] = {r["structure"]: {k: v for k, v in r.items() if not k.startswith("paper_")}
                              for r in others}
    headline = {"measured": "degree 2: %s; kappa = 2n-2 (n=%s): %s; diameter = Thm 2: %s, = Table 2 entry for n in %s; "
                "proof cut = (n-1)N/n: %s; BRouting ABT > 4N/n for n in %s"
                % (checks["degree_equals_2"], ",".join(map(str, checks["connectivity_measured_for_n"])),
                   checks["connectivity_equals_2n_minus_2"], checks["diameter_equals_theorem2"],
                   checks["diameter_equals_table2_entry"] or "none", checks["proof_cut_equals_bisection_entry"],
                   checks["abt_brouting_above_bound_for_n"]),
                "paper": "degree 2, connectivity 2n-2, diameter ceil(log2(N/n)/2)+1, BiW (n-1)N/n, ABT > 4N/n"}
    paper = dict(PAPER)
    paper["structures"] = {r["structure"]: {k[6:]: v for k, v in r.items() if k.startswith("paper_")}
                           for r in others}
    L.write_summary(out, "sim-bcdc-table2", measured, paper, [1], {"headline": headline,
                    "definitions": __doc__.split("\n\n", 1)[1]})
    plt = L.pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    ns = [r["n"] for r in rows]
    ax = axes[0]
    ax.plot(ns, [r["diameter"] for r in rows], "o-", ms=4, label="diameter, BFS (measured)")
    ax.plot(ns, [r["paper_diameter_table2"] for r in rows], "kx", ms=6, label="paper Table 2 entry")
    ax.plot(ns, [r["paper_diameter_theorem2"] for r in rows], "k+", ms=8, label="paper Theorem 2")
    L.label(ax, "n (B_n)", "diameter (B_n hops)")
    ax = axes[1]
    ax.semilogy(ns, [r["abt_gbps_brouting"] for r in rows], "s-", ms=4, label="ABT, BRouting (measured)")
    ax.semilogy(ns, [r["abt_gbps_shortest"] for r in rows], "o-", ms=4, label="ABT, shortest (measured)")
    ax.semilogy(ns, [r["abt_gbps_2N_over_mean_hops"] for r in rows], "^--", ms=4, label="2N / mean hops (measured)")
    ax.semilogy(ns, [r["paper_abt_lower_bound"] for r in rows], "kx", ms=6, label="paper bound 4N/n")
    L.label(ax, "n (B_n)", "ABT (Gb/s, 1 Gb/s links)")
    L.save_figure(fig, f"{out}/table2.png")
    L.log("done")


if __name__ == "__main__":
    main()
