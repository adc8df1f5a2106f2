"""Cluster mode: one testbed across several machines, on Mininet's own
cluster edition (Debian's mininet 2.3, mininet/examples/cluster.py).

What is Mininet's, and used as it is:
  - RemoteMixin: a node whose shell runs on its machine over ssh
    (`ssh ... sudo -E mnexec -c[n] bash`), its pid that machine's;
  - RemoteLink: a link whose two ends may be on two machines, with the
    tunnel made by makeTunnel() (RemoteGRELink: gretap);
  - Placer: the placement interface MininetCluster calls.
What this module adds:
  - UnitPlacer, a Placer working from the C library's export (the plan):
    each natural unit on one machine (a BCube_0 cell, an MDCube container,
    an HCN/BCN unit), so that only the links between units cross machines;
  - RemoteVXLANLink, a RemoteLink whose tunnel is a VXLAN pair (UDP 4789):
    kernels without gretap have VXLAN;
  - DcnRemoteHost (RemoteMixin + DcnHost) and MachineNode (RemoteMixin +
    Node in the machine's root namespace: its bridges, its veths, its
    tunnels' ends);
  - Cluster: the machines, ssh connection sharing, the checks made before
    anything is built (name resolves, ssh answers, tools present, underlay
    MTU), commands run on a machine or in a remote host's namespace.

A machine named `localhost` is this one: its hosts and bridges are made
as without a cluster (orchestrator/bringup.py). docs/cluster.md has the
set-up and the limits."""
import os
import re
import shlex
import subprocess
import time

from mininet.examples.cluster import Placer, RemoteGRELink, RemoteLink, RemoteMixin, findUser
from mininet.node import Node

from .errors import TestbedError
from .hosts import DcnHost
from .topology import DisjointSets

VXLAN_PORT = 4789
TUNNELS = ("vxlan", "gre")
# bytes a tunnel adds to an inner Ethernet frame of MTU-sized payload:
# VXLAN: outer IPv4 20 + UDP 8 + VXLAN 8 + inner Ethernet 14;
# GRE (gretap with a key, as RemoteGRELink makes it): IPv4 20 + GRE 8 + inner Ethernet 14
OVERHEAD = {"vxlan": 50, "gre": 42}
# RemoteGRELink sets 1450 on every link whatever the underlay
GRE_MTU = 1450
_HOST_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})$")


def parse_servers(text):
    """`host1,host2` or `host1 host2` -> [host1, host2]: at least two
    distinct machines, each a host name or an IPv4 address. ValueError
    with the reason."""
    names = [x for x in re.split(r"[,\s]+", (text or "").strip()) if x]
    if len(names) < 2:
        raise ValueError("a cluster needs at least two machines, got %r" % (text or ""))
    bad = [n for n in names if not _HOST_RE.match(n)]
    if bad:
        raise ValueError("not a host name or address: %s" % " ".join(bad))
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError("machine named twice: %s" % " ".join(dup))
    return names


# ------------------------------------------------------------------ placing
def units(wiring):
    """The natural units of the plan, in the export's order: [(servers,
    switches)]. A unit is what stays connected once the links that join
    units are cut; which those are, the export says by itself: its
    switch-switch links (MDCube's fibres between containers) and its
    server-server links (HCN's and BCN's links between units); in a plan
    with neither (BCube, BCDC) every server link but the one on the
    server's lowest port (a BCube_0 cell: a level-0 switch and the servers
    on their port 0). Switches no server's unit link reaches (BCube's
    level-1 switches) belong to no unit: place() puts them."""
    joining = {"switch-switch", "server-server"}
    kinds = {l["kind"] for l in wiring.links}
    lowest = {}
    for l in wiring.links:
        for end, port in ((l["a"], l["a_port"]), (l["b"], l["b_port"])):
            if wiring.is_server(end):
                lowest[end] = min(port, lowest.get(end, port))
    parent = DisjointSets()
    find = parent.find
    for l in wiring.links:
        if l["kind"] in joining:
            continue
        if not kinds & joining:  # BCube, BCDC: a server's lowest port only
            srv, port = (l["a"], l["a_port"]) if wiring.is_server(l["a"]) else (l["b"], l["b_port"])
            if port != lowest[srv]:
                continue
        parent[find(l["a"])] = find(l["b"])
    groups = {}
    for s in wiring.server_list:
        groups.setdefault(find(s["name"]), []).append(s["name"])
    out = []
    for root, srvs in groups.items():  # dict order: the first server's export order
        sws = [s["name"] for s in wiring.switch_list if find(s["name"]) == root and s["name"] not in srvs]
        out.append((srvs, sws))
    return out


