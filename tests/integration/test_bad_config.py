"""Bad configuration (issue 12, Reliability 6): every mistake a user can
make in what they give the testbed, an experiment or an agent ends in one
clear line and a non-zero exit, with no traceback and nothing left built.

Covered: topology parameters (family, n/k, not an integer, too large, over
the agent's header limits, over the machine's memory, empty), testbed and experiment options (values
out of range, unknown choices, bad lists, server names not in the topology,
an unwritable results folder), a missing dependency (ovs-vsctl, mnexec or
iperf3 absent from a restricted PATH; the mininet Python module hidden with
`python3 -S`), not being root (`setpriv` to nobody), interface names too
long (an export whose names cannot fit 15 characters; the agent's
--ifname-fmt and --port), an occupied control-socket path (a plain file, a
live listener) and a bridge name of the run that exists already.

For each case: exit status != 0, no "Traceback" in the output, exactly one
non-empty output line naming the program, and the machine-wide inventory
(tests/support/testing.py) unchanged; whatever the case put in place itself
(a file at a socket path, a bridge) is still there. Root only; run under
the machine-wide lock by tests/integration/run.sh (the commands are told so
by DCN_NETNS_LOCKED=1)."""
import json
import os
import shutil
import socket
import subprocess
import tempfile

import pytest

from orchestrator import state
from orchestrator.topology import tool_path
from tests.support import testing

BUILD = testing.build_dir()
PY = "/usr/bin/python3"
ENTRY = os.path.join(testing.REPO, "orchestrator", "dcn_testbed.py")
EXP = os.path.join(testing.REPO, "experiments")
SMALL = ["--topo", "bcube n=2 k=1", "--switch", "lxbr", "--no-smoke", "--no-cli"]
NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not testing.agent_built(BUILD)
                                or "bcube" not in testing.families(BUILD),
                                reason="needs root, a built agent and the bcube family")


def tb(*args):
    return [PY, ENTRY, "--build-dir", BUILD] + list(args)


def ex(name, *args):
    return [PY, os.path.join(EXP, name), "--build-dir", BUILD, "--switch", "lxbr", "--tiny"] + list(args)


def agent(*args):
    """dcn-agent in a fresh empty network namespace (nothing of the box's)."""
    return ["unshare", "--net", tool_path(BUILD, "dcn-agent"), "--topo", "bcube n=2 k=1", "--name", "h00",
            "--foreground"] + list(args)


