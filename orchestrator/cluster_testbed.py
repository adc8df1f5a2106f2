"""Mixin of Testbed: what changes when the run spans machines
(--cluster, orchestrator/cluster.py). Every operation on a node's
namespace goes through _ns_batch/_ns_set_up/_ns_sysctls: on this machine
by the node's pid (netops), on another one over ssh in that machine's
namespace (Cluster.batch). Without a cluster every node is `localhost`
and these are netops' calls as before."""
from __future__ import annotations

import os
import random
import shutil

from . import netops, state
from .cluster import RemoteVXLANLink, cross_links, gre_link_class, place, plan_lines
from .errors import TestbedError
from .hosts import BatchIntf, DcnHost

LOCAL = "localhost"


class ClusterTestbed:
    """Base of Testbed's mixins (self.cluster: a cluster.Cluster or None;
    None here, so that a mixin used alone, as the tests' stand-ins do,
    works on this machine as before)."""

    cluster = None
    where = {}

    # ----------------------------------------------------------- where
    def _machine(self, node):
        return self.where.get(node, LOCAL) if self.cluster else LOCAL

    def _remote_node(self, node):
        return self.cluster is not None and self.cluster.remote(self._machine(node))

    def _local(self, node):
        return not self._remote_node(node)

    def _ns_pid(self, node):
        """The pid whose namespace holds node's ports, on node's machine
        (None: this machine's own namespace)."""
        if self.wiring.is_server(node):
            return self.hosts[node].pid
        if self._remote_node(node):
            return self.cluster.nodes[self._machine(node)].pid
        return None

    def ns_pid_here(self, node: str) -> int | None:
        """_ns_pid when that pid is one of this kernel's (every node without
        a cluster; with one, only when every machine is this kernel, as in
        the one-box test): what the experiments' samplers read /proc by.
        TestbedError otherwise."""
        if self._remote_node(node) and not self.cluster.same_kernel():
            raise TestbedError(f"{node} is on machine {self._machine(node)}: its counters are not readable here "
                               "(docs/cluster.md, limits)")
        return self._ns_pid(node)

    # ------------------------------------------------------ operations
    def _ns_batch(self, node, tool, lines, check=True, force=True):
        if self._remote_node(node):
            return self.cluster.batch(self._machine(node), tool, lines,
                                      pid=self.hosts[node].pid if self.wiring.is_server(node) else None,
                                      check=check, force=force)
        return netops.run_batch(tool, lines, pid=self._ns_pid(node), check=check, force=force)

    def _ns_set_up(self, node, names, up=True):
        """Interfaces up or down in node's namespace; the names missing."""
        if not self._remote_node(node):
            return netops.set_up(names, self._ns_pid(node), up)
        word = "up" if up else "down"
        err = self._ns_batch(node, "ip", [f"link set dev {n} {word}" for n in names], check=False)
        return [n for n in names if f'"{n}"' in err or f" {n} " in err]

    def _ns_sysctls(self, node, pairs):
        if not self._remote_node(node):
            return netops.write_sysctls(pairs, self._ns_pid(node))
        script = "; ".join(f"echo {v} > {p} 2>/dev/null" for p, v in pairs) + "; true"
        pid = self.hosts[node].pid if self.wiring.is_server(node) else None
        self.cluster.run(self._machine(node), ["sh", "-c", script], pid=pid)
        return None

    # --------------------------------------------------------- bring-up
    def _cluster_preflight(self):
        c = self.cluster
        if self.is_ovs:
            raise TestbedError("--cluster: Linux bridges only (--switch lxbr); docs/cluster.md")
        if self.capture_wanted:
            raise TestbedError("--cluster: --capture is not available across machines")
        tools = ["mnexec", "ip", "tc", "bash", "sh", "ping", "iperf3"] + (
            [self.agent_bin] if self.agent_mode else [])
        mtu = c.check(tools, self.mtu)
        if self.local_pids_needed and not c.same_kernel():
            raise TestbedError("--cluster: an experiment reads every server's counters through this machine's "
                               "/proc, which holds only this machine's processes; across real machines only the "
                               "testbed (make testbed) runs for now (docs/cluster.md)")
        if mtu < self.mtu:
            self.log(f"*** cluster: links at MTU {mtu:d} instead of {self.mtu:d}: the {c.tunnel.upper()} tunnels "
                     f"carry no more over an underlay of MTU {min(c.underlay_mtu.values()):d} (docs/cluster.md)")
            self.mtu = mtu
        self.where = place(self.wiring, c.machines)

    def _cluster_print_plan(self):
        for line in plan_lines(self.wiring, self.where, self.cluster.machines, self.cluster.tunnel, self.mtu):
            self.log("*** " + line)

    def _cluster_connect(self):
        """ssh masters and a root shell per machine; the run's record of
        the machines in the state file first."""
        c = self.cluster
        rec = self.state.data["cluster"] = {"machines": c.machines, "ip": c.ip, "user": c.user,
                                            "group": self.state.data["dev_group"], "hosts": {}, "masters": []}
        self.state.save()

        def add(pid, what):  # not in "procs": the teardown stops those first, these last
            rec["masters"].append(state.proc_ref(pid, what))
            self.state.save()
        c.connect(add)
        for m in c.remotes():  # where the agents there put their logs and control sockets
            rc, _, err = c.run(m, ["mkdir", "-p", os.path.join(state.STATE_DIR, "logs"), state.AGENT_SOCK_DIR])
            if rc != 0:
                raise TestbedError(f"cluster machine {m}: mkdir failed: {err.strip()[:200]}")

    def _new_host(self, s):
        m = self._machine(s["name"])
        ip = self.wiring.server_ip(s["id"])
        if self.cluster and self.cluster.remote(m):
            return self.cluster.new_host(m, s["name"], s["id"], ip, self.agent_mode)
        h = DcnHost(s["name"], s["id"], ip, self.agent_mode)
        if self.cluster:  # an end of a tunnel: RemoteVXLANLink asks it these (its batch: this machine's
            h.server, h.serverIP = LOCAL, self.cluster.ip[LOCAL]  # own namespace, the underlay's)
            h.cluster_batch = self._local_batch_err
        return h

    @staticmethod
    def _local_batch_err(tool, lines):
        try:
            netops.run_batch(tool, lines, force=False)
        except RuntimeError as e:
            return str(e)
        return ""

    def _record_remote_host(self, h):
        """A remote host's pid is its machine's: never in the local list
        that make clean-testbed signals by pid."""
        self.state.data["cluster"]["hosts"].setdefault(h.server, []).append({"name": h.name, "pid": h.pid})

    def _links_by_machine(self):
        """{machine: [link]} of the links with both ends on one machine,
        and the list of the links that cross machines."""
        same, cross = {}, cross_links(self.wiring, self.where) if self.cluster else []
        crossing = {id(l) for l in cross}
        for l in self.wiring.links:
            if id(l) not in crossing:
                same.setdefault(self._machine(l["a"]), []).append(l)
        return same, cross

    def _cluster_tunnels(self, cross):
        """A tunnel per crossing link (RemoteVXLANLink, or Mininet's
        RemoteGRELink), its two ends registered on their nodes. Returns the
        server-side interface names it registered."""
        c = self.cluster
        vni0 = random.SystemRandom().randrange(1 << 12, 1 << 23)
        done = set()
        group = self.state.data["dev_group"]
        for i, l in enumerate(cross):
            ends = []
            for end, port, ifn in ((l["a"], l["a_port"], l["a_if"]), (l["b"], l["b_port"], l["b_if"])):
                if self.wiring.is_server(end):
                    ends.append((self.hosts[end], port, ifn))
                    done.add(ifn)
                else:
                    ends.append((c.nodes[self._machine(end)], None, ifn))
            (n1, p1, i1), (n2, p2, i2) = ends
            kw = dict(port1=p1, port2=p2, intfName1=i1, intfName2=i2, cls1=BatchIntf, cls2=BatchIntf)
            if c.tunnel == "gre":
                self.links_made.append(gre_link_class()(n1, n2, **kw))
            else:
                self.links_made.append(RemoteVXLANLink(n1, n2, vni=vni0 + i, mtu=self.mtu, group=group, **kw))
        return done

    def _remote_root_ifnames(self, m):
        w = self.wiring
        out = []
        for l in w.links:
            for end, ifn in ((l["a"], l["a_if"]), (l["b"], l["b_if"])):
                if not w.is_server(end) and self._machine(end) == m:
                    out.append(ifn)
        return out

    # --------------------------------------------------------- agents
    def _ctl_sock(self, name):
        """Where this process reaches agent `name`'s control socket: the
        socket itself, or for an agent on another machine its ssh-forwarded
        copy under the run's folder."""
        if not self._remote_node(name):
            return self._sock(name)
        return os.path.join(self.cluster.dir, "ctl", f"{name}.sock")

    def _forward_ctl(self, names):
        for n in names:
            if self._remote_node(n):
                self.cluster.forward_socket(self._machine(n), self._ctl_sock(n), self._sock(n))

    # -------------------------------------------------------- teardown
    def _remote_hosts(self, m):
        return [h["pid"] for h in self.state.data.get("cluster", {}).get("hosts", {}).get(m, [])]

    def _cluster_stop_processes(self):
        """On each remote machine, the processes in this run's host
        namespaces, by SIGTERM there first (an agent then removes its
        control socket; ending its ssh here would only hang it up)."""
        problems = [self.cluster.stop_ns_processes(m, self._remote_hosts(m))
                    for m in (self.cluster.remotes() if self.cluster else []) if m in self.cluster.nodes]
        if any(problems):
            raise TestbedError("; ".join(p for p in problems if p))

    def _cluster_teardown(self):
        """On each remote machine: the host shells, the run's device group
        (bridges, switch ends of veths and tunnels), stale agent sockets."""
        if not self.cluster:
            return
        problems = []
        for m in self.cluster.remotes():
            if m not in self.cluster.nodes:
                continue
            names = self._remote_root_ifnames(m) + [self.wiring.bridge[s["name"]] for s in self.wiring.switch_list
                                                    if self._machine(s["name"]) == m]
            socks = [self._sock(s["name"]) for s in self.wiring.server_list
                     if self._machine(s["name"]) == m] if self.agent_mode else []
            why = self.cluster.end_machine(m, self._remote_hosts(m), self.state.data["dev_group"], names, socks)
            if why:
                problems.append(why)
        if problems:
            raise TestbedError("; ".join(problems))

    def _stop_remote_agent(self, name):
        """SIGTERM to the agent in remote host `name`, there (see
        _cluster_stop_processes); its ssh session here then ends by itself."""
        why = self.cluster.stop_ns_processes(self._machine(name), [self.hosts[name].pid], comm="dcn-agent")
        if why:
            self.log(f"*** {why}")

    def _cluster_disconnect(self):
        if not self.cluster:
            return
        for link in self.links_made:
            link.tunnel = None  # their devices went with the group and the namespaces
        self.cluster.disconnect()
        shutil.rmtree(os.path.join(self.cluster.dir, "ctl"), ignore_errors=True)
        for m in self.cluster.machines:
            try:
                os.unlink(self.cluster.control_path(m))
            except OSError:
                pass
        try:
            os.rmdir(self.cluster.dir)
        except OSError:
            pass
        self.state.data.pop("cluster", None)
        state.kill_point("cluster-disconnected")
