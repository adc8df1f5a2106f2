"""Orchestrator layers without the agent: the tree baseline (plain IP),
L2 wiring of a server-centric family, failure injection, teardown and the
killed-run cleanup. Root only; run by tests/integration/run.sh under the
machine-wide lock."""
import os
import signal
import subprocess
import sys
import time

import pytest

from orchestrator import netops, ovs, smoke, state
from orchestrator.testbed import Testbed
from tests.support import testing

BUILD = testing.build_dir()
ENTRY = os.path.join(testing.REPO, "orchestrator", "dcn_testbed.py")
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)")


def quiet(_msg):
    pass


def assert_clean(tb):
    left = tb.leftovers()
    assert left == {"bridges": [], "links": [], "hosts": [], "procs": []}, left
    assert not os.path.exists(tb.state.path)


def forwarder_sched():
    """(policy, priority) of ovs-vswitchd's main thread, or None."""
    pid = ovs.vswitchd_pid() if ovs.vswitchd_running() else None
    return ovs.thread_sched(pid) if pid else None


@pytest.mark.parametrize("switch", ["ovs", "lxbr"])
def test_tree_baseline_reachability_iperf_and_teardown(switch):
    before = forwarder_sched()
    with Testbed(BUILD, "tree leaves=2 per_leaf=3", switch=switch, log=quiet) as tb:
        if switch == "ovs" and tb.datapath == "netdev":  # the run's forwarder at real-time priority
            assert forwarder_sched() == (ovs.FORWARDER_POLICY, ovs.FORWARDER_PRIORITY)
        assert not tb.agent_mode
        assert sorted(tb.hosts) == ["h%d" % i for i in range(6)]
        # plain IP on the single port, docs/interfaces.md numbering
        assert tb.hosts["h4"].IP() == "10.0.0.5"
        rc, out, _ = tb.run_in("h4", ["ip", "-4", "-o", "addr", "show", "dev", "h4-eth0"])
        assert rc == 0 and "10.0.0.5/8" in out
        res = smoke.smoke(tb, log=quiet)
        assert res["ping_ok"] == 30 and not res["ping_failed"]
        assert res["iperf"]["dst"] == "h5"  # other leaf: through both leaves and the root
        assert res["iperf"]["mbps"] > 10
        pid_h0 = tb.hosts["h0"].pid
    assert_clean(tb)
    assert state.proc_start_time(pid_h0) is None
    if switch == "ovs" and before is not None:  # and back at what it was
        assert forwarder_sched() == before


def test_tree_failure_injection_is_logged_and_reversible():
    with Testbed(BUILD, "tree leaves=2 per_leaf=2", log=quiet) as tb:
        ok, bad = smoke.ping_pairs(tb, [("h0", "h3")])
        assert ok and not bad
        tb.link_down("h0", "s0")
        ok, bad = smoke.ping_pairs(tb, [("h0", "h3")], count=1, wait_s=1)
        assert bad and not ok
        assert netops.operstate("h0-eth0", tb.hosts["h0"].pid) == "down"
        tb.link_up("h0", "s0")
        time.sleep(0.2)
        ok, bad = smoke.ping_pairs(tb, [("h0", "h3")])
        assert ok and not bad
        tb.switch_down("root")
        ok, bad = smoke.ping_pairs(tb, [("h0", "h3")], count=1, wait_s=1)
        assert bad
        ok, bad = smoke.ping_pairs(tb, [("h0", "h1")])  # same leaf: unaffected
        assert ok
        tb.switch_up("root")
        tb.server_down("h3")
        assert netops.operstate("h3-eth0", tb.hosts["h3"].pid) == "down"
        tb.server_up("h3")
        time.sleep(0.2)
        ok, bad = smoke.ping_pairs(tb, [("h0", "h3")])
        assert ok and not bad
        kinds = [e.split()[1] for e in tb.events]
        assert kinds == ["link_down", "link_up", "switch_down", "switch_up", "server_down", "server_up"]
        assert all(e[:4].isdigit() and "T" in e.split()[0] for e in tb.events)
    assert_clean(tb)


def test_server_centric_l2_wiring_without_agent():
    if "bcube" not in testing.families(BUILD):
        pytest.skip("bcube family not in the library build")
    with Testbed(BUILD, "bcube n=4 k=1", agent=False, log=quiet) as tb:
        h = tb.hosts["h13"]
        # Mininet interfaces in port order, named <server>-eth<port>
        assert [h.intfs[p].name for p in sorted(h.intfs)] == ["h13-eth0", "h13-eth1"]
        assert h.IP() == "10.0.0.8"  # server id 7 (baddr 1*4+3)
        for b in tb.wiring.bridge.values():
            assert b.startswith("dcn") and len(b) + len("-eth3") <= 15
        res = smoke.smoke(tb, log=quiet)
        assert res["passed"], res
        # each bridge is a standalone OVS switch without controller or STP
        br = tb.wiring.bridge["s1_2"]
        out = subprocess.run(["ovs-vsctl", "get", "bridge", br, "fail_mode", "stp_enable", "datapath_type"],
                             stdout=subprocess.PIPE, text=True).stdout.split()
        assert out[0] == "standalone" and out[1] == "false"
        assert out[2] == tb.datapath
        assert subprocess.run(["ovs-vsctl", "get-controller", br], stdout=subprocess.PIPE,
                              text=True).stdout.strip() == ""
    assert_clean(tb)


