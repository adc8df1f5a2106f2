"""tests/bench/forwarding.sh without namespaces: bad settings are refused in
one line before anything is built or written, and its summary pairs the modes
round by round, judges the goal and reports the no-relay ceiling."""
import importlib.util
import json
import os
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "tests", "bench", "forwarding.sh")


@pytest.fixture
def summary():
    spec = importlib.util.spec_from_file_location("forwarding_summary",
                                                  os.path.join(REPO, "tests", "bench", "forwarding_summary.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("env, says", [
    ({"DCN_BENCH_MODES": "agent kernal"}, "unknown mode 'kernal'"),
    ({"DCN_BENCH_MODES": "agent:"}, "unknown mode 'agent:'"),
    ({"DCN_BENCH_ROUNDS": "0"}, "DCN_BENCH_ROUNDS must be a whole number"),
    ({"DCN_BENCH_SECONDS": "5s"}, "DCN_BENCH_SECONDS must be a whole number"),
    ({"DCN_BENCH_MTUS": "1500 jumbo"}, "holds 'jumbo'"),
    ({"DCN_BENCH_MTUS": "65536"}, "outside 1280-9000"),
])
def test_bad_settings_refused_before_anything_is_written(tmp_path, env, says):
    out = tmp_path / "out"
    build = tmp_path / "build"
    build.mkdir()
    r = subprocess.run(["bash", SCRIPT, str(build)], env=dict(os.environ, DCN_BENCH_OUT=str(out), **env),
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2, r.stdout + r.stderr
    assert says in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not out.exists()


def test_missing_build_directory_is_one_line(tmp_path):
    r = subprocess.run(["bash", SCRIPT, str(tmp_path / "nowhere")], env=dict(os.environ, DCN_BENCH_OUT=str(tmp_path / "o")),
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "no build directory" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def _run(mtu, rd, mode, gbps):
    return {"mtu": mtu, "round": rd, "mode": mode, "gbps": gbps, "relay": None if "direct" in mode or mode == "kernel" else "h01",
            "relay_agent_cpu_pct": None if "direct" in mode or mode == "kernel" else 50.0,
            "gso_segments_from_tun": 0, "relayed_by_agents": 0, "seconds": 5, "box_cpu_busy": 0.9}


MODES = ["agent", "agent-direct", "kernel", "kernel-direct"]


def test_ratios_pair_modes_of_one_round(summary):
    # the kernel drifts from 10 to 5 Gb/s; the agent follows at 0.9 of it each round
    runs = []
    for rd, k in ((1, 10.0), (2, 5.0), (3, 8.0)):
        runs += [_run(1500, rd, "agent", 0.9 * k), _run(1500, rd, "agent-direct", 0.95 * k),
                 _run(1500, rd, "kernel", k), _run(1500, rd, "kernel-direct", 1.2 * k)]
    row, = summary.summarize(runs, MODES)
    assert row["agent"]["ratio_to_kernel"]["per_round"] == [0.9, 0.9, 0.9]
    assert row["agent"]["meets_goal"] is True
    assert row["ceiling"]["median"] == 0.95 and row["ceiling"]["goal_reachable"] is True
    assert row["agent-direct"]["ratio_to_kernel_direct"]["median"] == round(0.95 / 1.2, 3)
    assert "meets_goal" not in row["agent-direct"]  # the ceiling is no relay: it cannot meet a relay's goal


def test_ceiling_below_goal_is_reported_out_of_reach(summary):
    runs = []
    for rd in (1, 2, 3):
        runs += [_run(9000, rd, "agent", 4.0), _run(9000, rd, "agent-direct", 5.0),
                 _run(9000, rd, "kernel", 10.0), _run(9000, rd, "kernel-direct", 12.0)]
    per_mtu = summary.summarize(runs, MODES)
    assert per_mtu[0]["agent"]["meets_goal"] is False
    assert per_mtu[0]["ceiling"]["goal_reachable"] is False
    lines = summary.report_lines(per_mtu, MODES)
    assert any("agent-direct" in l and "OUT OF REACH" in l for l in lines), lines
    assert any(l.split()[2] == "agent" and "BELOW 0.8" in l for l in lines), lines


def test_without_kernel_mode_no_ratio_and_no_crash(summary):
    runs = [_run(1500, 1, "agent", 3.0), _run(1500, 1, "agent-direct", 4.0)]
    row, = summary.summarize(runs, ["agent", "agent-direct"])
    assert "ratio_to_kernel" not in row["agent"] and "ceiling" not in row
    assert summary.report_lines([row], ["agent", "agent-direct"])


def test_main_writes_summary_without_machine_paths(summary, tmp_path):
    runs = []
    for rd in (1, 2):
        runs += [_run(1500, rd, m, g) for m, g in zip(MODES, (3.0, 4.0, 5.0, 6.0))]
    rf = tmp_path / "runs.jsonl"
    rf.write_text("".join(json.dumps(r) + "\n" for r in runs))
    out = tmp_path / "out"
    out.mkdir()
    assert summary.main(["x", str(rf), str(out), "5", "/some/where/build", "0.1", "2", " ".join(MODES)]) == 0
    text = (out / "summary.json").read_text()
    doc = json.loads(text)
    assert doc["summary"][0]["ceiling"]["median"] == 0.8
    assert "/some/where" not in text and str(tmp_path) not in text
    assert (out / "runs.csv").read_text().count("\n") == len(runs) + 1


def test_no_runs_writes_nothing(summary, tmp_path):
    rf = tmp_path / "runs.jsonl"
    rf.write_text("")
    out = tmp_path / "out"
    out.mkdir()
    assert summary.main(["x", str(rf), str(out), "5", "build", "0.1", "2", "agent kernel"]) == 1
    assert not list(out.iterdir())


def test_direct_round_where_agents_relayed_is_flagged(summary):
    # 1 Gb/s for 5 s at MTU 1500 is about 417,000 frames; 10,000 relayed is 2.4 %
    runs = [_run(1500, 1, "agent-direct", 1.0), _run(1500, 1, "kernel", 2.0),
            _run(1500, 2, "agent-direct", 1.0), _run(1500, 2, "kernel", 2.0)]
    runs[0]["relayed_by_agents"], runs[2]["relayed_by_agents"] = 10000, 100
    row, = summary.summarize(runs, ["agent-direct", "kernel"])
    assert row["agent-direct"]["rounds_not_direct"] == [1]
    assert row["ceiling"]["rounds_not_direct"] == [1]
    assert "NOT DIRECT in rounds [1]" in summary.report_lines([row], ["agent-direct", "kernel"])[0]


def test_kernel_data_path_mode_counts_kernel_frames(summary):
    runs = [dict(_run(1500, 1, "agent:--data-path=kernel", 4.0), relayed_by_agents=12, relayed_in_kernel=300000),
            _run(1500, 1, "kernel", 5.0)]
    row, = summary.summarize(runs, ["agent:--data-path=kernel", "kernel"])
    m = row["agent:--data-path=kernel"]
    assert m["ratio_to_kernel"]["median"] == 0.8 and m["meets_goal"] is True
    assert m["max_relayed_in_kernel"] == 300000 and m["max_relayed_by_agents"] == 12


def test_direct_round_relayed_in_kernel_is_flagged(summary):
    runs = [dict(_run(1500, 1, "agent-direct", 1.0), relayed_in_kernel=10000), _run(1500, 1, "kernel", 5.0)]
    row, = summary.summarize(runs, ["agent-direct", "kernel"])
    assert row["agent-direct"]["rounds_not_direct"] == [1]

