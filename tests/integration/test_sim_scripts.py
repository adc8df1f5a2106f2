"""The simulation scripts' own arithmetic (experiments/sim): the per-point
statistics over seeds, the vertex connectivity of BCDC Table 2 (scipy's
max-flow and the pure-Python one), and the --seeds option. Pure Python,
no build and no root needed; a second or two."""
import os
import subprocess
import sys

import pytest

SIM = os.path.join(os.path.dirname(__file__), "..", "..", "experiments", "sim")
sys.path.insert(0, SIM)
import simlib  # noqa: E402
import fig_bcdc_table2  # noqa: E402


def rows(pairs):
    return [{"ratio": str(r), "abt_gbps": str(v)} for r, v in pairs]


def test_stats_by_ratio_mean_sd_min_max():
    st = simlib.stats_by_ratio(rows([(0, 10), (0.2, 4), (0, 10), (0.2, 8), (0.2, 6)]), "abt_gbps")
    assert list(st) == [0.0, 0.2]
    assert st[0.0] == {"mean": 10, "sd": 0, "min": 10, "max": 10, "n": 2}
    p = st[0.2]
    assert (p["mean"], p["min"], p["max"], p["n"]) == (6, 4, 8, 3)
    assert p["sd"] == pytest.approx(2.0)  # sample sd of 4, 6, 8
    assert simlib.spread(st) == {"mean": [10, 6], "sd": [0, 2], "min": [10, 4], "max": [10, 8]}
    pts = simlib.point_rows(st, structure="bcube")
    assert pts[1] == {"structure": "bcube", "ratio": "0.2", "seeds": 3, "mean": 6, "sd": 2, "min": 4, "max": 8}


def test_stats_one_seed_has_no_spread():
    st = simlib.stats_by_ratio(rows([(0.1, 3.5)]), "abt_gbps", scale=2)
    assert st[0.1] == {"mean": 7, "sd": 0, "min": 7, "max": 7, "n": 1}


def graph(groups, nv):
    adj = [set() for _ in range(nv)]
    for g in groups:
        for x in g:
            adj[x].update(y for y in g if y != x)
    return [sorted(a) for a in adj]


# (graph, vertex connectivity): two K5 sharing a vertex (edge connectivity 4,
# so an edge-disjoint count would say 4), a 6-cycle, K5, K_{3,3} (edges as groups).
GRAPHS = [
    (graph([[0, 1, 2, 3, 4], [0, 5, 6, 7, 8]], 9), 1),
    (graph([[i, (i + 1) % 6] for i in range(6)], 6), 2),
    (graph([[0, 1, 2, 3, 4]], 5), 4),
    (graph([[a, b] for a in range(3) for b in range(3, 6)], 6), 3),
]


@pytest.mark.parametrize("method", ["python", "scipy"])
@pytest.mark.parametrize("adj,kappa", GRAPHS)
def test_vertex_connectivity(adj, kappa, method):
    if method == "scipy" and not fig_bcdc_table2.have_scipy():
        pytest.skip("python3-scipy not installed")
    assert fig_bcdc_table2.connectivity(adj, method) == (kappa, method)


@pytest.mark.parametrize("bad", ["0", "101", "x"])
def test_seeds_option_rejects_bad_values_before_writing(bad, tmp_path):
    r = subprocess.run([sys.executable, os.path.join(SIM, "fig_bcube_fig8.py"), "--seeds", bad],
                       capture_output=True, text=True, env=dict(os.environ, DCN_BUILD=str(tmp_path)), timeout=60)
    assert r.returncode == 2
    assert "--seeds" in r.stderr.strip().splitlines()[-1]
    assert not os.listdir(tmp_path)


def test_errorbar_of_equal_seeds():
    """Three equal values whose float mean is off in the last bit: the error
    bars must not go negative (matplotlib rejects them)."""
    st = simlib.stats_by_ratio(rows([(0, 6.1474)] * 3), "abt_gbps")
    st[0.0]["mean"] = 6.1474 + 1e-15
    plt = simlib.pyplot()
    fig, ax = plt.subplots()
    simlib.errorbar(ax, st, "o-")
    plt.close(fig)
