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
from __future__ import annotations

import os
import re
import shlex
import subprocess
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from mininet.examples.cluster import Placer, RemoteGRELink, RemoteLink, RemoteMixin, findUser
from mininet.node import Node

from .errors import TestbedError
from .hosts import DcnHost
from .topology import DisjointSets

if TYPE_CHECKING:
    import argparse

    from .topology import Wiring

VXLAN_PORT = 4789
TUNNELS = ("vxlan", "gre")
# bytes a tunnel adds to an inner Ethernet frame of MTU-sized payload:
# VXLAN: outer IPv4 20 + UDP 8 + VXLAN 8 + inner Ethernet 14;
# GRE (gretap with a key, as RemoteGRELink makes it): IPv4 20 + GRE 8 + inner Ethernet 14
OVERHEAD = {"vxlan": 50, "gre": 42}
# RemoteGRELink sets 1450 on every link whatever the underlay
GRE_MTU = 1450
_HOST_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})$")


def parse_servers(text: str | None) -> list[str]:
    """`host1,host2` or `host1 host2` -> [host1, host2]: at least two
    distinct machines, each a host name or an IPv4 address. ValueError
    with the reason."""
    names = [x for x in re.split(r"[,\s]+", (text or "").strip()) if x]
    if len(names) < 2:
        raise ValueError(f"a cluster needs at least two machines, got {text or ''!r}")
    bad = [n for n in names if not _HOST_RE.match(n)]
    if bad:
        raise ValueError(f"not a host name or address: {' '.join(bad)}")
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"machine named twice: {' '.join(dup)}")
    return names


# ------------------------------------------------------------------ placing
def units(wiring: Wiring) -> list[tuple[list[str], list[str]]]:
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


def place(wiring: Wiring, machines: Sequence[str]) -> dict[str, str]:
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


def cross_links(wiring: Wiring, where: dict[str, str]) -> list[dict]:
    """The plan's links whose two ends are on two machines, in link order."""
    return [l for l in wiring.links if where[l["a"]] != where[l["b"]]]


def plan_lines(wiring: Wiring, where: dict[str, str], machines: Sequence[str], tunnel: str, mtu: int) -> list[str]:
    """What the start prints: nodes per machine and every crossing link."""
    cross = cross_links(wiring, where)
    out = [f"cluster: {len(machines)} machines, {tunnel.upper()} tunnels, links at MTU {mtu:d}; "
           f"{len(cross)} of {len(wiring.links)} links cross machines"]
    for m in machines:
        srv = [s["name"] for s in wiring.server_list if where[s["name"]] == m]
        sws = [s["name"] for s in wiring.switch_list if where[s["name"]] == m]
        out.append(f"  {m}: {len(srv)} servers ({' '.join(srv)}), {len(sws)} switches ({' '.join(sws)})")
    for l in cross:
        out.append(f"  cross: {l['a']} port {l['a_port']:d} ({where[l['a']]}) <-> "
                   f"{l['b']} port {l['b_port']:d} ({where[l['b']]})")
    return out


class UnitPlacer(Placer):
    """Mininet's Placer interface (MininetCluster calls place(node)) over
    place(): construct with plan=<Wiring> besides Placer's arguments."""

    def __init__(self, *args: Any, plan: Wiring | None = None, **kwargs: Any) -> None:
        Placer.__init__(self, *args, **kwargs)
        if plan is None:
            raise ValueError("UnitPlacer places from the plan (dcn-topo export): plan= is required")
        self.placement = place(plan, list(self.servers))

    def place(self, node: str) -> str:
        return self.placement[node]


# ------------------------------------------------------------ remote nodes
class DcnRemoteHost(RemoteMixin, DcnHost):
    """An emulated server whose shell runs on another machine (RemoteMixin),
    in a namespace of its own there."""

    def __init__(self, name: str, dcn_id: int, dcn_ip: str, agent_mode: bool, **kw: Any) -> None:
        super().__init__(name, dcn_id=dcn_id, dcn_ip=dcn_ip, agent_mode=agent_mode, **kw)


