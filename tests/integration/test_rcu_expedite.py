"""Expedited RCU while the agents attach their BPF links (orchestrator/rcu.py):
the knob's bookkeeping on a file of the test's own, and on the machine's knob
a testbed killed while its agents start (the knob left on, the value found in
the state file), then cleaned (the knob back)."""
import json
import os
import signal
import subprocess
import sys

import pytest

from orchestrator import rcu, state
from orchestrator.agents import data_path_of
from tests.support import testing

BUILD = testing.build_dir()
ENTRY = os.path.join(testing.REPO, "orchestrator", "dcn_testbed.py")


def knob(tmp_path, value):
    p = tmp_path / "rcu_expedited"
    p.write_text("%d\n" % value)
    return str(p)


def test_expedite_and_restore(tmp_path):
    p = knob(tmp_path, 0)
    assert rcu.expedite(p) == 0
    assert rcu.read(p) == 1
    assert rcu.restore(0, p)
    assert rcu.read(p) == 0


def test_already_on_is_left_alone(tmp_path):
    p = knob(tmp_path, 1)
    assert rcu.expedite(p) is None  # someone else's setting: nothing to give back
    assert not rcu.restore(None, p)
    assert rcu.read(p) == 1


def test_restore_leaves_a_value_changed_since(tmp_path):
    p = knob(tmp_path, 0)
    rcu.expedite(p)
    with open(p, "w") as f:
        f.write("0\n")  # turned off by someone else meanwhile
    assert not rcu.restore(0, p)
    assert rcu.read(p) == 0


def test_no_knob(tmp_path):
    p = str(tmp_path / "absent")
    assert rcu.read(p) is None
    assert rcu.expedite(p) is None


def test_only_agents_with_tcx_links():
    """The testbed expedites only for agents whose data path attaches TCX
    links (the kernel's): the data path their options give, read as the
    agent reads them (orchestrator/agents.py)."""
    assert data_path_of(["--data-path", "kernel"]) == "kernel"
    assert data_path_of(["--mtu", "1500", "--data-path", "agent"]) == "agent"
    assert data_path_of(["--data-path=agent"]) == "agent"
    assert data_path_of([]) == "kernel"  # the agent's default
    assert data_path_of(["--data-path", "agent", "--seed", "1", "--data-path", "kernel"]) == "kernel"  # the last
    assert data_path_of(["--data-path"]) == "kernel"


@pytest.mark.skipif(os.geteuid() != 0 or not testing.agent_built(BUILD) or "bcube" not in testing.families(BUILD),
                    reason="needs root, a built agent and the bcube family")
def test_killed_while_agents_start_then_cleaned():
    if rcu.read() != 0:
        pytest.skip("/sys/kernel/rcu_expedited is absent or already on")
    env = dict(os.environ, DCN_NETNS_LOCKED="1", **{state.KILL_AT_ENV: "agents_start"})
    r = subprocess.run([sys.executable, ENTRY, "--build-dir", BUILD, "--topo", "bcube n=2 k=1", "--switch", "lxbr",
                        "--no-cli", "--data-path", "kernel"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=env, timeout=120)
    try:
        assert r.returncode == -signal.SIGKILL, r.stdout[-2000:]
        assert rcu.read() == 1, "the agents started without expedited grace periods"
        with open(state.STATE_FILE) as f:
            assert json.load(f)["rcu_expedited"] == {"before": 0}
    finally:
        c = subprocess.run([sys.executable, ENTRY, "--clean"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, env=dict(os.environ, DCN_NETNS_LOCKED="1"), timeout=120)
    assert c.returncode == 0, c.stdout
    assert rcu.read() == 0, "make clean-testbed left /sys/kernel/rcu_expedited on"
    assert state.load() is None
