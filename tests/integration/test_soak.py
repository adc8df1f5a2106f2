"""The soak (experiments/soak, docs/soak.md) in its short CI form: about 32 s
of TCP connections on BCube_1 n=4 then HCN(4,1) under a dense random
failure schedule. The report must carry every field the issue names, its
byte counts must agree, and every verdict must pass: no connection lost
where a path remained, no agent crash, flat agent memory, the box below
saturation.

DCN_SOAK_SELF_CHECK=1 adds two runs that must fail a verdict (an agent
SIGKILLed outside the schedule; a server's packets dropped with its links
up): they show that the verdicts can fail."""
import csv
import json
import os
import subprocess

import pytest

from orchestrator.agents import DEFAULT_DATA_PATH
from tests.support import testing
from explib.experiment import DATA_PATH_SUFFIX

REPO = testing.REPO
FIELDS = ["duration_s", "connections_started", "connections_completed", "connections_lost",
          "connections_lost_path_remained", "connections_lost_no_path", "agent_crashes", "failures_injected",
          "max_stall_s", "bytes_sent", "bytes_received", "memory", "verdicts", "phases", "valid", "git_commit"]
# the default kinds with half the link failures, so that the silent ones (a
# cable's frames dropped with its carrier up, both ways or one), which only
# missed hellos reveal, come up in 32 s
SHORT_KINDS = "link=2,silent=1,one_way=1,switch=1,server=1,agent_kill=2"
VERDICTS = ["no_connection_lost_with_path", "no_agent_crash", "memory_flat_5pct", "cpu_below_saturation"]
# judged in every run but not required here: in 32 s with a failure every 2 s, some connection
# stalls over its limit in most runs (TCP's backoff behind a full queue, a path set that misses a
# detour: docs/soak.md); check_stall_verdict checks that it is judged as documented
STALL_VERDICT = "no_long_stall_with_path"

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not testing.agent_built(testing.build_dir()),
                                reason="needs root and a built agent")


def run_soak(out, *extra, duration="32"):
    r = subprocess.run([os.path.join(REPO, "experiments", "soak"), "--duration", duration, "--out", str(out),
                        "--switch", "lxbr", "--link-mbps", "20", "--mtu", "9000", "--mean-gap", "2",
                        "--down-min", "2", "--down-max", "5", "--stall-limit", "10", "--max-size", "4M",
                        "--concurrency", "8", "--rss-period", "1", "--kinds", SHORT_KINDS,
                        "--build-dir", testing.build_dir()] + list(extra),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=240)
    assert r.returncode in (0, 3), r.stdout[-3000:]
    with open(out / "summary.json") as f:
        s = json.load(f)
    assert not os.path.exists(str(out) + ".partial")
    assert testing.project_bridges() == [], "bridges left behind"
    return r, s


def failed_verdicts(s):
    return sorted(k for k, v in s["verdicts"].items() if v.get("pass") is False and k != STALL_VERDICT)


def only_cpu_failed(s):
    return failed_verdicts(s) == ["cpu_below_saturation"]