def place(wiring, machines):
    """{node: machine}: whole units in export order, contiguous runs of
    them per machine, as even in servers as whole units allow; a switch in
    no unit on the machine of most of its neighbours, a tie to the machine
    with fewest nodes so far (then the first)."""
    us = units(wiring)
    total = sum(len(s) for s, _ in us)
    where, count = {}, {m: 0 for m in machines}
    done = 0
    for srvs, sws in us:
        # the machine whose share of the servers this unit's middle falls in
        mid = done + len(srvs) / 2.0
        m = machines[min(len(machines) - 1, int(mid * len(machines) / max(total, 1)))]
        for n in srvs + sws:
            where[n] = m
        count[m] += len(srvs) + len(sws)
        done += len(srvs)
    for sw in wiring.switch_list:
        name = sw["name"]
        if name in where:
            continue
        votes = {m: 0 for m in machines}
        for l in wiring.links_of(name):
            other = l["b"] if l["a"] == name else l["a"]
            if other in where:
                votes[where[other]] += 1
        best = max(machines, key=lambda m: (votes[m], -count[m], -machines.index(m)))
        where[name] = best
        count[best] += 1
    return where


def cross_links(wiring, where):
    """The plan's links whose two ends are on two machines, in link order."""
    return [l for l in wiring.links if where[l["a"]] != where[l["b"]]]


def plan_lines(wiring, where, machines, tunnel, mtu):
    """What the start prints: nodes per machine and every crossing link."""
    cross = cross_links(wiring, where)
    out = ["cluster: %d machines, %s tunnels, links at MTU %d; %d of %d links cross machines" % (
        len(machines), tunnel.upper(), mtu, len(cross), len(wiring.links))]
    for m in machines:
        srv = [s["name"] for s in wiring.server_list if where[s["name"]] == m]
        sws = [s["name"] for s in wiring.switch_list if where[s["name"]] == m]
        out.append("  %s: %d servers (%s), %d switches (%s)" % (m, len(srv), " ".join(srv), len(sws), " ".join(sws)))
    for l in cross:
        out.append("  cross: %s port %d (%s) <-> %s port %d (%s)" % (
            l["a"], l["a_port"], where[l["a"]], l["b"], l["b_port"], where[l["b"]]))
    return out


class UnitPlacer(Placer):
    """Mininet's Placer interface (MininetCluster calls place(node)) over
    place(): construct with plan=<Wiring> besides Placer's arguments."""

    def __init__(self, *args, plan=None, **kwargs):
        Placer.__init__(self, *args, **kwargs)
        if plan is None:
            raise ValueError("UnitPlacer places from the plan (dcn-topo export): plan= is required")
        self.placement = place(plan, list(self.servers))

    def place(self, node):
        return self.placement[node]


# ------------------------------------------------------------ remote nodes
class DcnRemoteHost(RemoteMixin, DcnHost):
    """An emulated server whose shell runs on another machine (RemoteMixin),
    in a namespace of its own there."""

    def __init__(self, name, dcn_id, dcn_ip, agent_mode, **kw):
        super().__init__(name, dcn_id=dcn_id, dcn_ip=dcn_ip, agent_mode=agent_mode, **kw)


class MachineNode(RemoteMixin, Node):
    """A shell in a machine's root namespace: its bridges and the switch
    ends of its links and tunnels live there (as RemoteOVSSwitch's shell)."""

    def __init__(self, name, **kw):
        super().__init__(name, inNamespace=False, **kw)


def _ssh_options(cls, extra):
    """RemoteMixin's ssh command with the cluster's own options (-F config, a
    connect timeout), on a subclass so that Mininet's class stays as it is."""
    base = list(RemoteMixin.sshbase)
    return type(cls.__name__, (cls,), {"sshbase": base[:1] + extra + base[1:]})


