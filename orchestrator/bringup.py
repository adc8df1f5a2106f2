"""Bring-up: the wiring from the C library, then hosts, veth links, switches
(OVS or Linux bridges) and per-port configuration (offloads, shaping),
each named in the state file before it is created."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

from mininet.net import Mininet

from . import fit, linkclass, netops, ovs, rcu, state
from .agents import DATA_PATH_TEXT, data_path_of
from .cluster_testbed import ClusterTestbed
from .errors import TestbedError
from .hosts import BatchIntf
from .topology import TopoError, counts, export, tool_path

RUN_DIR = state.STATE_DIR


class BringUp(ClusterTestbed):
    """Mixin of Testbed: start() and the steps it runs."""

    # what every run needs on PATH (Mininet's shells, ip/tc batches), and
    # with OVS switches the OVS tools
    TOOLS = ("ip", "tc", "bash", "mnexec")
    OVS_TOOLS = ("ovs-vsctl", "ovsdb-server", "ovs-vswitchd")

    def preflight(self) -> None:
        """Every check that needs nothing built and no lock: the spec
        (dcn-topo export), the agent's verdict on it, the tools on PATH.
        Raises TestbedError (one line). start() runs it when not done yet."""
        if self.wiring is not None:
            return
        t0 = time.time()
        try:
            why = fit.too_large(counts(self.build_dir, self.spec), fit.mem_available_mib())
            if why:
                raise TestbedError(f"{self.spec}: {why}")
            w = export(self.build_dir, self.spec)
        except TopoError as e:
            raise TestbedError(str(e)) from None
        self._phase("export", t0)
        agent_mode = (w.family != "tree") if self.agent_wanted is None else self.agent_wanted
        if agent_mode:
            self.agent_bin = tool_path(self.build_dir, "dcn-agent")
            self.ctl_bin = tool_path(self.build_dir, "dcn-ctl")
            if not self.agent_bin or not self.ctl_bin:
                raise TestbedError(f"dcn-agent/dcn-ctl not found in {self.build_dir} (not built yet?); "
                                   "use --no-agent for a plain L2 bring-up")
            # The agent says whether it can run this topology (its header's
            # limits, e.g. at most 4 server ports) before anything is created.
            chk = subprocess.run([self.agent_bin, "--check", "--topo", w.spec, "--name",
                                  w.server_list[0]["name"]], capture_output=True, text=True)
            if chk.returncode != 0:
                raise TestbedError((chk.stderr.strip() or chk.stdout.strip()) +
                                   " (use --no-agent for a plain L2 bring-up)")
        missing = [t for t in self.TOOLS + (self.OVS_TOOLS if self.is_ovs else ()) if not shutil.which(t)]
        if missing:
            raise TestbedError("missing on PATH: %s (%s; sudo make deps)" % (
                " ".join(missing), "use --switch lxbr for Linux bridges" if set(missing) <= set(self.OVS_TOOLS)
                else "packages iproute2, mininet, openvswitch-switch"))
        if self.ovs_port_type == "afxdp-nonpmd":
            why = ovs.afxdp_memory_problem(len(self._root_ifnames(w)), ovs.mem_available_kib())
            if why:
                raise TestbedError(f"--switch ovs-afxdp: {why}; use --switch ovs or lxbr")
        self.wiring, self.agent_mode = w, agent_mode
        if self.cluster:
            try:
                self._cluster_preflight()
            except TestbedError:
                self.wiring = None  # checked again by the next preflight
                raise
        if self.capture_wanted and not self._capture_checked:
            # bad port names or folder: an error before anything is made
            # (preflight runs before the lock and again in start(): once)
            try:
                self.check_capture_tool()
                self.capture_wanted = self.resolve_ports(self.capture_wanted)
                self.prepare_capture_dir(self.capture_dir)
            except TestbedError as e:
                raise TestbedError(f"--capture: {e}") from None
            self._capture_checked = True

    def _check_sockets(self):
        """The agents' control-socket paths: a file or a live agent at one
        makes that agent exit at start; refuse before anything is built."""
        for s in self.wiring.server_list:
            if not self._local(s["name"]):
                continue  # on its machine: a stale socket there is replaced by the agent
            path = self._sock(s["name"])
            why = state.socket_occupant(path)
            if why:
                raise TestbedError(f"control socket {path} is occupied ({why}); stop that agent or remove the file")

    def start(self) -> BringUp:
        t_all = time.time()
        self.preflight()
        w = self.wiring
        self.stp = w.switch_loops()
        self._check_leftovers()
        if self.agent_mode:
            self._check_sockets()
        if self.is_ovs:
            try:
                started = ovs.ensure_running(self.log)
            except (RuntimeError, OSError, subprocess.SubprocessError) as e:
                raise TestbedError(f"Open vSwitch: {e}") from None
            if started:  # the teardown stops them again (state.stop_ovs_started)
                # saved at once: a run killed before its next save leaves
                # daemons that `make clean-testbed` must find
                self.state.data["ovs_started"] = state.ovs_daemon_refs(started)
                self.state.save()
                state.kill_point("ovs-started")
            if self.datapath is None:
                self.datapath = "system" if ovs.kernel_datapath_available() else "netdev"
        try:
            self._check_names_free()
        except TestbedError:
            state.stop_ovs_started(self.state.data, self.log)  # nothing else was made yet
            if self.state.data.get("ovs_started"):
                self.state.remove()
            raise
        self._print_plan()

        # The state file lists every name we are about to create, before we
        # create it (this machine's; the other machines' in "cluster").
        d = self.state.data
        d.update(spec=w.spec, switch=self.switch_kind, datapath=self.datapath,
                 bridges=[w.bridge[s["name"]] for s in w.switch_list if self._local(s["name"])],
                 root_links=self._root_ifnames(local=True), dev_group=netops.new_device_group(),
                 sockets=[self._sock(s["name"]) for s in w.server_list if self._local(s["name"])]
                 if self.agent_mode else [])
        self._started = True
        self.state.save()
        state.kill_point("state-saved")
        self._raise_ovs_forwarder()
        os.makedirs(os.path.join(RUN_DIR, "logs"), exist_ok=True)

        if self.agent_mode:  # dcn-ctl and dcn-agent on the hosts' PATH (CLI: `h00 dcn-ctl -n h00 status`)
            d = os.path.dirname(self.ctl_bin)
            if d not in os.environ.get("PATH", "").split(":"):
                os.environ["PATH"] = d + ":" + os.environ.get("PATH", "")
        steps = [("cluster_connect", self._cluster_connect)] if self.cluster else []
        steps += [("hosts", self._create_hosts), ("links", self._create_links), ("switches", self._create_switches),
                 ("host_config", self._configure_hosts)]
        if self.capture_wanted:  # after the ports are configured, before the agents' first hellos
            steps.append(("capture", lambda: self.capture_start(self.capture_wanted)))
        if self.agent_mode:  # expedited RCU only while the agents attach their BPF links (orchestrator/rcu.py)
            steps += [("agents_start", self._agents_start), ("agents_ready", self._agents_ready)]
        for name, step in steps:
            t0 = time.time()
            step()
            self._phase(name, t0)
            state.kill_point(name)
        self.timings["total"] = round(time.time() - t_all, 3)
        self.log("*** testbed up in %.1f s (%s)" % (self.timings["total"], ", ".join(
            f"{k} {v:.1f}s" for k, v in self.timings.items() if k != "total")))
        return self

    def _raise_ovs_forwarder(self):
        """With OVS's userspace datapath, its forwarding thread (ovs-vswitchd's
        main thread) at real-time priority for the run (ovs.raise_forwarder),
        recorded in the state file first, so that the teardown, or the clean
        of a killed run, gives it back its policy. Off with ovs_rt=False."""
        if not (self.is_ovs and self.datapath == "netdev" and self.ovs_rt):
            return
        pid = ovs.vswitchd_pid()
        before = ovs.thread_sched(pid) if pid else None
        if before is None:
            self.log("*** warning: ovs-vswitchd's pid not found; it forwards at its own priority")
            return
        if before == (ovs.FORWARDER_POLICY, ovs.FORWARDER_PRIORITY):
            return  # already there (set by its owner): nothing to give back
        ref = state.proc_ref(pid, "ovs-vswitchd")
        ref.update(policy=before[0], priority=before[1])
        self.state.data["ovs_forwarder"] = ref
        self.state.save()
        why = ovs.raise_forwarder(pid)
        if why:
            del self.state.data["ovs_forwarder"]
            self.state.save()
            self.log(f"*** warning: {why}; OVS forwards at its own priority (it loses frames at a few hundred "
                     "ports, docs/testbed.md)")
            return
        self.log(f"*** ovs-vswitchd's forwarding thread (pid {pid:d}) at {ovs.policy_name(ovs.FORWARDER_POLICY)} "
                 f"{ovs.FORWARDER_PRIORITY:d} for this run (was {ovs.policy_name(before[0])} {before[1]:d})")

    def _agents_start(self):
        self._expedite_rcu()
        self._start_agents()

    def _agents_ready(self):
        self.wait_ready()
        self._restore_rcu()

    def _expedite_rcu(self):
        """Expedited RCU grace periods while agents on the kernel's data path
        attach (or detach) their TCX links, one grace period each under the
        RTNL lock (orchestrator/rcu.py). The value found goes in the state
        file first, so that the teardown, or the clean of a killed run, puts
        it back. Nothing is touched for agents on their own data path."""
        if not (self.agent_mode and data_path_of(self.agent_args) == "kernel") or "rcu_expedited" in self.state.data:
            return
        before = rcu.read()
        if before != 0:
            return  # no knob, or already on (someone else's): nothing to give back
        self.state.data["rcu_expedited"] = {"before": before}
        self.state.save()
        if rcu.expedite() is None:
            del self.state.data["rcu_expedited"]
            self.state.save()

    def _restore_rcu(self):
        rec = self.state.data.pop("rcu_expedited", None)
        if rec is not None:
            rcu.restore(rec["before"])
            self.state.save()

    def _check_names_free(self):
        """The bridges and switch ports this run would create must not exist:
        OVS would adopt a bridge of the same name (--may-exist), and the
        teardown would then remove what is not the run's."""
        w = self.wiring
        bridges = [w.bridge[s["name"]] for s in w.switch_list]
        present = {n for _, n in socket.if_nameindex()}
        if self.is_ovs:
            present |= set(ovs.list_bridges())
        taken = [n for n in bridges + self._root_ifnames() if n in present]
        if taken:
            names = " ".join(taken[:5]) + (" ..." if len(taken) > 5 else "")
            raise TestbedError(f"{len(taken)} of the names this run needs exist already ({names}), "
                               "made outside any recorded "
                               "run; remove them first (ip link del / ovs-vsctl del-br)")

    def _check_leftovers(self):
        data = state.load(self.state.path)
        if data is None:
            return
        if not data.get("corrupt") and state.owner_alive(data):
            raise TestbedError(f'another testbed run (pid {data["owner"]["pid"]:d}) is active; stop it first')
        self.log("*** a previous run left state behind; cleaning it first")
        state.clean_stale(self.state.path, self.log)

    def _print_plan(self):
        w = self.wiring
        kinds = {}
        for l in w.links:
            kinds[l["kind"]] = kinds.get(l["kind"], 0) + 1
        by_kind = ", ".join(f"{v:d} {k}" for k, v in sorted(kinds.items()))
        self.log(f"*** topology {w.spec}: {len(w.server_list)} servers, {len(w.switch_list)} switches, "
                 f"{len(w.links)} links ({by_kind})")
        if self.is_ovs:
            port_type = f", {self.ovs_port_type} ports" if self.ovs_port_type else ""
            sw = f"OVS bridges, {self.datapath} datapath{port_type}, standalone, no controller, no STP"
        else:
            sw = "Linux bridges, no STP"
        if self.stp:
            sw = sw.replace("no STP", "STP ON because switch-switch links form loops (slow to converge)")
        self.log(f"*** switches: {sw}")
        ports = len(self._root_ifnames())
        if self.is_ovs and self.datapath == "netdev" and ports > ovs.NETDEV_PORTS_SEEN_OK:
            self.log(f"*** warning: {ports:d} switch ports on OVS's userspace datapath, which forwards in one thread; "
                     f"above {ovs.NETDEV_PORTS_SEEN_OK:d} it has carried traffic here only slowly, or lost it "
                     "(docs/testbed.md); "
                     "--switch lxbr carries this size")
        if self.cluster:
            self._cluster_print_plan()
        self.log("*** link classes (scaled down; change with --server-link / --highspeed-link):")
        for line in linkclass.plan_lines(w.family, kinds, self.server_link, self.highspeed_link, self.mtu):
            self.log("***   " + line)
        if self.agent_mode:
            self.log(f"*** servers: dcn-agent each (hello {self.hello_ms:d} ms, {self.dead_misses:d} misses; "
                     f"{DATA_PATH_TEXT[data_path_of(self.agent_args)]})")
        else:
            self.log("*** servers: plain IP on their ports, no agent")

    def _root_ifnames(self, w=None, local=False):
        """The switch side of every link (root namespace), in link order;
        local: only of the switches on this machine (--cluster)."""
        w = w or self.wiring
        out = []
        for l in w.links:
            for end, ifn in ((l["a"], l["a_if"]), (l["b"], l["b_if"])):
                if not w.is_server(end) and (not local or self._local(end)):
                    out.append(ifn)
        return out

    def _sock(self, server):
        return os.path.join(state.AGENT_SOCK_DIR, f"{server}.sock")

    def _create_hosts(self, workers=8):
        """Mininet hosts, several shells started at once (each start mostly
        waits for its bash prompt); PIDs recorded in chunks as they come."""
        w = self.wiring
        self.net = Mininet(topo=None, build=False, controller=None, autoSetMacs=False)
        n = len(w.server_list)
        t0 = last = time.time()

        first_if = {}
        for l in sorted(w.links, key=lambda x: (x["a_port"], x["b_port"])):
            for end, ifn in ((l["a"], l["a_if"]), (l["b"], l["b_if"])):
                if w.is_server(end):
                    first_if.setdefault(end, ifn)

        make = self._new_host  # DcnHost here, DcnRemoteHost on another machine (--cluster)

        made = {}
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(make, s) for s in w.server_list]
            try:
                for i, f in enumerate(futures):
                    h = f.result()
                    made[h.name] = h
                    if i == n // 2:
                        state.kill_point("hosts-half")
                    if not self._local(h.name):
                        self._record_remote_host(h)
                        continue
                    self.state.data["hosts"].append(state.host_ref(h.pid, h.name, first_if.get(h.name)))
                    if i % 64 == 63 or i == n - 1:
                        self.state.save()
                    if time.time() - last > 2 and i < n - 1:
                        self.log(f"*** hosts {i + 1:d}/{n:d} ({time.time() - t0:.0f} s)")
                        last = time.time()
            finally:
                # keep every host that did start, even on error, so teardown finds it
                for f in futures:
                    if f.done() and not f.cancelled() and f.exception() is None:
                        h = f.result()
                        made.setdefault(h.name, h)
                        if not self._local(h.name):
                            if all(r["pid"] != h.pid for r in self.state.data.get("cluster", {}).get(
                                    "hosts", {}).get(h.server, [])):
                                self._record_remote_host(h)
                            continue
                        ref = state.host_ref(h.pid, h.name, first_if.get(h.name))
                        if all(r["pid"] != h.pid for r in self.state.data["hosts"]):
                            self.state.data["hosts"].append(ref)
                self.state.save()
        for s in w.server_list:  # server order, as the export lists them
            h = made[s["name"]]
            self.hosts[h.name] = h
            self.net.hosts.append(h)
            self.net.nameToNode[h.name] = h
        # new interfaces in the hosts inherit "no IPv6" (no RS/DAD/MLD noise on raw ports)
        for h in self.hosts.values():
            self._ns_sysctls(h.name, [("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1"),
                                      ("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1")])
        self.log(f"*** {n:d} hosts ({time.time() - t0:.1f} s)")

    def _create_links(self):
        """veth pairs on each machine (one `ip -batch` per 2048); with
        --cluster, a tunnel per link between machines (cluster_testbed)."""
        w = self.wiring
        n = 0
        mtu = self.mtu
        group = self.state.data["dev_group"]
        same, cross = self._links_by_machine()
        for machine, links in same.items():
            lines = []
            for l in links:
                ends = []
                for end, ifn in ((l["a"], l["a_if"]), (l["b"], l["b_if"])):
                    # a host's end goes to its namespace; a switch's joins the run's device group
                    where = f" netns {self.hosts[end].pid:d}" if w.is_server(end) else f" group {group:d}"
                    ends.append(f"{ifn}{where} mtu {mtu:d}")
                lines.append(f"link add {ends[0]} type veth peer name {ends[1]}")
            for i in range(0, len(lines), 2048):
                self._machine_batch(machine, "ip", lines[i:i + 2048], force=False)
            n += len(lines)
        registered = self._cluster_tunnels(cross) if cross else set()
        # register the host-side ends as Mininet interfaces, in port order
        for l in sorted(w.links, key=lambda x: (x["a_port"])):
            for end, port, ifn in ((l["a"], l["a_port"], l["a_if"]), (l["b"], l["b_port"], l["b_if"])):
                if w.is_server(end) and ifn not in registered:
                    BatchIntf(ifn, self.hosts[end], port, link=None)
        tunnels = f", {len(cross):d} of them tunnels between machines" if cross else ""
        self.log(f"*** {n + len(cross):d} links{tunnels}")

    def _machine_batch(self, machine, tool, lines, force=True, check=True):
        """A batch in a machine's own namespace (this one: `localhost`)."""
        if self.cluster and self.cluster.remote(machine):
            return self.cluster.batch(machine, tool, lines, force=force, check=check)
        return netops.run_batch(tool, lines, force=force, check=check)

    def _link_params(self, l):
        return linkclass.params_for(self.wiring.family, l["kind"], self.server_link, self.highspeed_link)

    def _configure_hosts(self):
        """Per host: ports up, offloads, shaping, address (tree baseline).
        Root side: switch ports up, no IPv6, offloads, shaping."""
        w = self.wiring
        t0 = time.time()
        per_host = {}
        root_ifs, root_tc = {}, {}  # by machine (one, this, without --cluster)
        for l in w.links:
            params = self._link_params(l)
            for end, ifn in ((l["a"], l["a_if"]), (l["b"], l["b_if"])):
                if w.is_server(end):
                    per_host.setdefault(end, []).append((ifn, params))
                else:
                    root_ifs.setdefault(self._machine(end), []).append(ifn)
                    root_tc.setdefault(self._machine(end), []).extend(linkclass.tc_lines(ifn, params))
        offload = self.is_ovs and self.datapath == "netdev"
        for machine, ifs in root_ifs.items():
            if self.cluster and self.cluster.remote(machine):  # lxbr only there (no offloads to turn off)
                self.cluster.run(machine, ["sh", "-c", "; ".join(
                    f"echo 1 > /proc/sys/net/ipv6/conf/{i}/disable_ipv6" for i in ifs) + "; true"])
                self.cluster.batch(machine, "tc", root_tc.get(machine, []))
                self.cluster.batch(machine, "ip", [f"link set dev {i} up" for i in ifs], force=False)
                continue
            netops.write_sysctls([(f"/proc/sys/net/ipv6/conf/{i}/disable_ipv6", "1") for i in ifs])
            if offload:
                netops.offloads_off(ifs)
            netops.run_batch("tc", root_tc.get(machine, []))
            missing = netops.set_up(ifs)
            if missing:
                raise TestbedError(f'switch ports missing: {" ".join(missing[:10])}')
        self._phase("host_config_root_side", t0)

        def one(name, h):
            ifs = per_host.get(name, [])
            names = [i for i, _ in ifs]
            if offload:
                netops.offloads_off(names, h.pid)
            tc = []
            for ifn, params in ifs:
                tc += linkclass.tc_lines(ifn, params)
            self._ns_batch(name, "tc", tc)
            missing = self._ns_set_up(name, ["lo"] + names)
            if missing:
                raise TestbedError(f'{name}: interfaces missing: {" ".join(missing)}')
            if not self.agent_mode and names:
                # tree baseline: the address on the single port
                first = h.intfs[min(h.intfs)]
                self._ns_batch(name, "ip", [f"addr add {h.dcn_ip}/8 dev {first.name}"])
                first.ip, first.prefixLen = h.dcn_ip, 8

        # one `tc -batch` process per host: several at once (each thread
        # enters its host's namespace by itself)
        with ThreadPoolExecutor(max_workers=4) as pool:
            for f in [pool.submit(one, name, h) for name, h in self.hosts.items()]:
                f.result()
        self.log(f'*** ports configured{" (offloads off on both veth ends)" if offload else ""}')

    def _create_switches(self):
        w = self.wiring
        ports = {}
        for l in w.links:
            for end, ifn in ((l["a"], l["a_if"]), (l["b"], l["b_if"])):
                if not w.is_server(end):
                    ports.setdefault(end, []).append(ifn)
        if self.is_ovs:
            cmds = []
            for s in w.switch_list:
                cmds += ovs.add_bridge_cmds(w.bridge[s["name"]], self.datapath,
                                            sorted(ports.get(s["name"], []), key=_port_key), stp=self.stp,
                                            port_type=self.ovs_port_type)
            ovs.vsctl_batch(cmds, chunk=1024)
        else:
            lines = {}  # by machine (one, this, without --cluster)
            for s in w.switch_list:
                b = w.bridge[s["name"]]
                ml = lines.setdefault(self._machine(s["name"]), [])
                stp = "stp_state 1 forward_delay 200 hello_time 100 max_age 600" if self.stp else \
                    "stp_state 0 forward_delay 0"
                ml.append(f"link add {b} type bridge {stp} mcast_snooping 0 ageing_time 30000")
                for p in ports.get(s["name"], []):
                    ml.append(f"link set dev {p} master {b}")
                ml.append(f'link set dev {b} group {self.state.data["dev_group"]:d} up')
            for machine, ml in lines.items():
                self._machine_batch(machine, "ip", ml, force=False)
            sysctls = {}  # by machine: one of its switches, and every bridge's setting there
            for s in w.switch_list:
                _, pairs = sysctls.setdefault(self._machine(s["name"]), (s["name"], []))
                pairs.append((f'/proc/sys/net/ipv6/conf/{w.bridge[s["name"]]}/disable_ipv6', "1"))
            for node, pairs in sysctls.values():
                self._ns_sysctls(node, pairs)
        self.log(f'*** {len(w.switch_list)} {"OVS" if self.is_ovs else "Linux"} bridges')


def _port_key(ifn):
    try:
        return int(ifn.rsplit("-eth", 1)[1])
    except (IndexError, ValueError):
        return 0