@pytest.mark.parametrize("switch", ["ovs", "lxbr"])
def test_switch_side_is_one_device_group_deleted_only_when_all_ours(switch):
    """The run's root-namespace veth ends and Linux bridges share a random
    device group, so that teardown removes them in one request; an
    interface someone else put in that group stops the group delete (and
    survives), and teardown still removes all of ours, one by one."""
    with Testbed(BUILD, "tree leaves=2 per_leaf=2", switch=switch, log=quiet) as tb:
        d = tb.state.data
        group = d["dev_group"]
        ours = set(d["root_links"]) | (set(d["bridges"]) if switch == "lxbr" else set())
        assert set(netops.group_members(group)) == ours
        # nothing outside the group is deleted with it, and a stranger stops it
        stranger = "xgrp%d" % os.getpid()
        subprocess.run(["ip", "link", "add", stranger, "type", "veth", "peer", "name", stranger + "p"], check=True)
        subprocess.run(["ip", "link", "set", "dev", stranger, "group", str(group)], check=True)
        try:
            assert netops.delete_group(group, sorted(ours)) == []
            assert set(ours) <= set(netops.group_members(group))
        except BaseException:
            subprocess.run(["ip", "link", "del", stranger])
            raise
    try:
        assert_clean(tb)
        assert netops.link_exists(stranger), "teardown deleted an interface that is not the run's"
    finally:
        subprocess.run(["ip", "link", "del", stranger])
    # only ours in the group: one request removes every one of them
    with Testbed(BUILD, "tree leaves=2 per_leaf=2", switch=switch, log=quiet) as tb:
        d = tb.state.data
        members = netops.group_members(d["dev_group"])
        assert members and sorted(netops.delete_group(d["dev_group"], d["root_links"] + d["bridges"])) == sorted(members)
        assert not [n for n in members if netops.link_exists(n)]
    assert_clean(tb)


def _start_held(args, timeout=60):
    p = subprocess.Popen([sys.executable, ENTRY, "--build-dir", BUILD, "--hold", "--no-smoke"] + args,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, start_new_session=True)
    lines = []
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        lines.append(line)
        if "holding the testbed up" in line:
            return p, lines
    p.kill()
    p.wait()
    pytest.fail("testbed did not come up:\n" + "".join(lines))


def test_killed_run_then_clean_testbed_leaves_nothing():
    before = forwarder_sched()
    p, _ = _start_held(["--topo", "tree leaves=2 per_leaf=2"])
    data = state.load()
    assert data and data["owner"]["pid"] == p.pid
    assert testing.leftovers_of_state(data)["hosts"]
    # a live run is not cleaned from under its feet
    r = subprocess.run([sys.executable, ENTRY, "--clean"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    assert r.returncode == 1 and "still running" in r.stdout
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    p.stdout.close()
    assert testing.leftovers_of_state(data)  # the kill left things behind
    r = subprocess.run(["make", "-s", "-C", testing.REPO, "clean-testbed"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    assert r.returncode == 0, r.stdout
    assert testing.leftovers_of_state(data) == {}
    assert state.load() is None
    if data.get("ovs_forwarder"):  # the clean gave ovs-vswitchd its policy back
        assert before is None or forwarder_sched() == before


def test_sigterm_tears_down():
    p, _ = _start_held(["--topo", "tree leaves=2 per_leaf=2", "--switch", "lxbr"])
    data = state.load()
    os.kill(p.pid, signal.SIGTERM)
    out, _ = p.communicate(timeout=60)
    assert "teardown done" in out
    assert testing.leftovers_of_state(data) == {}
    assert state.load() is None


def test_bad_spec_creates_nothing():
    r = subprocess.run([sys.executable, ENTRY, "--build-dir", BUILD, "--topo", "tree leaves=0"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert r.returncode == 2 and "leaves" in r.stdout
    assert state.load() is None


def test_topology_the_agent_cannot_run_creates_nothing():
    # Five server ports do not fit the header's 2-bit NHA port: refused up front.
    r = subprocess.run([sys.executable, ENTRY, "--build-dir", BUILD, "--topo", "bcube n=2 k=4"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert r.returncode == 2 and "5 ports" in r.stdout, r.stdout
    assert state.load() is None


def test_named_topologies_resolve_to_buildable_specs():
    from orchestrator import dcn_testbed
    names = sorted(f[:-5] for f in os.listdir(dcn_testbed.TOPOLOGY_DIR) if f.endswith(".topo"))
    assert "bcube-testbed" in names and "mdcube-testbed" in names
    assert dcn_testbed.resolve_topo("bcube-testbed") == "bcube n=4 k=1"
    assert dcn_testbed.resolve_topo("bcube n=2 k=1") == "bcube n=2 k=1"
    topo_bin = os.path.join(BUILD, "agent", "src", "cli", "dcn-topo")
    for name in names:
        spec = dcn_testbed.resolve_topo(name).split()
        r = subprocess.run([topo_bin, "stats", *spec, "--bfs-limit", "0"], capture_output=True, text=True)
        assert r.returncode == 0, (name, r.stderr)