class MachineNode(RemoteMixin, Node):
    """A shell in a machine's root namespace: its bridges and the switch
    ends of its links and tunnels live there (as RemoteOVSSwitch's shell)."""

    def __init__(self, name: str, **kw: Any) -> None:
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

    def __init__(self, node1: Node, node2: Node, vni: int | None = None, mtu: int | None = None,
                 group: int | None = None, **kwargs: Any) -> None:
        self.vni, self.mtu, self.group = vni, mtu, group
        RemoteLink.__init__(self, node1, node2, **kwargs)

    def stop(self) -> None:
        if self.tunnel:  # both ends are devices of their own: delete each
            self.intf1.delete()
            self.intf2.delete()
        else:
            RemoteLink.stop(self)
        self.tunnel = None

    def makeTunnel(self, node1: Node, node2: Node, intfname1: str, intfname2: str, addr1: str | None = None,
                   addr2: str | None = None) -> bool:
        assert node1.server != node2.server
        ends = ((node1, intfname1, addr1, node1.serverIP, node2.serverIP),
                (node2, intfname2, addr2, node2.serverIP, node1.serverIP))
        for node, ifn, addr, local, remote in ends:
            opts = f"id {self.vni:d} local {local} remote {remote} dstport {VXLAN_PORT:d} nolearning"
            mtu = f" mtu {self.mtu:d}" if self.mtu else ""
            address = f" address {addr}" if addr else ""
            setup = [f"link add {ifn}{mtu}{address} type vxlan {opts}"]
            if node.inNamespace:
                setup.append(f"link set {ifn} netns {node.pid:d}")
            elif self.group is not None:
                setup.append(f"link set {ifn} group {self.group:d}")
            err = node.cluster_batch("ip", setup)
            if err:
                raise TestbedError(f"VXLAN end {ifn} on {node.server}: {err}")
        self.tunnel = True
        return self.tunnel


def gre_link_class() -> type[RemoteLink]:
    """RemoteGRELink as Mininet has it (gretap, MTU 1450), for machines
    whose kernel has gretap (this project's kernel has not)."""
    return RemoteGRELink