def test_soak_short(tmp_path):
    out = tmp_path / "soak"
    r, s = run_soak(out)
    if only_cpu_failed(s):
        # The CPU verdict judges the box, not the agents: in a 32-s run its 95th
        # percentile is the 4th busiest of ~64 half-second samples. In 6 runs by
        # hand it was 0.38-0.40 on a quiet box and up to 0.91 with other work
        # beside the tests (over 90 % once). The measurement is then not valid,
        # as an experiment's would not be: run once more. Every other verdict
        # must hold in both runs.
        print("soak: box busy (CPU p95 %s); once more" % s["verdicts"]["cpu_below_saturation"]["measured"])
        out = tmp_path / "soak2"
        r, s = run_soak(out)
    log = r.stdout
    for k in FIELDS:
        assert k in s, "summary lacks %s" % k
    assert s["experiment"] == "soak"
    assert set(s["phases"]) == {"bcube", "hcn"}
    assert s["duration_s"] >= 30
    assert s["connections_started"] >= 20 and s["connections_completed"] >= 10, log[-2000:]
    assert s["connections_lost"] == s["connections_lost_path_remained"] + s["connections_lost_no_path"]
    assert s["connections_started"] >= s["connections_completed"] + s["connections_lost"]
    assert s["failures_injected"] >= 6, log[-2000:]
    kinds = s["failures_by_kind"]
    assert kinds.get("silent", 0) + kinds.get("one_way", 0) >= 1, kinds  # the seeded schedule draws them
    assert " link_silent " in log and " link_unsilent " in log, log[-2000:]
    assert s["bytes_received_completed"] == s["bytes_requested_completed"] == s["bytes_sent_completed"]
    assert s["bytes_received"] <= s["bytes_sent"]
    # progress every ~10 s, in both phases
    assert sum(1 for line in log.splitlines() if " s: connections " in line) >= 4, log[-2000:]
    # memory over time: every agent of both phases, several samples each
    with open(out / "memory.csv") as f:
        rows = list(csv.DictReader(f))
    assert {(r["phase"], r["agent"]) for r in rows} >= {("bcube", "h00"), ("hcn", "h11")}
    assert all(int(r["rss_kb"]) > 0 and int(r["vmdata_kb"]) > 0 for r in rows)
    assert len(rows) >= 2 * 16 * 6
    # flatness needs phases longer than the agents' warm-up (120 s): a CI run's are not, and say so
    mv = s["verdicts"]["memory_flat_5pct"]
    if s["phases"]["bcube"]["soak_s"] < 250:
        assert mv["pass"] is None and set(mv["not_judged"]) == {"bcube", "hcn"}, mv
    else:
        assert len(s["memory"]) >= 20, mv     # agents judged: those the schedule did not restart
    for name in ("memory.png", "goodput.png", "report.md", "connections.csv", "failures.csv", "goodput.csv"):
        assert (out / name).exists(), name
    check_stall_paths(out)
    # the soak's section of reliability.md beside the results folder (results/reliability.md for make soak)
    page = (out.parent / "reliability.md").read_text()
    # each data path has its own section; the run above took the default's
    section = "soak" + DATA_PATH_SUFFIX[DEFAULT_DATA_PATH]  # "soak": the default's has no suffix
    assert "<!-- begin %s: written by experiments/soak; do not edit by hand -->" % section in page, page
    assert "| TCP connections started / completed | %d / %d |" % (
        s["connections_started"], s["connections_completed"]) in page, page
    assert "| agent crashes | %d |" % s["agent_crashes"] in page, page
    assert "[{0}/report.md]({0}/report.md)".format(out.name) in page, page
    for v in VERDICTS:
        assert s["verdicts"][v]["pass"] is not False, "verdict %s failed: %s\n%s\n%s" % (
            v, s["verdicts"][v], log[-3000:], lost_with_path(out))
    over = check_stall_verdict(out, s)
    if over:
        print("soak: %d stalls where a path remained over their limit:\n%s" % (len(over), stall_snapshots(out, over)))
    assert s["valid"] == (not over) and r.returncode == (3 if over else 0)


def lost_with_path(out):
    """The connections lost where a path remained, each with its row and
    the snapshots of its stalls (paths, failed links and `ss` at both
    ends): what a failed CI run must show to be explained afterwards."""
    with open(out / "connections.csv") as f:
        lost = [r for r in csv.DictReader(f) if r["outcome"] == "lost" and r["path_remained"] == "True"]
    with open(out / "stall_paths.json") as f:
        snaps = json.load(f)
    with open(out / "failures.csv") as f:
        events = [" ".join(r.values()) for r in csv.DictReader(f)]
    parts = []
    for r in lost:
        parts.append("lost: %s" % json.dumps(r))
        parts += ["  snapshot: %s" % json.dumps(sn) for sn in snaps
                  if sn["phase"] == r["phase"] and str(sn["conn"]) == r["id"]]
    return "\n".join(parts + ["failures: " + "; ".join(events)] if parts else [])


def check_stall_verdict(out, s):
    """The stall verdict against stalls.csv: it fails exactly when a stall
    where a path remained ran past its limit, and each limit is one that
    docs/soak.md allows. Returns the stalls over their limit."""
    with open(out / "stalls.csv") as f:
        rows = list(csv.DictReader(f))
    assert rows and {"sender_rto_s", "after_no_path_s", "limit_s", "over_limit"} <= set(rows[0]), rows[:1]
    for r in rows:
        limit, allowed = float(r["limit_s"]), [3.0]
        if r["sender_rto_s"]:
            allowed.append(float(r["sender_rto_s"]) + 1.0)
        if r["after_no_path_s"]:
            allowed.append(3.0 + float(r["after_no_path_s"]))
        assert limit == pytest.approx(max(allowed), abs=0.002), r
        # both are rounded to the ms in the file: within a ms of each other they may compare either way
        if abs(float(r["stall_s"]) - limit) > 0.002:
            want = r["path_remained"] == "True" and float(r["stall_s"]) > limit
            assert (r["over_limit"] == "True") == want, r
    over = [r for r in rows if r["over_limit"] == "True"]
    v = s["verdicts"][STALL_VERDICT]
    assert v["pass"] == (not over) and v["measured"] == len(over), (v, over)
    assert s["stalls_over_limit_path_remained"] == len(over)
    return over


