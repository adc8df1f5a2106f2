"""Guards around OVS. A run's bridges leave OVS's database even when
ovs-vswitchd is gone (ovs.del_bridges); AF_XDP ports are refused beyond the
memory they would need (ovs.afxdp_memory_problem); the plan warns when the
userspace datapath gets more switch ports than it was seen to carry; a
netdev run raises the forwarding thread to real-time priority and gives it
its policy back (at teardown, or at the clean of a killed run). Seen: ovs-vswitchd OOM-killed while adding AF_XDP ports,
and the teardown then left 103 bridges in the database, which the next
ovs-vswitchd would have built again. No root needed: a stand-in ovs-vsctl on
PATH and pid files in a folder of the test's; the machine's OVS daemons are
never touched."""
import json
import os
import subprocess

import pytest

from orchestrator import ovs, state
from orchestrator.testbed import Testbed
from tests.support import testing

# records its arguments; list-br prints the database's bridges, or fails
FAKE_VSCTL = """#!/bin/sh
echo "$*" >> "%(calls)s"
case " $* " in
  *" list-br"*) [ -e "%(db_unreadable)s" ] && exit 1; cat "%(bridges)s";;
esac
exit 0
"""


def dead_pid():
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


@pytest.fixture
def fake_ovs(tmp_path, monkeypatch):
    bindir, rundir = tmp_path / "bin", tmp_path / "run"
    bindir.mkdir()
    rundir.mkdir()
    files = {k: str(tmp_path / k) for k in ("calls", "bridges", "db_unreadable")}
    with open(files["bridges"], "w") as f:
        f.write("dcn0\ndcn1\nsomeone-elses\n")
    vsctl = bindir / "ovs-vsctl"
    vsctl.write_text(FAKE_VSCTL % files)
    vsctl.chmod(0o755)
    monkeypatch.setenv("PATH", "%s:%s" % (bindir, os.environ.get("PATH", "")))
    monkeypatch.setattr(ovs, "RUN_DIR", str(rundir))

    def set_daemons(db, vswitchd):
        for name, alive in (("ovsdb-server", db), ("ovs-vswitchd", vswitchd)):
            (rundir / ("%s.pid" % name)).write_text(str(os.getpid() if alive else dead_pid()))

    def deletes():
        try:
            with open(files["calls"]) as f:
                return [line.split() for line in f if "del-br" in line]
        except FileNotFoundError:
            return []

    return {"set_daemons": set_daemons, "deletes": deletes, "files": files}


def deleted_names(call):
    return [call[i + 1] for i, a in enumerate(call) if a == "del-br"]


def test_with_vswitchd_dead_the_bridges_leave_the_database(fake_ovs):
    fake_ovs["set_daemons"](db=True, vswitchd=False)
    assert ovs.del_bridges(["dcn0", "dcn1", "dcn2"]) == 2
    calls = fake_ovs["deletes"]()
    assert len(calls) == 1, calls
    assert "--no-wait" in calls[0], "with ovs-vswitchd dead, waiting for it would hang: %s" % calls[0]
    assert deleted_names(calls[0]) == ["dcn0", "dcn1"]


def test_with_vswitchd_running_the_delete_waits_for_it(fake_ovs):
    fake_ovs["set_daemons"](db=True, vswitchd=True)
    assert ovs.del_bridges(["dcn1"]) == 1
    calls = fake_ovs["deletes"]()
    assert len(calls) == 1 and "--no-wait" not in calls[0]
    assert deleted_names(calls[0]) == ["dcn1"]


def test_a_database_that_cannot_be_listed_gets_every_name_if_it_exists(fake_ovs):
    fake_ovs["set_daemons"](db=True, vswitchd=False)
    open(fake_ovs["files"]["db_unreadable"], "w").close()
    assert ovs.del_bridges(["dcn0", "dcn7"]) == 2
    calls = fake_ovs["deletes"]()
    assert deleted_names(calls[0]) == ["dcn0", "dcn7"] and "--if-exists" in calls[0]


def test_without_a_database_nothing_is_run(fake_ovs):
    fake_ovs["set_daemons"](db=False, vswitchd=False)
    assert ovs.del_bridges(["dcn0"]) == 0
    assert fake_ovs["deletes"]() == []


def test_other_bridges_are_never_named(fake_ovs):
    fake_ovs["set_daemons"](db=True, vswitchd=True)
    ovs.del_bridges(["dcn0", "dcn1"])
    assert all("someone-elses" not in c for c in fake_ovs["deletes"]())


def test_afxdp_ports_beyond_the_memory_are_refused():
    gib = 1024 * 1024
    assert ovs.afxdp_memory_problem(32, 24 * gib) is None  # BCube_1 n=4: 2.5 GiB
    why = ovs.afxdp_memory_problem(1024, 24 * gib)  # BCube_3 n=4: 80 GiB
    assert why and "1024 AF_XDP ports" in why and "80.0 GiB" in why
    assert ovs.afxdp_memory_problem(32, 3 * gib) is not None


