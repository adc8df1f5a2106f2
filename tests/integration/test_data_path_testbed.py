"""The two data paths from the user's side: the testbed starts every agent
on the kernel's data path unless told otherwise (`dcn_testbed --data-path
agent|kernel`, so `sudo make testbed TESTBED_ARGS="--data-path agent"`),
the smoke check's pings cross relays with it, and the teardown leaves
nothing; and
experiments/data-path-all-to-all runs both. Root only; run by
tests/integration/run.sh under the machine-wide lock."""
import json
import os
import signal
import subprocess
import sys

import pytest

from orchestrator import state
from tests.support import testing
from tb_harness import start_held

BUILD = testing.build_dir()
TCX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tcx_progs.py")
pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not testing.agent_built(BUILD)
                                or "bcube" not in testing.families(BUILD),
                                reason="needs root, dcn-agent and the bcube family")


def tcx(pid, ifname, where="ingress"):
    """How many programs are attached at TCX ingress or egress of ifname in
    the network namespace of process pid."""
    r = subprocess.run(["nsenter", "--net=/proc/%d/ns/net" % pid, sys.executable, TCX, ifname, where],
                       stdout=subprocess.PIPE, text=True, check=True)
    return int(r.stdout)


@pytest.mark.parametrize("flag,path", [([], "kernel"), (["--data-path", "kernel"], "kernel"),
                                       (["--data-path", "agent"], "agent")])
def test_testbed_flag_reaches_every_agent_and_leaves_nothing(flag, path):
    """Without the option the agents run the kernel's data path (the
    default): its programs at every port, dcn0's egress and the segmenting
    veth; the agent's own attaches nothing."""
    p, out = start_held(["--hold", "--build-dir", BUILD, "--topo", "bcube n=2 k=1", "--switch", "lxbr"] + flag)
    data = None
    try:
        data = state.load()
        assert data and data["owner"]["pid"] == p.pid, out
        hosts = [r for r in data["hosts"] if r["what"].startswith("host h")]
        assert len(hosts) == 4, hosts
        for host in hosts:
            name = host["what"].split()[1]
            for port in (0, 1):
                n = tcx(host["pid"], "%s-eth%d" % (name, port))
                assert n == (0 if path == "agent" else 1), "%s-eth%d: %d programs at TCX ingress" % (name, port, n)
            if path == "kernel":  # the two ends: dcn0's egress, the segmenting veth's far end
                assert (tcx(host["pid"], "dcn0", "egress"), tcx(host["pid"], "dcn0g")) == (1, 1), name
            else:
                assert tcx(host["pid"], "dcn0", "egress") == 0, name
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(120)
        p.stdout.close()
    assert testing.leftovers_of_state(data) == {}
    assert state.load() is None


def test_data_path_all_to_all_runs_both(tmp_path):
    """experiments/data-path-all-to-all at its smallest: one round of each
    data path; the agent's relays, sends and delivers nothing in the
    kernel, the kernel's relays, sends and delivers there; --data-path is
    refused (the script runs both itself)."""
    exe = os.path.join(testing.REPO, "experiments", "data-path-all-to-all")
    r = subprocess.run([exe, "--data-path", "agent", "--build-dir", BUILD], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=60)
    assert r.returncode == 2 and "runs both data paths itself" in r.stdout, r.stdout
    out = tmp_path / "dpa"
    # 4 s of traffic leaves about 2 s of steady window: a few CPU samples;
    # BCube_1 n=2 (4 servers, 12 connections, relays on the 2-hop pairs)
    r = subprocess.run([exe, "--rounds", "1", "--seconds", "4", "--link-mbps", "10", "--topo", "bcube n=2 k=1",
                        "--out", str(out), "--build-dir", BUILD],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert r.returncode in (0, 3), r.stdout[-3000:]
    with open(out / "summary.json") as f:
        s = json.load(f)
    assert s["data_path"] == "both"
    runs = {x["data_path"]: x for x in s["measured"]["runs"]}
    agent = runs["agent"]
    assert agent["relayed_by_agents"] > 0 and agent["sent_by_agents"] > 0
    assert agent["relayed_in_kernel"] == agent["sent_in_kernel"] == agent["delivered_in_kernel"] == 0
    kernel = runs["kernel"]
    assert kernel["relayed_in_kernel"] > kernel["relayed_by_agents"]
    assert kernel["sent_in_kernel"] > kernel["sent_by_agents"] and kernel["delivered_in_kernel"] > 0
    assert all(x["cpu_busy_mean"] is not None for x in runs.values()), runs
    assert (out / "cpu.png").exists()
    assert testing.project_bridges() == [], "bridges left behind"
