"""Cleanup under abuse (issue 12, Reliability 5): the orchestrator, or an
experiment over it, is killed with SIGKILL at seeded random points of the
bring-up, of the traffic, of the teardown and of the clean itself; `make clean-testbed`
(`dcn_testbed.py --clean`) must then remove everything that run made, and
only that.

What the run made is not taken from its state file (a leak the state file
misses is exactly what this test looks for): the machine is inventoried
before the run and after the clean, and nothing may differ: interfaces and
bridges of the root namespace, OVS bridges, named namespaces, network
namespaces held by any process, agent/iperf3/Mininet processes, files under
/run/dcn (control sockets) and /run/dcn-testbed (state file, pidfiles),
batch files in /tmp. A Linux bridge, a named namespace with a process in
it, and (when OVS runs) an OVS bridge, all made by the test under names
without the project's prefixes, must survive every clean.

Kill points: the stages the orchestrator names (`DCN_KILL_AT=stage`
makes it SIGKILL itself there, orchestrator/state.py kill_point), plus
random delays after the start. DCN_ABUSE_SEED picks the switch kind per
point and the delays (default 12). Root only; run under the machine-wide
lock by tests/integration/run.sh (the runs are told so by
DCN_NETNS_LOCKED=1 and do not take the lock again)."""
import os
import random
import signal
import socket
import subprocess
import sys

import pytest

from orchestrator import ovs, state
from tests.support import testing

BUILD = testing.build_dir()
ENTRY = os.path.join(testing.REPO, "orchestrator", "dcn_testbed.py")
EXPERIMENT = os.path.join(testing.REPO, "experiments", "bcube-one-to-one")
SPEC = "bcube n=2 k=1"
SEED = int(os.environ.get("DCN_ABUSE_SEED", "12"))
RNG = random.Random(SEED)
HAVE_OVS = bool(subprocess.run(["sh", "-c", "command -v ovs-vsctl"], stdout=subprocess.DEVNULL).returncode == 0)

# the orchestrator's named points, in the order a run reaches them
BRINGUP = ["state-saved", "hosts-half", "hosts", "links", "switches", "host_config", "agents-half",
           "agents_start", "agents_ready"]
TEARDOWN = ["teardown-stop_processes", "teardown-stop_namespace_processes", "teardown-delete_bridges",
            "teardown-stop_hosts", "teardown-delete_root_links", "teardown-remove_sockets"]
# every bring-up point, two teardown points and three random delays, each on
# a switch kind the seed picks (OVS only where it is installed)
POINTS = ([("stage", s) for s in BRINGUP] + [("stage", s) for s in RNG.sample(TEARDOWN, 2)] +
          [("delay", round(RNG.uniform(0.3, 1.2), 2)) for _ in range(3)])
SWITCH = [RNG.choice(["lxbr", "ovs"]) if HAVE_OVS else "lxbr" for _ in POINTS]
EXP_DELAY = round(RNG.uniform(1.5, 6.0), 2)

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not testing.agent_built(BUILD)
                                or "bcube" not in testing.families(BUILD),
                                reason="needs root, a built agent and the bcube family")


def env(**kw):
    e = dict(os.environ, DCN_NETNS_LOCKED="1")
    e.pop(state.KILL_AT_ENV, None)
    e.update(kw)
    return e


# ------------------------------------------------------- foreign objects
@pytest.fixture(scope="module")
def foreign():
    """A Linux bridge, a named namespace with a process inside, and (with
    OVS) an OVS bridge, under names without the project's prefixes."""
    tag = "%d" % (os.getpid() % 100000)
    br, ns, obr = "keepbr" + tag, "keepns" + tag, "keepovs" + tag
    subprocess.run(["ip", "link", "add", br, "type", "bridge"], check=True)
    subprocess.run(["ip", "netns", "add", ns], check=True)
    # started directly under `ip netns exec`, so its pid is the sleep's
    sleeper = subprocess.Popen(["ip", "netns", "exec", ns, "sleep", "600"])
    made_ovs, ovs_started = False, []
    if HAVE_OVS:
        ovs_started = state.ovs_daemon_refs(ovs.ensure_running(lambda _m: None))
        subprocess.run(["ovs-vsctl", "--may-exist", "add-br", obr], check=True)
        made_ovs = True
    yield {"bridge": br, "netns": ns, "sleeper": sleeper, "ovs": obr if made_ovs else None}
    sleeper.kill()
    sleeper.wait()
    if made_ovs:
        subprocess.run(["ovs-vsctl", "--if-exists", "del-br", obr])
    state.stop_ovs_started({"ovs_started": ovs_started}, lambda _m: None)  # the daemons this test started
    subprocess.run(["ip", "netns", "del", ns])
    subprocess.run(["ip", "link", "del", br])


def assert_foreign_alive(f):
    links = {n for _, n in socket.if_nameindex()}
    assert f["bridge"] in links, "the test's own bridge %s was removed" % f["bridge"]
    assert f["netns"] in os.listdir("/run/netns"), "the test's own namespace %s was removed" % f["netns"]
    assert f["sleeper"].poll() is None, "the process in the test's own namespace was killed"
    if f["ovs"]:
        assert f["ovs"] in ovs.list_bridges(), "the test's own OVS bridge %s was removed" % f["ovs"]