# (id, command, kind) -- prepare(kind, tmp) returns (extra env, things that must
# still be there afterwards); "{tmp}" in a command is the case's tmp folder
CASES = [
    # topology parameters
    ("topo-family", tb("--topo", "foo n=2"), None),
    ("topo-n", tb("--topo", "bcube n=1 k=1"), None),
    ("topo-k", tb("--topo", "bcube n=2 k=9"), None),
    ("topo-not-integer", tb("--topo", "bcube n=x k=1"), None),
    ("topo-too-large", tb("--topo", "bcube n=64 k=3"), None),
    ("topo-over-agent-limits", tb("--topo", "bcube n=2 k=5"), None),
    ("topo-over-the-memory", tb("--topo", "bcube n=32 k=3"), None),  # a million servers: refused before export
    ("topo-empty", tb("--topo", ""), None),
    # testbed options
    ("tb-mtu", tb("--mtu", "100") + SMALL, None),
    ("tb-link", tb("--server-link", "bw=abc") + SMALL, None),
    ("tb-switch", tb("--switch", "foo"), None),
    ("tb-afxdp-system", tb("--switch", "ovs-afxdp", "--datapath", "system", "--topo", "bcube n=2 k=1"), None),
    ("tb-afxdp-memory", tb("--switch", "ovs-afxdp", "--topo", "bcube n=4 k=3", "--no-smoke", "--no-cli"), None),
    ("tb-hello", tb("--hello-ms", "2") + SMALL, None),
    ("tb-hello-max", tb("--hello-ms", "60001") + SMALL, None),
    ("tb-dead-misses-max", tb("--dead-misses", "101") + SMALL, None),
    ("tb-link-under-1mbps", tb("--server-link", "bw=0.5") + SMALL, None),
    ("tb-link-delay", tb("--server-link", "delay=1ms;reboot") + SMALL, None),
    ("tb-build-dir", [PY, ENTRY, "--build-dir", "/nonexistent"] + SMALL, None),
    ("tb-data-path", tb("--data-path", "full") + SMALL, None),
    # experiment options
    ("ex-mtu", ex("bcube-one-to-one", "--mtu", "100", "--out", "{tmp}/r"), None),
    ("ex-failure-at", ex("bcube-one-to-one", "--failure-at", "3", "--out", "{tmp}/r"), None),
    ("ex-link-mbps", ex("bcube-one-to-one", "--link-mbps", "0", "--out", "{tmp}/r"), None),
    ("ex-topo", ex("bcube-one-to-one", "--topo", "bcube n=1 k=1", "--out", "{tmp}/r"), None),
    ("ex-tree", ex("bcube-one-to-one", "--tree", "tree leaves=0", "--out", "{tmp}/r"), None),
    ("ex-replicas", ex("bcube-one-to-several", "--replicas", "h01,h99", "--out", "{tmp}/r"), None),
    ("ex-mtus", ex("capacity", "--mtus", "1500,abc", "--out", "{tmp}/r"), None),
    ("ex-seconds", ex("bcube-forwarding", "--seconds", "0", "--out", "{tmp}/r"), None),
    ("ex-family", ex("family-one-to-one", "--family", "foo", "--out", "{tmp}/r"), None),
    ("ex-src", ex("family-one-to-one", "--family", "hcn", "--src", "hx", "--out", "{tmp}/r"), None),
    ("ex-out", ex("bcube-one-to-one", "--out", "/proc/nope/r"), None),
    ("ex-data-path", ex("bcube-one-to-one", "--data-path", "on", "--out", "{tmp}/r"), None),
    # missing dependencies
    ("dep-ovs-vsctl", tb("--topo", "bcube n=2 k=1", "--switch", "ovs", "--no-smoke", "--no-cli"), "no-ovs-vsctl"),
    ("dep-mnexec", tb(*SMALL), "no-mnexec"),
    ("dep-iperf3", ex("bcube-one-to-one", "--out", "{tmp}/r"), "no-iperf3"),
    ("dep-mininet-testbed", [PY, "-S", ENTRY, "--build-dir", BUILD] + SMALL, None),
    ("dep-mininet-experiment", [PY, "-S", os.path.join(EXP, "bcube-one-to-one"), "--out", "{tmp}/r"], None),
    # not root
    ("nonroot-testbed", NOBODY + tb(*SMALL), "nobody"),
    ("nonroot-clean", NOBODY + [PY, ENTRY, "--clean"], "nobody"),
    ("nonroot-experiment", NOBODY + ex("bcube-one-to-one", "--out", "{tmp}/r"), "nobody"),
    # interface names too long
    ("ifname-server", [PY, ENTRY, "--build-dir", "{tmp}/fake", "--topo", "tree leaves=1 per_leaf=1",
                       "--no-agent", "--switch", "lxbr", "--no-smoke", "--no-cli"], "fake-long-server"),
    ("ifname-bridge", [PY, ENTRY, "--build-dir", "{tmp}/fake", "--topo", "tree leaves=1 per_leaf=1",
                       "--no-agent", "--switch", "lxbr", "--no-smoke", "--no-cli"], "fake-wide-switch"),
    ("ifname-agent-fmt", agent("--ifname-fmt", "%s-averylongname%u", "--ctl", "{tmp}/a.sock"), None),
    ("ifname-agent-port", agent("--port", "0=averyveryverylongname", "--ctl", "{tmp}/a.sock"), None),
    ("agent-data-path", agent("--data-path", "on", "--ctl", "{tmp}/a.sock"), None),
    # occupied control-socket path, names taken
    ("sock-file-testbed", tb(*SMALL), "sock-file"),
    ("sock-live-testbed", tb(*SMALL), "sock-live"),
    ("sock-file-experiment", ex("bcube-one-to-one", "--topo", "bcube n=4 k=1", "--out", "{tmp}/r"), "sock-file"),
    ("sock-file-agent", agent("--ctl", "{tmp}/a.sock"), "agent-sock-file"),
    ("bridge-name-taken", tb(*SMALL), "bridge-dcn0"),
]


def path_without(tmp, *names):
    """A PATH folder with every command of the usual ones except names."""
    d = os.path.join(tmp, "bin")
    os.makedirs(d)
    for src in ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"):
        try:
            entries = os.listdir(src)
        except OSError:
            continue
        for n in entries:
            if n not in names and not os.path.lexists(os.path.join(d, n)):
                os.symlink(os.path.join(src, n), os.path.join(d, n))
    return d


