"""Cluster mode (--cluster, orchestrator/cluster.py) on one box playing two
machines: two network namespaces made here, joined by a veth pair (the
"underlay", 198.18.0.1 and .2, MTU 1500), each running an sshd of this
test's own (its config, host key, authorized key and known_hosts in a
temporary folder; started here, ended by pid). The machines share this
box's kernel, its pid space and its file system, which is what lets one box
stand for two: a Mininet host made over ssh in machine B is a namespace of
this kernel, reached by both its machine's ssh and this process.

The orchestrator runs inside machine A and reaches both machines over ssh
(A's own sshd too), so every host, bridge and tunnel is made the remote
way. BCube_1 n=4 over Linux bridges comes up across the two, each BCube_0
on one machine: 8 of its 32 links cross, as VXLAN tunnels, named at start;
the smoke check passes; then the one-to-one experiment at a tiny size.
After each run, nothing of it is left on either machine (their interfaces
are their veth and lo only) nor on the box (tests/support/testing.py's
inventory). Root only; under the machine-wide lock (run.sh)."""
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from tests.support import testing

REPO = testing.REPO
SSHD = "/usr/sbin/sshd"
IPS = ("198.18.0.1", "198.18.0.2")
CROSS = re.compile(r"cross: (\S+) port (\d+) \((\S+)\) <-> (\S+) port (\d+) \((\S+)\)")

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not testing.agent_built(testing.build_dir()),
                                reason="needs root and a built agent")