def clean():
    r = subprocess.run([sys.executable, ENTRY, "--clean"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env(), timeout=60)
    assert r.returncode == 0, r.stdout
    assert "Traceback" not in r.stdout, r.stdout
    return r.stdout.strip()


def killed_run(cmd, how, what, timeout=60):
    """Start cmd; with how == "stage" it kills itself at stage `what`, with
    "delay" the test SIGKILLs it after `what` seconds. Returns its output."""
    e = env(**({state.KILL_AT_ENV: what} if how == "stage" else {}))
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         env=e, text=True)
    if how == "delay":
        try:
            p.wait(what)
        except subprocess.TimeoutExpired:
            os.kill(p.pid, signal.SIGKILL)
    out, _ = p.communicate(timeout=timeout)
    assert p.returncode == -signal.SIGKILL, "the run ended before the kill point %s %s:\n%s" % (
        how, what, out[-2000:])
    return out


def purge(before, after):
    """After a failed check: remove what the clean left (new processes by
    pid and start time, new links, OVS bridges and files), so that one
    failure does not spill into the next case."""
    for pid, start, _ in after["procs"] - before["procs"]:
        if state.proc_start_time(pid) == start:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for b in after["ovs_bridges"] - before["ovs_bridges"]:
        subprocess.run(["ovs-vsctl", "--if-exists", "del-br", b])
    for n in after["links"] - before["links"] - after["ovs_bridges"] - {"ovs-netdev", "ovs-system"}:
        subprocess.run(["ip", "link", "del", n], stderr=subprocess.DEVNULL)
    for p in after["files"] - before["files"]:
        try:
            os.unlink(p)
        except OSError:
            pass


def check_clean(before, f, label, out):
    msg = clean()
    after = testing.settled_inventory(before)
    left = testing.new_since(before, after)
    if left:
        purge(before, after)
    assert not left, "%s: left after make clean-testbed: %s\nclean said: %s\nrun said:\n%s" % (
        label, left, msg, out[-1500:])
    assert state.load() is None
    assert_foreign_alive(f)
    return msg


@pytest.mark.parametrize("point,switch", list(zip(POINTS, SWITCH)),
                         ids=["%s=%s-%s" % (p[0], p[1], s) for p, s in zip(POINTS, SWITCH)])
def test_testbed_killed_then_cleaned(foreign, point, switch):
    before = testing.inventory()
    how, what = point
    # a delay lands in the bring-up (about 1 s here) or in the held testbed
    out = killed_run([sys.executable, ENTRY, "--build-dir", BUILD, "--topo", SPEC, "--switch", switch,
                      "--no-smoke", "--no-cli", "--hello-ms", "50"] + (["--hold"] if how == "delay" else []),
                     how, what)
    check_clean(before, foreign, "%s %s on %s" % (how, what, switch), out)


# the clean itself killed after each of its steps; the next clean finishes
CLEAN_STEPS = ["clean-procs", "clean-bridges", "clean-hosts", "clean-links"]
CLEAN_SWITCH = [RNG.choice(["lxbr", "ovs"]) if HAVE_OVS else "lxbr" for _ in CLEAN_STEPS]


@pytest.mark.parametrize("step,switch", list(zip(CLEAN_STEPS, CLEAN_SWITCH)),
                         ids=["%s-%s" % (c, s) for c, s in zip(CLEAN_STEPS, CLEAN_SWITCH)])
def test_clean_killed_then_cleaned_again(foreign, step, switch):
    """A testbed killed once up (agents ready), then `make clean-testbed`
    killed after one of its steps: a second clean removes the rest, since
    the state file goes only once everything it lists is gone."""
    before = testing.inventory()
    out = killed_run([sys.executable, ENTRY, "--build-dir", BUILD, "--topo", SPEC, "--switch", switch,
                      "--no-smoke", "--no-cli", "--hello-ms", "50"], "stage", "agents_ready")
    out += killed_run([sys.executable, ENTRY, "--clean"], "stage", step)
    kept = state.load() is not None
    if not kept:  # nothing left to find what the run made: remove it by inventory
        purge(before, testing.settled_inventory(before))
    assert kept, "the killed clean removed the state file:\n" + out[-1500:]
    check_clean(before, foreign, "clean killed at %s on %s" % (step, switch), out)


@pytest.mark.parametrize("how,what", [("stage", "flows"), ("delay", EXP_DELAY)],
                         ids=["stage=flows", "delay=%s" % EXP_DELAY])
def test_experiment_killed_then_cleaned(foreign, tmp_path, how, what):
    """An experiment (bcube-one-to-one, tiny) killed with its traffic running
    (iperf3 servers and clients in the hosts, agents relaying), or after a
    seeded delay somewhere in its bring-ups, traffic or teardowns."""
    before = testing.inventory()
    out = killed_run([EXPERIMENT, "--tiny", "--switch", "lxbr", "--link-mbps", "20", "--hello-ms", "100",
                      "--build-dir", BUILD, "--out", str(tmp_path / "r")], how, what, timeout=120)
    check_clean(before, foreign, "experiment %s %s" % (how, what), out)
