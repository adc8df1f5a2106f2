"""The OVS daemons a testbed run starts are stopped again by its teardown
(and by the clean of a killed run), by PID, once no bridge is left on them;
daemons that were running before the run, or that carry someone else's
bridge, are left alone (orchestrator/state.py, stop_ovs_started). An idle
ovs-vswitchd left running follows every link change on the box and took a
quarter of the CPU while a later 2048-server Linux-bridge run shaped its
ports (docs/testbed.md). Needs root and Open vSwitch; skipped while OVS
daemons that this test did not start are running (they are not ours to
stop)."""
import os
import subprocess
import sys

import pytest

from orchestrator import ovs, state
from tests.support import testing

ENTRY = os.path.join(testing.REPO, "orchestrator", "dcn_testbed.py")
HAVE_OVS = subprocess.run(["sh", "-c", "command -v ovs-vsctl"], stdout=subprocess.DEVNULL).returncode == 0
pytestmark = [pytest.mark.skipif(os.geteuid() != 0, reason="needs root"),
              pytest.mark.skipif(not HAVE_OVS, reason="needs Open vSwitch")]
DAEMONS = ("ovsdb-server", "ovs-vswitchd")


def running():
    """{daemon: pid} of the OVS daemons alive now."""
    out = {}
    for n in DAEMONS:
        pid = ovs.daemon_pid(n)
        if pid is not None and os.path.exists("/proc/%d" % pid):
            out[n] = pid
    return out


@pytest.fixture
def no_ovs_running():
    if running():
        pytest.skip("OVS daemons are running that this test did not start")
    yield
    for n, pid in running().items():  # whatever a failed case left
        state.stop_processes([state.proc_ref(pid, n)])


def entry(*args, **env):
    """dcn_testbed.py with args (default: a small OVS testbed without
    agents, up and down), its output merged."""
    args = args or ("--build-dir", testing.build_dir(), "--topo", "bcube n=2 k=1", "--switch", "ovs",
                    "--no-agent", "--no-smoke", "--no-cli")
    return subprocess.run([sys.executable, ENTRY] + list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=300, env=dict(os.environ, DCN_NETNS_LOCKED="1", **env))


def run_testbed():
    r = entry()
    assert r.returncode == 0, r.stdout
    return r.stdout


def test_daemons_the_run_started_are_stopped(no_ovs_running):
    out = run_testbed()
    assert "*** started ovsdb-server, ovs-vswitchd" in out, out
    assert "*** stopped ovs-vswitchd, ovsdb-server (started by this run)" in out, out
    assert running() == {}, out


def test_daemons_found_running_are_left_alone(no_ovs_running):
    started = ovs.ensure_running(lambda _m: None)
    before = running()
    assert sorted(started) == sorted(DAEMONS) and len(before) == 2
    out = run_testbed()
    assert "*** started" not in out and "*** stopped" not in out, out
    assert running() == before, out


def test_a_foreign_bridge_keeps_them_running(no_ovs_running):
    started = ovs.ensure_running(lambda _m: None)
    refs = state.ovs_daemon_refs(started)
    br = "keepovs%d" % (os.getpid() % 100000)
    subprocess.run(["ovs-vsctl", "--may-exist", "add-br", br], check=True)
    try:
        lines = []
        assert state.stop_ovs_started({"ovs_started": refs}, lines.append) == 0
        assert len(running()) == 2 and br in lines[0], lines
    finally:
        subprocess.run(["ovs-vsctl", "--if-exists", "del-br", br], check=True)
    assert state.stop_ovs_started({"ovs_started": refs}, lambda _m: None) == 2
    assert running() == {}


@pytest.mark.parametrize("stage", ["ovs-started", "switches"])
def test_clean_of_a_killed_run_stops_them(no_ovs_running, stage):
    # killed right after it started them, or once its bridges exist: the
    # state file names the daemons it started
    r = entry(**{state.KILL_AT_ENV: stage})
    assert r.returncode != 0
    assert len(running()) == 2, r.stdout
    c = entry("--clean")
    assert c.returncode == 0, c.stdout
    assert running() == {}, c.stdout