@pytest.mark.parametrize("spec,ports,warned", [("bcube n=4 k=2", 192, False), ("bcube n=4 k=3", 1024, True)])
def test_the_plan_warns_beyond_the_ports_ovs_netdev_was_seen_to_carry(spec, ports, warned):
    build = testing.build_dir()
    if not testing.agent_built(build) or "bcube" not in testing.families(build):
        pytest.skip("needs a built agent and the bcube family")
    lines = []
    tb = Testbed(build, spec, switch="ovs", datapath="netdev", log=lines.append)
    tb.preflight()  # builds nothing
    tb._print_plan()
    warnings = [l for l in lines if "warning" in l]
    assert bool(warnings) == warned, lines
    if warned:
        assert "%d switch ports" % ports in warnings[0] and "--switch lxbr" in warnings[0]


# ---- the userspace datapath's forwarding thread at real-time priority ----
# A stand-in ovs-vswitchd (a sleeping child whose pid is in the fake pid
# file) takes the policy; the machine's own daemon is never touched.

@pytest.fixture
def stand_in_vswitchd(fake_ovs, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root (real-time priority)")
    p = subprocess.Popen(["sleep", "60"])
    (tmp_path / "run" / "ovs-vswitchd.pid").write_text(str(p.pid))
    yield p
    p.kill()
    p.wait()


def netdev_testbed(tmp_path, **kw):
    """A Testbed whose start() has got as far as its state file (nothing is
    built): what _raise_ovs_forwarder needs."""
    lines = []
    tb = Testbed("build", "bcube n=4 k=1", switch="ovs", datapath="netdev", log=lines.append,
                 state_path=str(tmp_path / "state.json"), **kw)
    return tb, lines


def sched(pid):
    return os.sched_getscheduler(pid), os.sched_getparam(pid).sched_priority


def test_a_netdev_run_raises_the_forwarder_and_gives_its_policy_back(stand_in_vswitchd, tmp_path):
    tb, lines = netdev_testbed(tmp_path)
    tb._raise_ovs_forwarder()
    assert sched(stand_in_vswitchd.pid) == (os.SCHED_RR, 1), lines
    rec = json.load(open(str(tmp_path / "state.json")))["ovs_forwarder"]
    assert rec["pid"] == stand_in_vswitchd.pid and (rec["policy"], rec["priority"]) == (os.SCHED_OTHER, 0)
    tb._restore_ovs_forwarder()
    assert sched(stand_in_vswitchd.pid) == (os.SCHED_OTHER, 0)
    assert any("back at SCHED_OTHER 0" in l for l in lines), lines


def test_the_clean_of_a_killed_run_gives_the_policy_back(stand_in_vswitchd, tmp_path):
    tb, _ = netdev_testbed(tmp_path)
    tb._raise_ovs_forwarder()
    data = json.load(open(str(tmp_path / "state.json")))  # as `make clean-testbed` finds it
    state.clean_from_state(data, log=lambda m: None)
    assert sched(stand_in_vswitchd.pid) == (os.SCHED_OTHER, 0)


def test_a_policy_changed_by_someone_else_meanwhile_is_left_alone(stand_in_vswitchd, tmp_path):
    tb, _ = netdev_testbed(tmp_path)
    tb._raise_ovs_forwarder()
    os.sched_setscheduler(stand_in_vswitchd.pid, os.SCHED_FIFO, os.sched_param(5))
    tb._restore_ovs_forwarder()
    assert sched(stand_in_vswitchd.pid) == (os.SCHED_FIFO, 5)


def test_a_recycled_pid_is_not_touched(stand_in_vswitchd, tmp_path):
    tb, _ = netdev_testbed(tmp_path)
    tb._raise_ovs_forwarder()
    tb.state.data["ovs_forwarder"]["start"] -= 1  # another process than the one raised
    tb._restore_ovs_forwarder()
    assert sched(stand_in_vswitchd.pid) == (os.SCHED_RR, 1)


@pytest.mark.parametrize("kw", [{"ovs_rt": False}, {"datapath": "system"}, {"switch": "lxbr"}])
def test_only_a_netdev_run_that_wants_it_raises_the_forwarder(stand_in_vswitchd, tmp_path, kw):
    lines = []
    args = dict(switch="ovs", datapath="netdev", log=lines.append, state_path=str(tmp_path / "state.json"))
    args.update(kw)
    if args["switch"] == "lxbr":
        args.pop("datapath")
    tb = Testbed("build", "bcube n=4 k=1", **args)
    tb._raise_ovs_forwarder()
    assert sched(stand_in_vswitchd.pid) == (os.SCHED_OTHER, 0)
    assert "ovs_forwarder" not in tb.state.data