# ------------------------------------------------------------------ tunnels
class RemoteVXLANLink(RemoteLink):
    """RemoteLink over VXLAN, for kernels without gretap: one VXLAN device on
    each machine (unique VNI per link, the peer machine as `remote`, UDP
    4789), each end then moved into its node's namespace (a switch end stays
    in its machine's root namespace, where its bridge is). Same-machine
    links are RemoteLink's veth pairs. Params: vni, mtu, group (device
    group of the root-namespace ends, for the teardown)."""

    def __init__(self, node1, node2, vni=None, mtu=None, group=None, **kwargs):
        self.vni, self.mtu, self.group = vni, mtu, group
        RemoteLink.__init__(self, node1, node2, **kwargs)

    def stop(self):
        if self.tunnel:  # both ends are devices of their own: delete each
            self.intf1.delete()
            self.intf2.delete()
        else:
            RemoteLink.stop(self)
        self.tunnel = None

    def makeTunnel(self, node1, node2, intfname1, intfname2, addr1=None, addr2=None):
        assert node1.server != node2.server
        ends = ((node1, intfname1, addr1, node1.serverIP, node2.serverIP),
                (node2, intfname2, addr2, node2.serverIP, node1.serverIP))
        for node, ifn, addr, local, remote in ends:
            opts = "id %d local %s remote %s dstport %d nolearning" % (self.vni, local, remote, VXLAN_PORT)
            setup = ["link add %s%s%s type vxlan %s" % (
                ifn, " mtu %d" % self.mtu if self.mtu else "", " address %s" % addr if addr else "", opts)]
            if node.inNamespace:
                setup.append("link set %s netns %d" % (ifn, node.pid))
            elif self.group is not None:
                setup.append("link set %s group %d" % (ifn, self.group))
            err = node.cluster_batch("ip", setup)
            if err:
                raise TestbedError("VXLAN end %s on %s: %s" % (ifn, node.server, err))
        self.tunnel = True
        return self.tunnel


def gre_link_class():
    """RemoteGRELink as Mininet has it (gretap, MTU 1450), for machines
    whose kernel has gretap (this project's kernel has not)."""
    return RemoteGRELink


