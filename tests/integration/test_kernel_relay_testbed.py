"""The kernel relay from the user's side: the testbed starts every agent
with `--kernel-relay full` unless told otherwise (`dcn_testbed --kernel-relay
[off|on|full]`, so `sudo make testbed TESTBED_ARGS="--kernel-relay off"`), the smoke check's pings cross relays with it, and the teardown leaves
nothing; an experiment run with `--kernel-relay on` records it and writes
beside, not over, the committed results. Root only; run by
tests/integration/run.sh under the machine-wide lock."""
import json
import os
import signal
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from orchestrator import state, testing  # noqa: E402
from tb_harness import start_held  # noqa: E402

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


@pytest.mark.parametrize("flag,mode", [([], "full"), (["--kernel-relay"], "on"), (["--kernel-relay", "full"], "full"),
                                       (["--kernel-relay", "off"], "off")])
def test_testbed_flag_reaches_every_agent_and_leaves_nothing(flag, mode):
    """Without the option the agents run full (the default); --kernel-relay
    alone is on; off attaches nothing."""
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
                assert n == (0 if mode == "off" else 1), "%s-eth%d: %d programs at TCX ingress" % (name, port, n)
            if mode == "full":  # the two ends: dcn0's egress, the segmenting veth's far end
                assert (tcx(host["pid"], "dcn0", "egress"), tcx(host["pid"], "dcn0g")) == (1, 1), name
            else:
                assert tcx(host["pid"], "dcn0", "egress") == 0, name
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(120)
        p.stdout.close()
    assert testing.leftovers_of_state(data) == {}
    assert state.load() is None


def test_experiment_with_kernel_relay_records_it(tmp_path):
    """--kernel-relay full through shaped Mininet links: the run records it,
    and the relay and the two ends carried the traffic in the kernel."""
    out = tmp_path / "fwd"
    r = subprocess.run([os.path.join(testing.REPO, "experiments", "bcube-forwarding"), "--tiny", "--out", str(out),
                        "--switch", "lxbr", "--link-mbps", "20", "--mtus", "9000", "--seconds", "12",
                        "--kernel-relay", "full", "--build-dir", BUILD],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert r.returncode in (0, 3), r.stdout[-3000:]
    with open(out / "summary.json") as f:
        s = json.load(f)
    assert s["kernel_relay"] == "full"
    assert s["experiment"] == "bcube-forwarding"
    with open(out / "raw" / "run-01" / "summary.json") as f:   # the run's own figures, valid or not
        m = json.load(f)["measured"]
    agent = [x for x in m["rows"] if x["mode"] == "agent"]
    assert agent and all(x["flows_ok"] and x["forwarding_mbps"] >= 0.8 * m["expected_forwarding_mbps"]
                         for x in agent), agent
    assert testing.project_bridges() == [], "bridges left behind"


def test_kernel_relay_all_to_all_runs_every_mode(tmp_path):
    """experiments/kernel-relay-all-to-all at its smallest: one round of
    each mode; the kernel relay's run relays in the kernel, the agent's does
    not, the full one also sends and delivers there; --kernel-relay on is
    refused (the script runs every mode itself)."""
    exe = os.path.join(testing.REPO, "experiments", "kernel-relay-all-to-all")
    r = subprocess.run([exe, "--kernel-relay", "on", "--build-dir", BUILD], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=60)
    assert r.returncode == 2 and "runs every mode itself" in r.stdout, r.stdout
    out = tmp_path / "kra"
    # 4 s of traffic leaves about 2 s of steady window: a few CPU samples
    r = subprocess.run([exe, "--rounds", "1", "--seconds", "4", "--link-mbps", "10", "--out", str(out),
                        "--build-dir", BUILD], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert r.returncode in (0, 3), r.stdout[-3000:]
    with open(out / "summary.json") as f:
        runs = {x["mode"]: x for x in json.load(f)["measured"]["runs"]}
    assert runs["agent"]["relayed_in_kernel"] == 0 and runs["agent"]["relayed_by_agents"] > 0
    assert runs["kernel-relay"]["relayed_in_kernel"] > runs["kernel-relay"]["relayed_by_agents"]
    assert runs["kernel-relay"]["sent_in_kernel"] == 0
    full = runs["kernel-full"]
    assert full["relayed_in_kernel"] > full["relayed_by_agents"] and full["sent_in_kernel"] > full["sent_by_agents"]
    assert full["delivered_in_kernel"] > 0
    assert all(x["cpu_busy_mean"] is not None for x in runs.values()), runs
    assert (out / "cpu.png").exists()
    assert testing.project_bridges() == [], "bridges left behind"