def sh(*cmd, check=True, **kw):
    return subprocess.run(list(cmd), check=check, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def ns_links(ns):
    return sorted(line.split(":")[1].strip().split("@")[0]
                  for line in sh("ip", "-n", ns, "-o", "link", "show").stdout.splitlines())


class Machines:
    """Two namespaces with an sshd each, and the ssh client config that
    reaches them; stop() removes all of it (only what start() made)."""

    def __init__(self):
        tag = "%d" % (os.getpid() % 100000)
        self.ns = ["dcnclA" + tag, "dcnclB" + tag]
        self.veth = ["dcA" + tag, "dcB" + tag]
        self.dir = tempfile.mkdtemp(prefix="dcn-cluster-")
        self.sshd = []
        self.made_ns = []
        self.made_privsep = False
        self.ssh_config = os.path.join(self.dir, "ssh_config")

    def start(self):
        if not os.path.exists(SSHD):
            pytest.fail("%s missing: the cluster test needs openssh-server (sudo make deps)" % SSHD)
        d = self.dir
        os.chmod(d, 0o700)
        for k in ("host_key", "id_ed25519"):
            sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(d, k))
        shutil.copy(os.path.join(d, "id_ed25519.pub"), os.path.join(d, "authorized_keys"))
        with open(os.path.join(d, "host_key.pub")) as f:
            hostkey = " ".join(f.read().split()[:2])
        with open(os.path.join(d, "known_hosts"), "w") as f:
            f.write("".join("%s %s\n" % (ip, hostkey) for ip in IPS))
        with open(self.ssh_config, "w") as f:
            f.write("Host *\n  User root\n  IdentityFile %s/id_ed25519\n  IdentitiesOnly yes\n"
                    "  UserKnownHostsFile %s/known_hosts\n  GlobalKnownHostsFile /dev/null\n"
                    "  StrictHostKeyChecking yes\n" % (d, d))
        if not os.path.isdir("/run/sshd"):  # sshd's privilege separation folder
            os.makedirs("/run/sshd", mode=0o755)
            self.made_privsep = True
        for ns in self.ns:
            sh("ip", "netns", "add", ns)
            self.made_ns.append(ns)
        sh("ip", "link", "add", self.veth[0], "netns", self.ns[0], "type", "veth", "peer", "name", self.veth[1],
           "netns", self.ns[1])
        for ns, veth, ip in zip(self.ns, self.veth, IPS):
            sh("ip", "-n", ns, "addr", "add", ip + "/30", "dev", veth)
            sh("ip", "-n", ns, "link", "set", veth, "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        for i, (ns, ip) in enumerate(zip(self.ns, IPS)):
            cfg = os.path.join(d, "sshd_config_%d" % i)
            with open(cfg, "w") as f:
                f.write("ListenAddress %s\nPort 22\nHostKey %s/host_key\nPidFile %s/sshd_%d.pid\n"
                        "AuthorizedKeysFile %s/authorized_keys\nPermitRootLogin prohibit-password\n"
                        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
                        "UseDNS no\nMaxSessions 200\nMaxStartups 200\nAllowStreamLocalForwarding yes\n"
                        "PermitTTY yes\nLogLevel ERROR\n"
                        # bash run by sshd sources ~/.bashrc unless SHLVL says it is nested: a
                        # root .bashrc that runs `pyenv init` cost 0.5 s per command and made the
                        # four cluster tests take 630 s instead of 150 s on such a box
                        "SetEnv SHLVL=1\n" % (ip, d, d, i, d))
            # nsenter --net only: the machine keeps this box's mount namespace
            p = subprocess.Popen(["nsenter", "--net=/run/netns/" + ns, SSHD, "-D", "-e", "-f", cfg],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=open(os.path.join(d, "sshd_%d.log" % i), "w"))
            self.sshd.append(p)
        for ip in IPS:  # both answer before the test goes on
            deadline = time.time() + 15
            while True:
                r = self.in_a("ssh", "-F", self.ssh_config, "-o", "BatchMode=yes", "-n", "root@" + ip, "true",
                              check=False, timeout=20)
                if r.returncode == 0:
                    break
                if time.time() > deadline:
                    pytest.fail("sshd at %s does not answer: %s %s" % (ip, r.stderr, self.sshd_logs()))
                time.sleep(0.2)

    def sshd_logs(self):
        out = ""
        for i in range(2):
            try:
                with open(os.path.join(self.dir, "sshd_%d.log" % i)) as f:
                    out += f.read()[-500:]
            except OSError:
                pass
        return out

    def in_a(self, *cmd, **kw):
        """cmd run in machine A's network namespace (the orchestrator's)."""
        return sh("nsenter", "--net=/run/netns/" + self.ns[0], *cmd, **kw)

    def cluster_args(self, local=False):
        return ["--cluster", ",".join(("localhost",) + IPS[1:] if local else IPS), "--cluster-user", "root",
                "--cluster-ssh-config", self.ssh_config]

    def bare(self):
        """What each machine should hold between runs: lo and its veth."""
        return {ns: ns_links(ns) for ns in self.ns}

    def stop(self):
        for p in self.sshd:  # by pid: SIGTERM, then SIGKILL
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        for ns in self.made_ns:
            sh("ip", "netns", "del", ns, check=False)
        if self.made_privsep:
            try:
                os.rmdir("/run/sshd")
            except OSError:
                pass
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def machines():
    m = Machines()
    try:
        m.start()
        yield m
    finally:
        m.stop()


def left_behind(before):
    """What the run left on the box (tests/support/testing.py's inventory),
    but processes of the root namespace: the test starts nothing there (its
    runs are in machine A), and the box is shared (another user's build of
    dcn-agent matches the inventory's watched names)."""
    left = testing.new_since(before, testing.settled_inventory(before))
    home = testing.state.netns_of(os.getpid())
    procs = [p for p in left.pop("procs", []) if testing.state.netns_of(int(p[1:].split(",")[0])) not in (None, home)]
    if procs:
        left["procs"] = procs
    return left


def orchestrator_env():
    return dict(os.environ, DCN_NETNS_LOCKED="1", PYTHONUNBUFFERED="1")


@pytest.mark.parametrize("first", ["ssh", "localhost"])
def test_bcube_across_two_machines(machines, tmp_path, first):
    """first: machine A reached over ssh too, or as `localhost` (Mininet's
    name for the machine the run is on: made there directly, no ssh)."""
    bare = machines.bare()
    before = testing.inventory()
    out = tmp_path / "testbed.json"
    t0 = time.time()
    r = machines.in_a("/usr/bin/python3", os.path.join(REPO, "orchestrator", "dcn_testbed.py"),
                      "--build-dir", testing.build_dir(), "--topo", "bcube n=4 k=1", "--switch", "lxbr", "--no-cli",
                      "--json", str(out), *machines.cluster_args(local=first == "localhost"), check=False,
                      timeout=600, env=orchestrator_env())
    took = time.time() - t0
    log = r.stdout + r.stderr
    print(log)
    assert r.returncode == 0, log[-4000:]
    cross = CROSS.findall(log)
    print("cross-machine links (%d): %s" % (len(cross), "; ".join("%s-%s" % (c[0], c[3]) for c in cross)))
    # each BCube_0 cell on one machine: only level-1 links cross, half of them
    assert len(cross) == 8, log[:3000]
    assert all(a.startswith("h") and b.startswith("s1_") and ma != mb for a, _, ma, b, _, mb in cross)
    assert "VXLAN" in log and "MTU 1450" in log
    with open(out) as f:
        rep = json.load(f)
    smoke = rep["smoke"]
    print("bring-up %.1f s (%s); whole run %.1f s; smoke: %d/%d pairs, iperf %s" % (
        rep["timings"]["total"], ", ".join("%s %.1f" % kv for kv in rep["timings"].items() if kv[0] != "total"),
        took, smoke["ping_ok"], smoke["pairs"], smoke["iperf"]))
    assert smoke["passed"] and smoke["ping_ok"] == 16 * 15
    assert machines.bare() == bare, "left on the machines"
    left = left_behind(before)
    assert not left, left


def test_bad_cluster_input_builds_nothing(machines):
    """An unknown machine, and one whose ssh does not answer: one line, exit
    2, nothing made on the other machine."""
    bare = machines.bare()
    before = testing.inventory()
    for cluster, why in (("198.18.0.1,no-such-host.invalid", "unknown host"),
                         ("198.18.0.1,198.18.0.3", "ssh")):
        args = machines.cluster_args()
        args[1] = cluster
        r = machines.in_a("/usr/bin/python3", os.path.join(REPO, "orchestrator", "dcn_testbed.py"),
                          "--build-dir", testing.build_dir(), "--topo", "bcube n=4 k=1", "--switch", "lxbr",
                          "--no-cli", *args, check=False, timeout=120, env=orchestrator_env())
        lines = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
        print(lines)
        assert r.returncode == 2 and len(lines) == 1 and why in lines[0], lines
        assert "Traceback" not in r.stderr
    assert machines.bare() == bare
    left = left_behind(before)
    assert not left, left


def test_one_to_one_experiment_across_two_machines(machines, tmp_path):
    bare = machines.bare()
    before = testing.inventory()
    out = tmp_path / "bcube-one-to-one"
    r = machines.in_a(os.path.join(REPO, "experiments", "bcube-one-to-one"), "--tiny", "--out", str(out),
                      "--switch", "lxbr", "--link-mbps", "20", "--build-dir", testing.build_dir(),
                      *machines.cluster_args(), check=False, timeout=900, env=orchestrator_env())
    log = r.stdout + r.stderr
    print(log[-6000:])
    assert r.returncode in (0, 3), log[-4000:]  # 3: ran, but the fidelity check failed
    cross = CROSS.findall(log)
    assert len(cross) >= 8, "the plan's crossing links are not named"
    with open(out / "summary.json") as f:
        s = json.load(f)
    reasons = " ".join(s["invalid_reasons"] + [x for run in s.get("run_table", []) for x in run["invalid_reasons"]])
    assert "flows failed" not in reasons, reasons
    with open(out / "raw" / "run-01" / "summary.json") as f:
        first = json.load(f)
    m = first["measured"]
    print("one-to-one across two machines: mtu %s, valid %s (%s); flows %s; on P1/P2 at the failure %s" % (
        s["mtu"], s["valid"], reasons[:300], [(f["label"], f["mbps"], f["ok"]) for r in m["runs"] for f in r["flows"]],
        m["on_parallel_paths_P1_P2"]))
    assert s["mtu"] == 1450
    assert m["on_parallel_paths_P1_P2"] is not None
    assert all(f["ok"] for r in m["runs"] for f in r["flows"])
    # the link sampler read switch ports on both machines (s0_1 is on the
    # first, s1_3 on the second): a number in some sample of each
    with open(out / "raw" / "run-01" / "bcube_fast_timers_links.csv") as f:
        rows = list(csv.reader(f))
    for d in ("s0_1>h13", "s1_3>h13"):
        col = rows[0].index(d)
        rates = [float(r[col]) for r in rows[1:] if r[col]]
        print("%s: %d samples, peak %.1f Mb/s" % (d, len(rates), max(rates or [0])))
        assert rates and max(rates) > 1, d
    assert machines.bare() == bare, "left on the machines"
    left = left_behind(before)
    assert not left, left


@pytest.mark.parametrize("spec, kind, crossing", [
    ("bcube n=4 k=1", "server-switch", 8),           # level-1 links only: BCube_0 cells stay whole
    ("mdcube n=2 k=1 m=5", "switch-switch", 6),      # fibres between containers only
    ("hcn n=4 h=1", "server-server", 4),             # links between HCN_0 units only
    ("bcn alpha=2 beta=1 h=1 gamma=1", "server-server", 4),
])
def test_unit_placer_crosses_only_between_units(spec, kind, crossing):
    """The placement of each family on two machines, from the export alone
    (no root needed, but dcn-topo built): only the links that join units
    cross, and each machine gets whole units."""
    from orchestrator.cluster import UnitPlacer, cross_links, units
    from orchestrator.topology import export
    w = export(testing.build_dir(), spec)
    placer = UnitPlacer(servers=["m1", "m2"], plan=w)
    where = {n: placer.place(n) for n in list(w.servers) + list(w.switches)}
    cross = cross_links(w, where)
    assert len(cross) == crossing and {l["kind"] for l in cross} == {kind}
    if spec.startswith("bcube"):
        assert all(s.startswith("s1_") for l in cross for s in (l["a"], l["b"]) if s in w.switches)
    for srvs, sws in units(w):
        assert len({where[n] for n in srvs + sws}) == 1
    assert abs(sum(where[s] == "m1" for s in w.servers) - sum(where[s] == "m2" for s in w.servers)) <= 4


def test_killed_cluster_run_then_clean(machines):
    """A cluster run SIGKILLed once its agents are ready, then `make
    clean-testbed` (dcn_testbed.py --clean) on the machine it ran on: this
    machine's ssh connections go, and with them every session on the
    machines (agents and host shells hang up, their namespaces die);
    what stays there is the run's device group (docs/cluster.md, "Limits"),
    which the line printed names and `ip link delete group G` removes."""
    bare = machines.bare()
    before = testing.inventory()
    sockets_before = set(os.listdir(testing.state.AGENT_SOCK_DIR)) if os.path.isdir(
        testing.state.AGENT_SOCK_DIR) else set()
    env = dict(orchestrator_env(), DCN_KILL_AT="agents_ready")
    r = machines.in_a("/usr/bin/python3", os.path.join(REPO, "orchestrator", "dcn_testbed.py"),
                      "--build-dir", testing.build_dir(), "--topo", "bcube n=4 k=1", "--switch", "lxbr", "--no-cli",
                      "--no-smoke", *machines.cluster_args(), check=False, timeout=600, env=env)
    assert r.returncode == -signal.SIGKILL, (r.returncode, (r.stdout + r.stderr)[-2000:])
    c = machines.in_a("/usr/bin/python3", os.path.join(REPO, "orchestrator", "dcn_testbed.py"), "--clean",
                      check=False, timeout=120, env=orchestrator_env())
    print(c.stdout + c.stderr)
    assert c.returncode == 0, c.stdout + c.stderr
    found = re.search(r"ip link delete group (\d+)", c.stdout)
    assert found, c.stdout
    # the sessions are gone with the connections: no host namespace, no agent left
    deadline = time.time() + 15
    while True:
        left = left_behind(before)
        busy = {k: v for k, v in left.items() if k in ("netns", "procs")}
        if not busy or time.time() > deadline:
            break
        time.sleep(0.5)
    assert not busy, busy
    # what the docs say stays: the group on each machine, removed as they say
    for ns in machines.ns:
        assert ns_links(ns) != bare[ns], "nothing of the group left on %s?" % ns
        sh("ip", "-n", ns, "link", "delete", "group", found.group(1))
    assert machines.bare() == bare
    # the killed agents' control sockets (a later agent replaces a stale one); the test's own to remove
    for n in set(os.listdir(testing.state.AGENT_SOCK_DIR)) - sockets_before:
        path = os.path.join(testing.state.AGENT_SOCK_DIR, n)
        assert testing.state.socket_occupant(path) is None, path
        os.unlink(path)
    left = left_behind(before)
    assert not left, left