# ----------------------------------------------------------------- machines
class Cluster:
    """The machines of one run and how to reach them. Remote machines are
    reached over ssh as `user` (Mininet's findUser(): the sudo caller) with
    the options of ssh_config (-F) if given; each with one shared connection
    (ControlMaster) that the run starts and ends."""

    def __init__(self, machines, user=None, ssh_config=None, tunnel="vxlan", run_dir="/run/dcn-testbed",
                 connect_timeout=5, log=print):
        if tunnel not in TUNNELS:
            raise TestbedError("--cluster-tunnel must be one of %s" % ", ".join(TUNNELS))
        self.machines = list(machines)
        self.user = user or findUser() or "root"
        self.ssh_config = ssh_config
        self.tunnel = tunnel
        self.dir = os.path.join(run_dir, "cluster")
        self.log = log
        extra = ["-o", "ConnectTimeout=%d" % connect_timeout, "-o", "ServerAliveInterval=5"]
        if ssh_config:
            extra = ["-F", ssh_config] + extra
        self.ssh_extra = extra
        self.host_cls = _ssh_options(DcnRemoteHost, extra)
        self.machine_cls = _ssh_options(MachineNode, extra)
        self.ip = {}
        self.masters = {}   # machine -> Popen of its ssh master
        self.nodes = {}     # machine -> MachineNode
        self.underlay_mtu = {}
        self.boot_id = {}

    def remote(self, m):
        return m != "localhost"

    def remotes(self):
        return [m for m in self.machines if self.remote(m)]

    def control_path(self, m):
        return os.path.join(self.dir, "ssh-%d" % self.machines.index(m))

    def _ssh(self, m, *words, master=False, tty=False):
        cmd = ["ssh", "-q"] + (["-tt"] if tty else []) + ["-o", "BatchMode=yes"] + self.ssh_extra + [
            "-o", "ControlPath=" + self.control_path(m)]
        cmd += ["-o", "ControlMaster=yes", "-o", "ControlPersist=no", "-N"] if master else ["-o", "ControlMaster=no"]
        return cmd + ["%s@%s" % (self.user, self.ip[m])] + list(words)

    def _wrap(self, m, words, tty=False):
        """argv that runs `words` as root on machine m: sudo over the shared
        ssh connection, or directly on this machine."""
        if not self.remote(m):
            return list(words)
        return self._ssh(m, "sudo -n " + " ".join(shlex.quote(w) for w in words), tty=tty)

    # ------------------------------------------------------------ checks
    def check(self, tools, mtu):
        """Everything about the machines that can fail, before anything is
        built: each name resolves, ssh answers without a password, sudo,
        mnexec and the tools are there, and the underlay's MTU. Returns the
        link MTU the tunnels carry (<= mtu). TestbedError naming the machine."""
        local_boot = _read("/proc/sys/kernel/random/boot_id")
        for m in self.machines:
            ip = "127.0.0.1" if not self.remote(m) else RemoteMixin.findServerIP(m)
            if not ip:
                raise TestbedError("cluster machine %s: unknown host (no IPv4 address: getent ahostsv4 %s)" % (m, m))
            self.ip[m] = ip
        for m in self.remotes():
            probe = " && ".join(["command -v %s >/dev/null || { echo missing: %s; exit 3; }" % (t, t) for t in tools] +
                                ["cat /proc/sys/kernel/random/boot_id"])
            # not -q: ssh's own reason (no route, refused, key refused) is the message
            cmd = ["ssh", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR"] + self.ssh_extra + [
                "-n", "%s@%s" % (self.user, self.ip[m]), "sudo -n sh -c %s" % shlex.quote(probe)]
            try:
                r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
            except subprocess.TimeoutExpired:
                raise TestbedError("cluster machine %s (%s): ssh gave no answer in 30 s" % (m, self.ip[m])) from None
            out = r.stdout.strip()
            if r.returncode == 3 or out.startswith("missing:"):
                raise TestbedError("cluster machine %s: %s on its PATH (install the same packages there: "
                                   "docs/cluster.md)" % (m, out.splitlines()[-1]))
            if r.returncode != 0:
                why = (r.stderr.strip().splitlines() or [""])[-1][:200]
                raise TestbedError("cluster machine %s (%s): ssh as %s failed (exit %d%s); it must be reachable, "
                                   "accept this user's key without a password and allow sudo -n (docs/cluster.md)" % (
                                       m, self.ip[m], self.user, r.returncode, ": " + why if why else ""))
            self.boot_id[m] = out.splitlines()[-1] if out else ""
        self.boot_id.update({m: local_boot for m in self.machines if not self.remote(m)})
        if "localhost" in self.machines:  # Mininet's 127.0.0.1 cannot carry a tunnel
            self.ip["localhost"] = self._my_ip_for(self.remotes()[0])
        # the underlay: the MTU of the interface each machine reaches the next one on
        for i, m in enumerate(self.machines):
            peer = self.machines[(i + 1) % len(self.machines)]
            self.underlay_mtu[m] = self._route_mtu(m, self.ip[peer])
        ceiling = GRE_MTU if self.tunnel == "gre" else min(self.underlay_mtu.values()) - OVERHEAD["vxlan"]
        return min(mtu, ceiling)

    def _my_ip_for(self, m):
        """This machine's address toward remote machine m (`localhost` is
        127.0.0.1 to Mininet; the tunnels need the real one)."""
        r = subprocess.run(["ip", "-o", "route", "get", self.ip[m]], stdout=subprocess.PIPE, text=True)
        found = re.search(r"\bsrc (\S+)", r.stdout)
        if not found:
            raise TestbedError("no route from this machine to cluster machine %s (%s)" % (m, self.ip[m]))
        return found.group(1)

    def _route_mtu(self, m, dest):
        script = "d=$(ip -o route get %s | sed -n 's/.* dev \\([^ ]*\\).*/\\1/p'); cat /sys/class/net/$d/mtu 2>/dev/null " \
                 "|| ip -o link show dev $d | sed -n 's/.* mtu \\([0-9]*\\).*/\\1/p'" % dest
        if self.remote(m):
            r = subprocess.run(["ssh", "-q", "-o", "BatchMode=yes"] + self.ssh_extra +
                               ["-n", "%s@%s" % (self.user, self.ip[m]), "sh -c %s" % shlex.quote(script)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
        else:
            r = subprocess.run(["sh", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            return int(r.stdout.split()[-1])
        except (IndexError, ValueError):
            raise TestbedError("cluster machine %s: no route to %s to carry the tunnels" % (m, dest)) from None

    def same_kernel(self):
        """Whether every machine is this kernel (the one-box test's network
        namespaces): then a remote host's pid is one of this box's."""
        ids = set(self.boot_id.values())
        return len(ids) == 1 and "" not in ids

    # ----------------------------------------------------------- sessions
    def connect(self, state_add):
        """One ssh master per remote machine (every later session shares
        it), and a shell in each machine's root namespace. state_add(pid,
        what) records each local process before the run depends on it."""
        os.makedirs(self.dir, exist_ok=True)
        for m in self.remotes():
            p = subprocess.Popen(self._ssh(m, master=True), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, start_new_session=True)
            self.masters[m] = p
            state_add(p.pid, "ssh master to %s" % m)
            deadline = time.time() + 20
            while not os.path.exists(self.control_path(m)):
                if p.poll() is not None or time.time() > deadline:
                    raise TestbedError("cluster machine %s: ssh connection failed: %s" % (
                        m, (p.stderr.read().decode(errors="replace").strip() if p.poll() is not None else "timeout")))
                time.sleep(0.05)
        for m in self.machines:
            self.nodes[m] = self.machine_cls("mach%d" % self.machines.index(m), server=m, user=self.user,
                                             serverIP=self.ip[m], controlPath=self.control_path(m))
            _bind_batch(self.nodes[m], self)
        return self.nodes

    def new_host(self, m, name, dcn_id, dcn_ip, agent_mode):
        h = self.host_cls(name, dcn_id, dcn_ip, agent_mode, server=m, user=self.user, serverIP=self.ip[m],
                          controlPath=self.control_path(m))
        _bind_batch(h, self)
        return h

    def run(self, m, argv, pid=None, input=None, timeout=120):
        """argv on machine m as root, in the namespace of pid (that
        machine's) when given: (returncode, stdout, stderr)."""
        words = (["mnexec", "-a", str(pid)] if pid else []) + list(argv)
        r = subprocess.run(self._wrap(m, words), input=input, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=timeout)
        return r.returncode, r.stdout, r.stderr

    def batch(self, m, tool, lines, pid=None, force=True, check=True):
        """`tool -batch -` on machine m (in pid's namespace when given)."""
        if not lines:
            return ""
        rc, _, err = self.run(m, [tool] + (["-force"] if force else []) + ["-batch", "-"], pid=pid,
                              input="\n".join(lines) + "\n")
        if check and rc != 0:
            raise TestbedError("%s on %s: %s -batch failed: %s" % ("namespace %s" % pid if pid else "root", m,
                                                                   tool, err.strip()[:600]))
        return err

    def spawn(self, m, pid, argv, **kw):
        """A process in remote namespace pid, over a session with a
        terminal (-tt): ending the local ssh hangs the remote one up, so a
        process stopped here stops there too. A terminal has one output:
        stderr goes where stdout does, or where stderr was asked to when
        stdout is discarded (an agent's .stderr log)."""
        if kw.get("stdout") in (None, subprocess.DEVNULL) and kw.get("stderr") not in (None, subprocess.DEVNULL):
            kw["stdout"] = kw["stderr"]
        return subprocess.Popen(self._wrap(m, ["mnexec", "-a", str(pid)] + list(argv), tty=True),
                                start_new_session=True, **kw)

    def forward_socket(self, m, local, remote):
        """The agent's control socket `remote` on machine m, answered at the
        local path `local` (ssh streamlocal forwarding over the master)."""
        os.makedirs(os.path.dirname(local), exist_ok=True)
        try:
            os.unlink(local)
        except FileNotFoundError:
            pass
        cmd = ["ssh", "-q"] + self.ssh_extra + ["-o", "ControlPath=" + self.control_path(m), "-O", "forward",
                                                "-L", "%s:%s" % (local, remote), "%s@%s" % (self.user, self.ip[m])]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
        if r.returncode != 0:
            raise TestbedError("cluster machine %s: forwarding %s failed: %s" % (m, remote, r.stderr.strip()[:200]))

    def stop_ns_processes(self, m, host_pids, comm=None, grace=5.0):
        """On machine m: SIGTERM to every process in the namespaces of
        host_pids (that machine's pids) but the shells themselves (only
        those named comm when given: an agent), SIGKILL to any left after
        grace seconds. Returns the problems ('' when none)."""
        pids = " ".join(str(p) for p in host_pids)
        # one find and one awk a pass over /proc (no process per process)
        mine = ('mine() { find /proc/[0-9]*/ns/net -maxdepth 0 -printf "%l %p\\n" 2>/dev/null | '
                'awk -v nss="$nss" -v skip=" ' + pids + ' " -v comm="' + (comm or "") + '" '
                "'{ split($2, a, \"/\"); q = a[3]; if (!index(nss, \" \" $1 \" \") || index(skip, \" \" q \" \")) next; "
                "if (comm != \"\") { c = \"\"; f = \"/proc/\" q \"/comm\"; getline c < f; close(f); if (c != comm) next }; print q }'; }; ")
        script = ('nss=" "; for h in ' + pids + '; do n=$(readlink /proc/$h/ns/net) && nss="$nss$n "; done; ' + mine +
                  'kill -TERM $(mine) 2>/dev/null; t=0; '
                  'while [ -n "$(mine)" ] && [ $t -lt %d ]; do sleep 0.1; t=$((t+1)); done; '
                  'kill -KILL $(mine) 2>/dev/null; true' % int(grace * 10))
        return self._run_quiet(m, script)

    def end_machine(self, m, host_pids, group, names, sockets):
        """On machine m, once stop_ns_processes() has run: the host shells
        (SIGHUP, then SIGKILL), the run's agents' control sockets (a socket
        at one of those paths is its agents', now gone), and the
        interfaces of device group `group` in one request, only when every
        member is one of `names` (nothing is deleted by name alone: a name
        may be someone else's). Returns the problems ('' when none)."""
        pids = " ".join(str(p) for p in host_pids)
        script = (
            'for h in %s; do kill -HUP $h 2>/dev/null; done; sleep 0.3; '
            'for h in %s; do kill -KILL $h 2>/dev/null; done; '
            'for s in %s; do [ -S "$s" ] && rm -f "$s"; done; '
            'members=$(ip -o link show group %d 2>/dev/null | sed -n "s/^[0-9]*: \\([^:@]*\\).*/\\1/p"); '
            'ok=1; for x in $members; do case " %s " in *" $x "*) ;; *) ok=0;; esac; done; '
            'if [ -n "$members" ] && [ $ok = 1 ]; then ip link delete group %d; fi; true') % (
                pids, pids, " ".join(shlex.quote(x) for x in sockets), group, " ".join(names), group)
        return self._run_quiet(m, script)

    def _run_quiet(self, m, script):
        try:
            rc, _, err = self.run(m, ["sh", "-c", script], timeout=60)
        except (subprocess.SubprocessError, OSError) as e:
            return "%s: %s" % (m, e)
        return "" if rc == 0 else "%s: %s" % (m, err.strip()[:300])

    def disconnect(self):
        for node in self.nodes.values():
            try:
                node.terminate()
            except Exception:  # pylint: disable=broad-except
                pass
        self.nodes.clear()
        for p in self.masters.values():
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.masters.clear()


def _bind_batch(node, cluster):
    """node.cluster_batch(tool, lines): a batch in the own namespace of
    node's machine, where the tunnels' underlay is (RemoteVXLANLink makes
    its ends there, then moves a host's into the host); '' or the error."""
    def cluster_batch(tool, lines):
        try:
            cluster.batch(node.server, tool, lines)
        except TestbedError as e:
            return str(e)
        return ""
    node.cluster_batch = cluster_batch


def _read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


# ------------------------------------------------------------------ options
def add_options(group):
    """--cluster and its companions, on an argparse parser or group (the
    testbed's and the experiments'); `mn --cluster` spells it the same."""
    group.add_argument("--cluster", metavar="MACHINES", default=None,
                       help="spread the network over these machines (comma- or space-separated; localhost is "
                            "this one, the others are reached over ssh), each unit of the topology on one "
                            "machine (docs/cluster.md)")
    group.add_argument("--cluster-user", default=None,
                       help="ssh user on the machines (default: Mininet's, the user who ran sudo)")
    group.add_argument("--cluster-ssh-config", metavar="FILE", default=None,
                       help="ssh -F FILE for every connection to the machines (keys, ports, known hosts)")
    group.add_argument("--cluster-tunnel", choices=TUNNELS, default="vxlan",
                       help="links between machines: vxlan (UDP 4789, the default) or gre (Mininet's "
                            "RemoteGRELink: gretap, MTU 1450)")


def from_options(a, error, log=print):
    """The Cluster the options ask for, or None; error(message) on bad
    input (the parser's one-line error), before anything is built."""
    if not a.cluster:
        return None
    try:
        machines = parse_servers(a.cluster)
    except ValueError as e:
        error("--cluster: %s" % e)
    if a.cluster_ssh_config and not os.path.isfile(a.cluster_ssh_config):
        error("--cluster-ssh-config %s: no such file" % a.cluster_ssh_config)
    return Cluster(machines, user=a.cluster_user, ssh_config=a.cluster_ssh_config, tunnel=a.cluster_tunnel, log=log)