def stall_snapshots(out, rows):
    """The snapshots of these stalls (stalls.csv rows), one line each."""
    with open(out / "stall_paths.json") as f:
        snaps = json.load(f)
    return "\n".join("%s\n  %s" % (json.dumps(r), "\n  ".join(
        json.dumps(sn) for sn in snaps if sn["phase"] == r["phase"] and str(sn["conn"]) == r["conn"]))
        for r in rows)


def check_stall_paths(out):
    """stall_paths.json: per snapshot the connection (with its source port),
    and the paths of its data at the source and of its ACKs at the
    destination (None: agent down). A connection is one flow at each agent,
    so with the source port known each side has at most one entry."""
    with open(out / "stall_paths.json") as f:
        snaps = json.load(f)
    assert isinstance(snaps, list)
    for sn in snaps:
        assert {"phase", "conn", "src", "dst", "sport", "t_s", "stall_from_s", "data_paths_at_src",
                "ack_paths_at_dst", "pathset_at_src", "pathset_at_dst", "faildb_at_src", "faildb_at_dst",
                "failures_in_force", "ss_at_src", "ss_at_dst", "drops_at_src"} <= set(sn), sn
        for k in ("faildb_at_src", "faildb_at_dst"):
            for e in sn[k] or []:
                assert e.endswith(" local") or e.endswith(" s"), sn
        for k, a, b in (("pathset_at_src", "src", "dst"), ("pathset_at_dst", "dst", "src")):
            for p in sn[k] or []:
                assert p[0] == sn[a] and p[-1] == sn[b], sn
        # both times are rounded to the millisecond: a 3 s age can read 2.999
        assert sn["t_s"] - sn["stall_from_s"] >= 3.0 - 0.0015, sn
        for k, end in (("data_paths_at_src", "dst"), ("ack_paths_at_dst", "src")):
            if sn["sport"] is not None:
                assert len(sn[k] or []) <= 1, sn
            for p in sn[k] or []:
                assert not p["path"] or p["path"][-1] == sn[end], sn
    return snaps


@pytest.mark.skipif(not os.environ.get("DCN_SOAK_SELF_CHECK"), reason="DCN_SOAK_SELF_CHECK=1 runs the self-checks")
@pytest.mark.parametrize("hook,verdict", [("crash", "no_agent_crash"), ("blackhole", "no_connection_lost_with_path")])
def test_soak_verdict_can_fail(tmp_path, hook, verdict):
    r, s = run_soak(tmp_path / hook, "--self-check", hook, "--topo", "bcube n=4 k=1", duration="30")
    assert r.returncode == 3 and not s["valid"], r.stdout[-2000:]
    assert not s["verdicts"][verdict]["pass"], s["verdicts"]
    if hook == "blackhole":   # its connections stalled with a path: their data paths were recorded
        snaps = check_stall_paths(tmp_path / hook)
        assert any(sn["data_paths_at_src"] and sn["sport"] for sn in snaps), snaps
        assert any(sn["pathset_at_src"] for sn in snaps), snaps  # the blackhole fails no link
        assert any(sn["faildb_at_src"] is not None for sn in snaps), snaps


@pytest.mark.parametrize("args,msg", [(["--duration", "abc"], "--duration: bad duration"),
                                      (["--duration", "10"], "at least 10 s per phase"),
                                      (["--kinds", "link=1,fire=2"], "unknown kind"),
                                      (["--max-size", "lots"], "--max-size")])
def test_soak_bad_option_is_one_line(tmp_path, args, msg):
    out = tmp_path / "x"
    r = subprocess.run([os.path.join(REPO, "experiments", "soak"), "--out", str(out)] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
    assert r.returncode == 2 and msg in r.stderr, r.stderr
    last = r.stderr.strip().splitlines()[-1]   # argparse: the usage, then one error line
    assert last.startswith("experiments/soak: error: ") and msg in last and "Traceback" not in r.stderr
    assert not out.exists() and not os.path.exists(str(out) + ".partial")


def test_make_soak_runs_the_script():
    r = subprocess.run(["make", "-n", "-C", REPO, "soak", "DURATION=30m", "SOAK_ARGS=--seed 7"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=30)
    assert "experiments/soak --duration 30m" in r.stdout and "--seed 7" in r.stdout, r.stdout
