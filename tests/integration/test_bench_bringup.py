"""tests/bench/bringup.py's verdict and files (issue 9, section 5): a run is
`ok` only when every sampled ping answered; the summary and its table are
written by the script alone, without machine paths. No namespaces: a
stand-in Testbed and ping function."""
import importlib.util
import json
import os
import sys
import time

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def bench():
    spec = importlib.util.spec_from_file_location("bringup_bench", os.path.join(REPO, "tests", "bench", "bringup.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class _Wiring:
    def __init__(self, n):
        self.server_list = [{"name": "h%02d" % i, "id": i} for i in range(n)]
        self.switch_list = [{"name": "s0"}]
        self.links = [{}] * n


class FakeTestbed:
    def __init__(self, build, spec, **kw):
        self.wiring = _Wiring(16)
        self.timings = {}
        self.agent_mode = True
        self.agents, self.hosts = {}, {}
        self.datapath = "netdev"
        self.stopped = False

    def start(self):
        self.timings = {"hosts": 0.1, "links": 0.1, "switches": 0.1, "host_config": 0.1,
                        "agents_start": 0.1, "agents_ready": 0.1, "total": 0.6}
        return self

    def stop(self):
        self.stopped = True

    def agent_request(self, name, request, timeout=5):
        assert request == "counters"
        if name == "h03":
            return None  # an agent that did not answer
        return {"counters": {"neighbor_down_events": 2 if name in ("h01", "h02") else 0}}


def _run(bench, monkeypatch, failed_n):
    def fake_ping(tb, pairs, **kw):
        return pairs[failed_n:], pairs[:failed_n]
    monkeypatch.setattr(bench, "Testbed", FakeTestbed)
    monkeypatch.setattr(bench.smoke, "ping_pairs", fake_ping)
    return bench.one_run("build", "bcube n=4 k=1", "lxbr", lambda m: None, 100)


def test_a_run_with_failed_pings_is_not_ok(bench, monkeypatch):
    rec = _run(bench, monkeypatch, failed_n=1)
    assert rec["ping_sample"]["failed"] == 1
    assert rec["ok"] is False


def test_a_run_where_every_ping_answers_is_ok(bench, monkeypatch):
    rec = _run(bench, monkeypatch, failed_n=0)
    assert rec["ping_sample"]["failed"] == 0 and rec["ping_sample"]["ok"] == rec["ping_sample"]["pairs"] > 0
    assert rec["ok"] is True
    assert rec["neighbor_downs_at_up"] == {"events": 4, "agents": 2, "unanswered": 1}


def test_summary_and_table_come_from_the_script_only(bench, monkeypatch, tmp_path):
    runs = [_run(bench, monkeypatch, failed_n=3), _run(bench, monkeypatch, failed_n=0),
            {"spec": "bcube n=8 k=3 parts=4", "switch": "ovs", "ok": False, "skipped": "too many ports"}]
    out = tmp_path / "summary.json"
    bench.write_summary(str(out), runs, os.path.join(REPO, "build"))
    s = json.loads(out.read_text())
    assert set(s) == {"repo_head", "repo_modified", "build_dir", "options", "what", "machine", "date_utc", "runs"}
    assert s["build_dir"] == "build"  # no machine path
    assert [r["ok"] for r in s["runs"]] == [False, True, False]
    table = (tmp_path / "table.md").read_text().splitlines()
    rows = [l for l in table if l.startswith("| bcube")]
    assert len(rows) == 3
    assert rows[0].endswith("| **no** |") and rows[1].endswith("| yes |")
    assert "29 / 32" in rows[0]  # 2n pairs sampled at 16 servers, 3 failed
    assert "| 4 (2) |" in rows[0]  # neighbours declared dead while it started (agents that did)
    assert all(r.count("|") == table[4].count("|") for r in rows)  # as many cells as the heading
    assert "no calibration recorded" in table[2]


def test_the_machine_calibration_is_in_the_summary_and_the_table(bench, monkeypatch, tmp_path):
    cal = {"processes_100_s": 0.21, "namespaces_100_s": 1.5, "veth_100_s": None, "rounds": 3}
    out = tmp_path / "summary.json"
    bench.write_summary(str(out), [_run(bench, monkeypatch, failed_n=0)], os.path.join(REPO, "build"), {}, cal)
    assert json.loads(out.read_text())["machine"]["calibration"] == cal
    table = (tmp_path / "table.md").read_text().splitlines()
    assert table[2] == ("Machine: %d CPUs; 100 processes started in 0.21 s, 100 network namespaces in 1.50 s, "
                        "100 veth pairs in n/a (medians of 3)." % os.cpu_count())


def test_calibrate_times_each_step_and_leaves_nothing(monkeypatch):
    from orchestrator import calibrate
    monkeypatch.setattr(calibrate, "N", 5)
    monkeypatch.setattr(calibrate, "ROUNDS", 1)
    before = set(os.listdir("/sys/class/net"))
    cal = calibrate.calibrate()
    assert cal["rounds"] == 1 and cal["processes_100_s"] > 0
    if os.geteuid() == 0:
        assert cal["namespaces_100_s"] > 0 and cal["veth_100_s"] > 0
    else:
        assert cal["namespaces_100_s"] is None and cal["veth_100_s"] is None
    assert set(os.listdir("/sys/class/net")) == before  # the veths were made in a namespace of its own
    assert isinstance(cal["kdamonds_on"], int)


def test_kdamonds_on_counts_the_monitors_whose_state_is_on(tmp_path):
    from orchestrator import calibrate
    for name, state in (("0", "on\n"), ("1", "off\n"), ("2", "on\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "state").write_text(state)
    (tmp_path / "nr_kdamonds").write_text("3\n")  # a file beside the monitors' folders
    assert calibrate.kdamonds_on(str(tmp_path)) == 2
    assert calibrate.kdamonds_on(str(tmp_path / "absent")) == 0
    assert calibrate.describe({"processes_100_s": 0.1, "kdamonds_on": 2}).endswith("; DAMON kdamonds on: 2")


@pytest.mark.parametrize("args, names", [
    (["--sizes", "17"], "--sizes 17"),
    (["--sizes", "16", "--switch", "ovz"], "--switch ovz"),
    (["--container-shapers", "cbq"], "--container-shapers cbq"),
    (["--sizes", "", "--no-2048"], "nothing to run"),
    (["--out", "/proc/version/summary.json"], "--out"),
    (["--hello-ms", "-5"], "--hello-ms -5"),
])
def test_bad_options_fail_in_one_line_before_any_run(args, names, tmp_path):
    """A typo must cost nothing: exit 2 with one line naming the option, no
    traceback, nothing written (a full run used to end in a traceback when
    --out was a directory, losing the run)."""
    import subprocess
    r = subprocess.run([sys.executable, os.path.join(REPO, "tests", "bench", "bringup.py"),
                        os.path.join(REPO, "build"), "--out", str(tmp_path / "s.json")] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and names in r.stderr.splitlines()[-1]
    assert r.stdout == "" and list(tmp_path.iterdir()) == []


def test_a_directory_as_out_means_summary_json_inside(bench, tmp_path):
    import argparse
    a = argparse.Namespace(out=str(tmp_path), sizes="16", switch="lxbr", no_2048=True, container_shapers="htb",
                           ovs_max_links=0, hello_ms=0)
    out, plan = bench.check_options(a)
    assert out == str(tmp_path / "summary.json")
    assert plan == [("bcube n=4 k=1", "lxbr", "htb")]


def test_a_new_folder_as_out_is_a_folder_not_a_file(bench, tmp_path):
    """--out naming a folder not made yet: its summary.json inside it, so
    that table.md, written beside the summary, does not land in (and
    overwrite) the parent's table."""
    import argparse
    a = argparse.Namespace(out=str(tmp_path / "day" / "second-run"), sizes="16", switch="lxbr", no_2048=True,
                           container_shapers="htb", ovs_max_links=0, hello_ms=0)
    out, _ = bench.check_options(a)
    assert out == str(tmp_path / "day" / "second-run" / "summary.json")
    a.out = str(tmp_path / "s.json")
    assert bench.check_options(a)[0] == str(tmp_path / "s.json")


def test_the_container_runs_on_ovs_too_with_one_shaper_and_ovs_max_links_skips(bench, monkeypatch, tmp_path):
    import argparse
    a = argparse.Namespace(out=str(tmp_path), sizes="", switch="lxbr,ovs", no_2048=False,
                           container_shapers="htb,tbf", ovs_max_links=0, hello_ms=0)
    _, plan = bench.check_options(a)
    assert plan == [(bench.CONTAINER_2048, "lxbr", "htb"), (bench.CONTAINER_2048, "lxbr", "tbf"),
                    (bench.CONTAINER_2048, "ovs", "htb")]
    a.ovs_max_links = -1
    with pytest.raises(ValueError, match="--ovs-max-links"):
        bench.check_options(a)


def test_sigterm_mid_run_tears_the_testbed_down_and_exits_130(bench, monkeypatch, tmp_path, capsys):
    """A SIGTERM used to kill the bench at once, leaving a half-built OVS
    testbed (410 bridges) for make clean-testbed; now the run's teardown runs."""
    import signal
    import types
    made = []

    class KilledTestbed(FakeTestbed):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            made.append(self)

        def start(self):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler raises before this ends
            raise AssertionError("SIGTERM did not interrupt the start")

    monkeypatch.setattr(bench, "Testbed", KilledTestbed)
    monkeypatch.setattr(bench.os, "geteuid", lambda: 0)
    monkeypatch.setattr(bench.testing, "families", lambda build: ["bcube"])
    monkeypatch.setattr(bench.state, "take_netns_lock", lambda log: None)
    monkeypatch.setattr(bench.subprocess, "run",
                        lambda *a, **kw: types.SimpleNamespace(stdout='{"links": 32, "servers": 16}'))
    monkeypatch.setattr(bench.sys, "argv", ["bringup.py", "build", "--sizes", "16", "--switch", "lxbr", "--no-2048",
                                            "--out", str(tmp_path / "s.json")])
    saved = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)}

    def not_handled(signum, _frame):  # stands for Python's default, which would kill pytest
        raise AssertionError("the bench left signal %d to Python's default: no teardown" % signum)
    signal.signal(signal.SIGTERM, not_handled)
    try:
        assert bench.main() == 130
    finally:
        for s, h in saved.items():
            signal.signal(s, h)
    assert len(made) == 1 and made[0].stopped
    assert "interrupted" in capsys.readouterr().out
    assert not (tmp_path / "s.json").exists()  # no finished run: nothing written


def test_the_default_output_is_a_folder_per_day_and_data_path(bench):
    t = 1795000000  # 2026-11-18 UTC
    assert bench.default_out("kernel", t) == os.path.join(REPO, "results", "bringup", "2026-11-18", "summary.json")
    assert bench.default_out("agent", t) == os.path.join(REPO, "results", "bringup-agent", "2026-11-18",
                                                         "summary.json")
