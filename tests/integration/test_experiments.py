"""The experiment scripts at a tiny size, so they cannot rot: each runs
end to end (bring-up of BCube and the tree, traffic, teardown) and writes a
summary with the fields every experiment promises. The numbers of such a
short run mean nothing and are not checked; completed flows are."""
import json
import os
import socket
import subprocess

import pytest

from tests.support import testing

REPO = testing.REPO
FIELDS = ["experiment", "valid", "measured", "baseline", "ratio_measured", "paper", "ratio_paper", "switch",
          "link_mbps", "mtu", "duration_s", "seed", "cpu_busy_max", "git_commit"]

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not testing.agent_built(testing.build_dir()),
                                reason="needs root and a built agent")


def run_tiny(name, tmp_path, *extra):
    out = tmp_path / name
    r = subprocess.run([os.path.join(REPO, "experiments", name), "--tiny", "--out", str(out), "--switch", "lxbr",
                        "--link-mbps", "20", "--build-dir", testing.build_dir()] + list(extra),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert r.returncode in (0, 3), r.stdout[-3000:]   # 3: ran, but the fidelity check failed
    with open(out / "summary.json") as f:
        s = json.load(f)
    for k in FIELDS:
        assert k in s, "summary lacks %s" % k
    assert s["experiment"] == name
    assert not os.path.exists(str(out) + ".partial")
    assert testing.project_bridges() == [], "bridges left behind"
    return s, out, r.stdout


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def reasons(s, out):
    """Every invalid reason of the experiment and of each of its runs."""
    out_reasons = list(s["invalid_reasons"])
    for r in s.get("run_table", []):
        out_reasons += r["invalid_reasons"]
    return " ".join(out_reasons)


def first_run(out):
    """The first run's own summary: a tiny run is often invalid (too short
    for the link checks), and an experiment averages only valid runs."""
    with open(out / "raw" / "run-01" / "summary.json") as f:
        return json.load(f)


def test_one_to_one_tiny(tmp_path):
    s, out, log = run_tiny("bcube-one-to-one", tmp_path)
    assert "flows failed" not in reasons(s, out), log[-2000:]
    assert first_run(out)["measured"]["on_parallel_paths_P1_P2"] is not None
    assert (out / "timeline.png").exists() and (out / "raw" / "run-01" / "timeline.csv").exists()
    assert any(p.name.startswith("tree_") for p in (out / "raw" / "run-01" / "raw").iterdir())


def test_one_to_several_tiny(tmp_path):
    s, out, log = run_tiny("bcube-one-to-several", tmp_path)
    assert "flows failed" not in reasons(s, out), log[-2000:]
    m = first_run(out)["measured"]
    assert m["delivered_bytes"] == {"h01": m["file_bytes"] // 2 * 2, "h10": m["file_bytes"] // 2 * 2}


def test_forwarding_tiny(tmp_path):
    """Fig. 9 at one MTU: the relay forwards what the four connections
    offer, measured over the part where all four run (window_all_four).
    12 s connections: with the sanitized agents of make test the last
    connection moved data about 4 s after the spawn (CI at cb19ca7, with
    8 s connections, had a 1.8 s window)."""
    s, out, log = run_tiny("bcube-forwarding", tmp_path, "--mtus", "9000", "--seconds", "12", "--data-path", "kernel")
    assert "flows failed" not in reasons(s, out), log[-2000:]
    assert s["data_path"] == "kernel"   # the run records the data path it was given
    rows = {r["mode"]: r for r in first_run(out)["measured"]["rows"]}
    assert set(rows) == {"agent", "kernel"}, rows
    for r in rows.values():
        assert r["window_all_four"] and r["window_s"] >= 2, r
        # 4 x 20 Mb/s offered; the relay's counters over the window, and the connections' own goodput
        assert 0.8 * 80 <= r["forwarding_mbps"] <= 1.1 * 80 and r["iperf3_goodput_mbps_sum"] > 0.6 * 80, r
    assert rows["agent"]["relay_agent_cpu_pct_of_a_core"] > 0
    # the figures per MTU, which the summary over runs gives an interval each
    per = first_run(out)["measured"]["per_mtu"]["mtu9000"]
    assert per["agent_forwarding_mbps"] == rows["agent"]["forwarding_mbps"], per
    assert per["kernel_forwarding_mbps"] == rows["kernel"]["forwarding_mbps"], per
    # the summary's intervals are over valid runs only: a box that other work
    # kept busy (the CPU check) leaves none, which is slowness, not a fault
    valid = sum(1 for r in s["run_table"] if r["valid"])
    stats = s["measured_stats"].get("per_mtu.mtu9000.agent_forwarding_mbps")
    if valid:
        assert stats and stats["n"] == valid, s["measured_stats"]
    else:
        assert stats is None and all("box CPU" in " ".join(r["invalid_reasons"]) for r in s["run_table"]), \
            reasons(s, out)
    assert (out / "fig9.png").exists()


def test_mdcube_c2c_tiny(tmp_path):
    s, out, log = run_tiny("mdcube-c2c", tmp_path)
    assert "flows failed" not in reasons(s, out), log[-2000:]
    m = first_run(out)["measured"]
    assert m["ratio_random_jumps"] is not None
    assert m["ratio_assigned_paths"] is not None
    assert m["ratio_assigned_paths_equal_share_bound"] == 4.0   # Theorem 4's jumps, one block each
    assert s["paper"]["ratio_random_jumps"] == 2.1 and s["mdcube_routing"]
    assert (out / "aggregate.png").exists() and (out / "ratios.png").exists()
    assert any(p.name.startswith("tree_") for p in (out / "raw" / "run-01" / "raw").iterdir())


def test_all_to_all_tiny_repeated(tmp_path):
    """The all-to-all with the default, faithful emulation (FIFO queues in
    bytes, no small frames first, NewReno), twice: the runs
    alternate BCube and the tree with their own seeds (passed to the
    agents), and the summary carries the interval over them. On BCube_1
    n=2 and a 2 x 2 tree: the machinery, not the size, is under test, and
    a tiny run often fails the link checks, so up to four runs are made."""
    port = free_port()
    s, out, log = run_tiny("bcube-all-to-all", tmp_path, "--runs", "2", "--seed", "7", "--view", str(port),
                           "--topo", "bcube n=2 k=1", "--tree", "tree leaves=2 per_leaf=2")
    assert "flows failed" not in reasons(s, out), log[-2000:]
    assert f"dcn-view: http://127.0.0.1:{port:d}/" in log   # --view: served while it ran (docs/view.md)
    assert s["small_first"] is False and s["queue_bytes"] == 131072 and s["tcp_rto_min_ms"] == 200.0
    assert s["tcp_cc"] == "reno"
    assert s["runs_wanted"] == 2 and s["runs_n"] + s["runs_invalid"] == len(s["run_table"]) >= 2
    assert [r["seed"] for r in s["run_table"]][:2] == [7, 8]
    for r in s["run_table"]:
        run = json.loads((out / r["folder"] / "summary.json").read_text())
        assert run["seed"] == r["seed"] and run["runs"]["tree"]["tcp"]["OutSegs"] > 0
        args = run["runs"]["bcube"]["agent_args"]
        assert args[args.index("--seed") + 1] == str(r["seed"]), args
        assert run["runs"]["tree"]["agent_args"] is None
        assert run["runs"]["bcube"]["qdisc"]["switch_ports"]["packets"] > 0
    assert log.index("bcube: bringing up") < log.index("tree: bringing up") < log.rindex("bcube: bringing up")
    if s["runs_n"] >= 2:
        lo, hi = s["ratio_ci95"]
        assert lo <= s["ratio_mean"] <= hi and s["ratio_min"] <= s["ratio_mean"] <= s["ratio_max"]
    assert (out / "runs.png").exists() and (out / "aggregate.png").exists()


def test_bad_option_is_one_line(tmp_path):
    r = subprocess.run([os.path.join(REPO, "experiments", "bcube-one-to-one"), "--mtu", "100", "--out",
                        str(tmp_path / "x")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert r.returncode == 2
    assert "--mtu must be" in r.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "x.partial").exists()


# HCN/BCN and BCDC: one tiny run per family, each over a different family-*
# script (they share explib/family.py), on each family's small size.
FAMILY_TINY = [
    ("hcn", "family-one-to-several", ["--topo", "hcn n=4 h=1"]),
    ("bcn", "family-one-to-all", ["--topo", "bcn alpha=2 beta=1 h=1 gamma=0"]),
    ("bcdc", "family-all-to-all", ["--topo", "bcdc n=3"]),
]


@pytest.mark.parametrize("fam,script,extra", FAMILY_TINY, ids=[f for f, _, _ in FAMILY_TINY])
def test_family_tiny(tmp_path, fam, script, extra):
    name = "%s-%s" % (fam, script[len("family-"):])
    out = tmp_path / name
    r = subprocess.run([os.path.join(REPO, "experiments", script), "--family", fam, "--tiny", "--out", str(out),
                        "--switch", "lxbr", "--link-mbps", "20", "--build-dir", testing.build_dir()] + extra,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert r.returncode in (0, 3), r.stdout[-3000:]
    with open(out / "summary.json") as f:
        s = json.load(f)
    for k in FIELDS + ["family", "analytic", "ratio_analytic"]:
        assert k in s, "summary lacks %s" % k
    assert s["experiment"] == name and s["family"] == fam
    if script == "family-all-to-all":  # dcn-sim on the same topology beside the measurement
        assert set(s["sim"]) == {"shortest", "bsr", "bsr-greedy", "brouting"}, s["sim"]
        assert all(v["abt_links"] > 0 and v["mean_server_hops"] >= 1 for v in s["sim"].values()), s["sim"]
        assert isinstance(s["analytic"]["server_link_ends"], int), s["analytic"]
        assert "emulation_vs_sim" in first_run(out)["measured"], first_run(out)["measured"]
    assert "flows failed" not in reasons(s, out), r.stdout[-2000:]
    assert list(out.glob("*.png")), "no plot"
    assert not os.path.exists(str(out) + ".partial")
    assert testing.project_bridges() == [], "bridges left behind"
