"""The simulation scripts' own arithmetic (experiments/sim): the per-point
statistics over seeds, the --seeds option, and BCDC Table 2's vertex
connectivity, which dcn-topo computes (tests/unit/test_connectivity.c checks
its values) on the graph the script builds. No root needed; dcn-topo from
DCN_BUILD_DIR (default build/); a second or two."""
import os
import subprocess
import sys

import pytest

from orchestrator.topology import tool_path
from tests.support import testing

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


@pytest.fixture
def dcn_topo(monkeypatch):
    exe = tool_path(testing.build_dir(), "dcn-topo")
    if not exe:
        pytest.fail(f"dcn-topo is not built in {testing.build_dir()} (make build, or set DCN_BUILD_DIR)")
    monkeypatch.setattr(simlib, "TOPO", exe)


# B_3, B_4 (2n-2) and BCube_1 n=3 ((k+1)(n-1)) with the graphs the script
# builds from the export: the logical graph, and the generic one of the
# other structures' rows.
@pytest.mark.parametrize("words,kappa", [(["bcdc", "n=3"], 4), (["bcdc", "n=4"], 6), (["bcube", "n=3", "k=1"], 4)])
def test_connectivity_from_dcn_topo(dcn_topo, words, kappa):
    if words[0] == "bcdc":
        adj = fig_bcdc_table2.logical_graph(int(words[1][2:]))[0]
    else:
        adj = fig_bcdc_table2.generic_logical_graph(words)[0]
    assert fig_bcdc_table2.connectivity(words, adj) == kappa


def test_connectivity_refuses_another_graph(dcn_topo):
    """dcn-topo's server graph must be the one the script built: with one
    edge less (server 0 and its last neighbour) the script exits."""
    adj = fig_bcdc_table2.logical_graph(3)[0]
    x = adj[0].pop()
    adj[x].remove(0)
    with pytest.raises(SystemExit, match="dcn-topo's server graph has"):
        fig_bcdc_table2.connectivity(["bcdc", "n=3"], adj)


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