def fake_build(tmp, mutate):
    """A build folder whose dcn-topo prints a real export changed by mutate."""
    r = subprocess.run([tool_path(BUILD, "dcn-topo"), "export", "tree", "leaves=1", "per_leaf=1"],
                       stdout=subprocess.PIPE, text=True, check=True)
    exp = json.loads(r.stdout)
    mutate(exp)
    d = os.path.join(tmp, "fake")
    os.makedirs(d)
    with open(os.path.join(d, "export.json"), "w") as f:
        json.dump(exp, f)
    with open(os.path.join(d, "dcn-topo"), "w") as f:
        f.write("#!/bin/sh\nexec cat %s\n" % os.path.join(d, "export.json"))
    os.chmod(os.path.join(d, "dcn-topo"), 0o755)


def long_server(exp):
    """A server whose name and id make even the short form x<id>-eth0 too long."""
    old = exp["servers"][0]["name"]
    exp["servers"][0].update(name="averylongservername", id=10 ** 12)
    for l in exp["links"]:
        for k in ("a", "b"):
            if l[k] == old:
                l[k] = "averylongservername"


def wide_switch(exp):
    exp["switches"][0]["ports"] = 10 ** 9   # dcn0-eth999999999: 17 characters


def prepare(kind, tmp, request):
    """Returns (env changes, [paths that must survive])."""
    envx, keep = {}, []
    if kind and kind.startswith("no-"):
        envx["PATH"] = path_without(tmp, kind[3:])
    elif kind == "nobody":
        home = tempfile.mkdtemp(prefix="badcfg-home-")   # a home nobody can write, as a user's own
        os.chmod(home, 0o777)
        request.addfinalizer(lambda: shutil.rmtree(home, ignore_errors=True))
        envx.update(HOME=home, MPLCONFIGDIR=home)
    elif kind == "fake-long-server":
        fake_build(tmp, long_server)
    elif kind == "fake-wide-switch":
        fake_build(tmp, wide_switch)
    elif kind in ("sock-file", "sock-live"):
        path = os.path.join(state.AGENT_SOCK_DIR, "h00.sock")
        assert not os.path.lexists(path), "%s exists before the test" % path
        os.makedirs(state.AGENT_SOCK_DIR, exist_ok=True)
        if kind == "sock-file":
            with open(path, "w") as f:
                f.write("not a socket\n")
        else:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(path)
            s.listen(4)
            request.addfinalizer(s.close)
        request.addfinalizer(lambda: os.path.lexists(path) and os.unlink(path))
        keep.append(path)
    elif kind == "agent-sock-file":
        with open(os.path.join(tmp, "a.sock"), "w") as f:
            f.write("not a socket\n")
        keep.append(os.path.join(tmp, "a.sock"))
    elif kind == "bridge-dcn0":
        subprocess.run(["ip", "link", "add", "dcn0", "type", "bridge"], check=True)
        request.addfinalizer(lambda: subprocess.run(["ip", "link", "del", "dcn0"]))
        keep.append("link:dcn0")
    return envx, keep


def output_lines(text):
    return [l for l in text.splitlines() if l.strip()]


@pytest.mark.parametrize("cmd,kind", [(c, k) for _, c, k in CASES], ids=[i for i, _, _ in CASES])
def test_bad_configuration_is_one_line_and_builds_nothing(tmp_path, request, cmd, kind):
    tmp = str(tmp_path)
    assert state.load() is None, "a state file exists before the test"
    envx, keep = prepare(kind, tmp, request)
    before = testing.inventory()
    cmd = [c.replace("{tmp}", tmp) for c in cmd]
    env = dict(os.environ, DCN_NETNS_LOCKED="1", **envx)
    env.pop(state.KILL_AT_ENV, None)
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env, timeout=60, cwd=tmp)
    out = r.stdout
    assert r.returncode != 0, out
    assert "Traceback" not in out and "Exception" not in out, out
    lines = output_lines(out)
    assert len(lines) == 1, "not one line:\n" + out
    assert lines[0].split(":")[0].split()[-1] in ("dcn_testbed", "dcn-agent") or \
        lines[0].startswith("experiments/"), "the line does not name the program: " + lines[0]
    left = testing.new_since(before, testing.settled_inventory(before, timeout=2))
    assert not left, "left behind: %s\n%s" % (left, out)
    assert state.load() is None
    for k in keep:
        if k.startswith("link:"):
            assert k[5:] in {n for _, n in socket.if_nameindex()}, "%s was removed" % k
        else:
            assert os.path.lexists(k), "%s was removed" % k
    assert not [p for p in os.listdir(tmp) if p.startswith("r")], "results folder made: %s" % os.listdir(tmp)