# ----------------------------------------------------------------- machines
class Cluster:
    """The machines of one run and how to reach them. Remote machines are
    reached over ssh as `user` (Mininet's findUser(): the sudo caller) with
    the options of ssh_config (-F) if given; each with one shared connection
    (ControlMaster) that the run starts and ends."""

    def __init__(self, machines: Iterable[str], user: str | None = None, ssh_config: str | None = None,
                 tunnel: str = "vxlan", run_dir: str = "/run/dcn-testbed", connect_timeout: float = 5,
                 log: Callable[[str], None] = print) -> None:
        if tunnel not in TUNNELS:
            raise TestbedError(f"--cluster-tunnel must be one of {', '.join(TUNNELS)}")
        self.machines = list(machines)
        self.user = user or findUser() or "root"
        self.ssh_config = ssh_config
        self.tunnel = tunnel
        self.dir = os.path.join(run_dir, "cluster")
        self.log = log
        extra = ["-o", f"ConnectTimeout={int(connect_timeout)}", "-o", "ServerAliveInterval=5"]
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

    def remote(self, m: str) -> bool:
        return m != "localhost"

    def remotes(self) -> list[str]:
        return [m for m in self.machines if self.remote(m)]

    def control_path(self, m: str) -> str:
        return os.path.join(self.dir, f"ssh-{self.machines.index(m)}")

    def _ssh(self, m, *words, master=False, tty=False):
        cmd = ["ssh", "-q"] + (["-tt"] if tty else []) + ["-o", "BatchMode=yes"] + self.ssh_extra + [
            "-o", "ControlPath=" + self.control_path(m)]
        cmd += ["-o", "ControlMaster=yes", "-o", "ControlPersist=no", "-N"] if master else ["-o", "ControlMaster=no"]
        return cmd + [f"{self.user}@{self.ip[m]}"] + list(words)

    def _wrap(self, m, words, tty=False):
        """argv that runs `words` as root on machine m: sudo over the shared
        ssh connection, or directly on this machine."""
        if not self.remote(m):
            return list(words)
        return self._ssh(m, "sudo -n " + " ".join(shlex.quote(w) for w in words), tty=tty)

    # ------------------------------------------------------------ checks
    def check(self, tools: Iterable[str], mtu: int) -> int:
        """Everything about the machines that can fail, before anything is
        built: each name resolves, ssh answers without a password, sudo,
        mnexec and the tools are there, and the underlay's MTU. Returns the
        link MTU the tunnels carry (<= mtu). TestbedError naming the machine."""
        local_boot = _read("/proc/sys/kernel/random/boot_id")
        for m in self.machines:
            ip = "127.0.0.1" if not self.remote(m) else RemoteMixin.findServerIP(m)
            if not ip:
                raise TestbedError(f"cluster machine {m}: unknown host (no IPv4 address: getent ahostsv4 {m})")
            self.ip[m] = ip
        for m in self.remotes():
            probe = " && ".join([f"command -v {t} >/dev/null || {{ echo missing: {t}; exit 3; }}" for t in tools] +
                                ["cat /proc/sys/kernel/random/boot_id"])
            # not -q: ssh's own reason (no route, refused, key refused) is the message
            cmd = ["ssh", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR"] + self.ssh_extra + [
                "-n", f"{self.user}@{self.ip[m]}", f"sudo -n sh -c {shlex.quote(probe)}"]
            try:
                r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
            except subprocess.TimeoutExpired:
                raise TestbedError(f"cluster machine {m} ({self.ip[m]}): ssh gave no answer in 30 s") from None
            out = r.stdout.strip()
            if r.returncode == 3 or out.startswith("missing:"):
                raise TestbedError(f"cluster machine {m}: {out.splitlines()[-1]} on its PATH (install the same "
                                   "packages there: docs/cluster.md)")
            if r.returncode != 0:
                why = (r.stderr.strip().splitlines() or [""])[-1][:200]
                reason = ": " + why if why else ""
                raise TestbedError(f"cluster machine {m} ({self.ip[m]}): ssh as {self.user} failed (exit "
                                   f"{r.returncode:d}{reason}); it must be reachable, accept this user's key without "
                                   "a password and allow sudo -n (docs/cluster.md)")
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
            raise TestbedError(f"no route from this machine to cluster machine {m} ({self.ip[m]})")
        return found.group(1)

    def _route_mtu(self, m, dest):
        script = f"d=$(ip -o route get {dest} | sed -n 's/.* dev \\([^ ]*\\).*/\\1/p'); cat /sys/class/net/$d/mtu " \
                 "2>/dev/null || ip -o link show dev $d | sed -n 's/.* mtu \\([0-9]*\\).*/\\1/p'"
        if self.remote(m):
            r = subprocess.run(["ssh", "-q", "-o", "BatchMode=yes"] + self.ssh_extra +
                               ["-n", f"{self.user}@{self.ip[m]}", f"sh -c {shlex.quote(script)}"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
        else:
            r = subprocess.run(["sh", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            return int(r.stdout.split()[-1])
        except (IndexError, ValueError):
            raise TestbedError(f"cluster machine {m}: no route to {dest} to carry the tunnels") from None

    def same_kernel(self) -> bool:
        """Whether every machine is this kernel (the one-box test's network
        namespaces): then a remote host's pid is one of this box's."""
        ids = set(self.boot_id.values())
        return len(ids) == 1 and "" not in ids

    # ----------------------------------------------------------- sessions
    def connect(self, state_add: Callable[[int, str], None]) -> dict[str, MachineNode]:
        """One ssh master per remote machine (every later session shares
        it), and a shell in each machine's root namespace. state_add(pid,
        what) records each local process before the run depends on it."""
        os.makedirs(self.dir, exist_ok=True)
        for m in self.remotes():
            p = subprocess.Popen(self._ssh(m, master=True), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, start_new_session=True)
            self.masters[m] = p
            state_add(p.pid, f"ssh master to {m}")
            deadline = time.time() + 20
            while not os.path.exists(self.control_path(m)):
                if p.poll() is not None or time.time() > deadline:
                    why = p.stderr.read().decode(errors="replace").strip() if p.poll() is not None else "timeout"
                    raise TestbedError(f"cluster machine {m}: ssh connection failed: {why}")
                time.sleep(0.05)
        for m in self.machines:
            self.nodes[m] = self.machine_cls(f"mach{self.machines.index(m)}", server=m, user=self.user,
                                             serverIP=self.ip[m], controlPath=self.control_path(m))
            _bind_batch(self.nodes[m], self)
        return self.nodes

    def new_host(self, m: str, name: str, dcn_id: int, dcn_ip: str, agent_mode: bool) -> DcnRemoteHost:
        h = self.host_cls(name, dcn_id, dcn_ip, agent_mode, server=m, user=self.user, serverIP=self.ip[m],
                          controlPath=self.control_path(m))
        _bind_batch(h, self)
        return h

    def run(self, m: str, argv: Iterable[str], pid: int | None = None, input: str | None = None,
            timeout: float = 120) -> tuple[int, str, str]:
        """argv on machine m as root, in the namespace of pid (that
        machine's) when given: (returncode, stdout, stderr)."""
        words = (["mnexec", "-a", str(pid)] if pid else []) + list(argv)
        r = subprocess.run(self._wrap(m, words), input=input, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=timeout)
        return r.returncode, r.stdout, r.stderr

    def batch(self, m: str, tool: str, lines: Sequence[str], pid: int | None = None, force: bool = True,
              check: bool = True) -> str:
        """`tool -batch -` on machine m (in pid's namespace when given)."""
        if not lines:
            return ""
        rc, _, err = self.run(m, [tool] + (["-force"] if force else []) + ["-batch", "-"], pid=pid,
                              input="\n".join(lines) + "\n")
        if check and rc != 0:
            where = f"namespace {pid}" if pid else "root"
            raise TestbedError(f"{where} on {m}: {tool} -batch failed: {err.strip()[:600]}")
        return err

    def spawn(self, m: str, pid: int, argv: Iterable[str], **kw: Any) -> subprocess.Popen:
        """A process in remote namespace pid, over a session with a
        terminal (-tt): ending the local ssh hangs the remote one up, so a
        process stopped here stops there too. A terminal has one output:
        stderr goes where stdout does, or where stderr was asked to when
        stdout is discarded (an agent's .stderr log)."""
        if kw.get("stdout") in (None, subprocess.DEVNULL) and kw.get("stderr") not in (None, subprocess.DEVNULL):
            kw["stdout"] = kw["stderr"]
        return subprocess.Popen(self._wrap(m, ["mnexec", "-a", str(pid)] + list(argv), tty=True),
                                start_new_session=True, **kw)

    def forward_socket(self, m: str, local: str, remote: str) -> None:
        """The agent's control socket `remote` on machine m, answered at the
        local path `local` (ssh streamlocal forwarding over the master)."""
        os.makedirs(os.path.dirname(local), exist_ok=True)
        try:
            os.unlink(local)
        except FileNotFoundError:
            pass
        cmd = ["ssh", "-q"] + self.ssh_extra + ["-o", "ControlPath=" + self.control_path(m), "-O", "forward",
                                                "-L", f"{local}:{remote}", f"{self.user}@{self.ip[m]}"]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
        if r.returncode != 0:
            raise TestbedError(f"cluster machine {m}: forwarding {remote} failed: {r.stderr.strip()[:200]}")

    def stop_ns_processes(self, m: str, host_pids: Iterable[int], comm: str | None = None, grace: float = 5.0) -> str:
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
                  f'while [ -n "$(mine)" ] && [ $t -lt {int(grace * 10)} ]; do sleep 0.1; t=$((t+1)); done; '
                  'kill -KILL $(mine) 2>/dev/null; true')
        return self._run_quiet(m, script)

    def end_machine(self, m: str, host_pids: Iterable[int], group: int, names: Iterable[str],
                    sockets: Iterable[str]) -> str:
        """On machine m, once stop_ns_processes() has run: the host shells
        (SIGHUP, then SIGKILL), the run's agents' control sockets (a socket
        at one of those paths is its agents', now gone), and the
        interfaces of device group `group` in one request, only when every
        member is one of `names` (nothing is deleted by name alone: a name
        may be someone else's). Returns the problems ('' when none)."""
        pids = " ".join(str(p) for p in host_pids)
        socks = " ".join(shlex.quote(x) for x in sockets)
        ours = " ".join(names)
        script = (
            f'for h in {pids}; do kill -HUP $h 2>/dev/null; done; sleep 0.3; '
            f'for h in {pids}; do kill -KILL $h 2>/dev/null; done; '
            f'for s in {socks}; do [ -S "$s" ] && rm -f "$s"; done; '
            f'members=$(ip -o link show group {group:d} 2>/dev/null | sed -n "s/^[0-9]*: \\([^:@]*\\).*/\\1/p"); '
            f'ok=1; for x in $members; do case " {ours} " in *" $x "*) ;; *) ok=0;; esac; done; '
            f'if [ -n "$members" ] && [ $ok = 1 ]; then ip link delete group {group:d}; fi; true')
        return self._run_quiet(m, script)

    def _run_quiet(self, m, script):
        try:
            rc, _, err = self.run(m, ["sh", "-c", script], timeout=60)
        except (subprocess.SubprocessError, OSError) as e:
            return f"{m}: {e}"
        return "" if rc == 0 else f"{m}: {err.strip()[:300]}"

    def disconnect(self) -> None:
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
def add_options(group: Any) -> None:
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


def from_options(a: argparse.Namespace, error: Callable[[str], NoReturn],
                 log: Callable[[str], None] = print) -> Cluster | None:
    """The Cluster the options ask for, or None; error(message) on bad
    input (the parser's one-line error), before anything is built."""
    if not a.cluster:
        return None
    try:
        machines = parse_servers(a.cluster)
    except ValueError as e:
        error(f"--cluster: {e}")
    if a.cluster_ssh_config and not os.path.isfile(a.cluster_ssh_config):
        error(f"--cluster-ssh-config {a.cluster_ssh_config}: no such file")
    return Cluster(machines, user=a.cluster_user, ssh_config=a.cluster_ssh_config, tunnel=a.cluster_tunnel, log=log)
