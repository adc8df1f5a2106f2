"""The testbed: builds a topology family on Mininet hosts and OVS (or Linux)
bridges from the library's export, starts one dcn-agent per server, waits for
readiness, injects failures and removes exactly what it created."""
import datetime
import json
import os
import signal
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

from mininet.net import Mininet

from . import linkclass, netops, ovs, state
from .hosts import BatchIntf, DcnHost
from .topology import TopoError, export, tool_path

RUN_DIR = state.STATE_DIR


class TestbedError(RuntimeError):
    pass


def _now_iso():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


class Testbed:
    """Use as a context manager, or call start() and stop() (stop is
    idempotent and also runs on SIGTERM through the entry script)."""

    __test__ = False  # not a pytest test class

    def __init__(self, build_dir, spec, switch="ovs", datapath=None, server_link=None,
                 highspeed_link=None, mtu=linkclass.DEFAULT_MTU, hello_ms=100, dead_misses=3,
                 agent=None, ready_timeout=None, state_path=state.STATE_FILE, log=None,
                 agent_args=(), event_log=None):
        self.build_dir = build_dir
        self.spec = spec
        if switch not in ("ovs", "lxbr"):
            raise TestbedError("--switch must be ovs or lxbr")
        self.switch_kind = switch
        self.datapath = datapath
        self.server_link = dict(linkclass.DEFAULT_SERVER if server_link is None else server_link)
        self.highspeed_link = dict(linkclass.DEFAULT_HIGHSPEED if highspeed_link is None
                                   else highspeed_link)
        self.mtu = mtu
        self.hello_ms = hello_ms
        self.dead_misses = dead_misses
        self.agent_wanted = agent  # None: auto (every family except the tree baseline)
        self.ready_timeout = ready_timeout
        self.agent_args = list(agent_args)
        self.log = log or (lambda msg: print(msg, flush=True))
        self.state = state.State(state_path)
        self.event_log = event_log or os.path.join(RUN_DIR, "events.log")
        self.wiring = None
        self.net = None
        self.hosts = {}
        self.agents = {}      # server name -> Popen
        self.aux = {}         # pid -> Popen (iperf, ping shells)
        self.events = []
        self.timings = {}
        self.agent_mode = False
        self.stp = False
        self.agent_bin = self.ctl_bin = None
        self._stopped = False
        self._started = False

    # ------------------------------------------------------------------ setup
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def _phase(self, name, t0):
        self.timings[name] = round(time.time() - t0, 3)

    def start(self):
        t_all = time.time()
        t0 = time.time()
        try:
            self.wiring = w = export(self.build_dir, self.spec)
        except TopoError as e:
            raise TestbedError(str(e)) from None
        self._phase("export", t0)
        self.agent_mode = (w.family != "tree") if self.agent_wanted is None else self.agent_wanted
        if self.agent_mode:
            self.agent_bin = tool_path(self.build_dir, "dcn-agent")
            self.ctl_bin = tool_path(self.build_dir, "dcn-ctl")
            if not self.agent_bin or not self.ctl_bin:
                raise TestbedError("dcn-agent/dcn-ctl not found in %s (not built yet?); "
                                   "use --no-agent for a plain L2 bring-up" % self.build_dir)
            # The agent says whether it can run this topology (its header's
            # limits, e.g. at most 4 server ports) before anything is created.
            chk = subprocess.run([self.agent_bin, "--check", "--topo", w.spec, "--name",
                                  w.server_list[0]["name"]], capture_output=True, text=True)
            if chk.returncode != 0:
                raise TestbedError((chk.stderr.strip() or chk.stdout.strip()) +
                                   " (use --no-agent for a plain L2 bring-up)")
        self.stp = w.switch_loops()
        self._check_leftovers()
        if self.switch_kind == "ovs":
            ovs.ensure_running(self.log)
            if self.datapath is None:
                self.datapath = "system" if ovs.kernel_datapath_available() else "netdev"
        self._print_plan()

        # The state file lists every name we are about to create, before we create it.
        d = self.state.data
        d.update(spec=w.spec, switch=self.switch_kind, datapath=self.datapath,
                 bridges=[w.bridge[s["name"]] for s in w.switch_list],
                 root_links=self._root_ifnames(),
                 sockets=[self._sock(s["name"]) for s in w.server_list] if self.agent_mode else [])
        self._started = True
        self.state.save()
        os.makedirs(os.path.join(RUN_DIR, "logs"), exist_ok=True)

        if self.agent_mode:  # dcn-ctl and dcn-agent on the hosts' PATH (CLI: `h00 dcn-ctl -n h00 status`)
            d = os.path.dirname(self.ctl_bin)
            if d not in os.environ.get("PATH", "").split(":"):
                os.environ["PATH"] = d + ":" + os.environ.get("PATH", "")
        t0 = time.time()
        self._create_hosts()
        self._phase("hosts", t0)
        t0 = time.time()
        self._create_links()
        self._phase("links", t0)
        t0 = time.time()
        self._create_switches()
        self._phase("switches", t0)
        t0 = time.time()
        self._configure_hosts()
        self._phase("host_config", t0)
        if self.agent_mode:
            t0 = time.time()
            self._start_agents()
            self._phase("agents_start", t0)
            t0 = time.time()
            self.wait_ready()
            self._phase("agents_ready", t0)
        self.timings["total"] = round(time.time() - t_all, 3)
        self.log("*** testbed up in %.1f s (%s)" % (self.timings["total"], ", ".join(
            "%s %.1fs" % (k, v) for k, v in self.timings.items() if k != "total")))
        return self

    def _check_leftovers(self):
        data = state.load(self.state.path)
        if data is None:
            return
        if not data.get("corrupt") and state.owner_alive(data):
            raise TestbedError("another testbed run (pid %d) is active; stop it first"
                               % data["owner"]["pid"])
        self.log("*** a previous run left state behind; cleaning it first")
        state.clean_stale(self.state.path, self.log)

    def _print_plan(self):
        w = self.wiring
        kinds = {}
        for l in w.links:
            kinds[l["kind"]] = kinds.get(l["kind"], 0) + 1
        self.log("*** topology %s: %d servers, %d switches, %d links (%s)" % (
            w.spec, len(w.server_list), len(w.switch_list), len(w.links),
            ", ".join("%d %s" % (v, k) for k, v in sorted(kinds.items()))))
        if self.switch_kind == "ovs":
            sw = "OVS bridges, %s datapath, standalone, no controller, no STP" % self.datapath
        else:
            sw = "Linux bridges, no STP"
        if self.stp:
            sw = sw.replace("no STP", "STP ON because switch-switch links form loops (slow to converge)")
        self.log("*** switches: %s" % sw)
        self.log("*** link classes (scaled down; change with --server-link / --highspeed-link):")
        self.log("***   server links: %s, MTU %d" % (linkclass.describe(self.server_link), self.mtu))
        if kinds.get("switch-switch"):
            self.log("***   high-speed switch-switch links: %s" % linkclass.describe(self.highspeed_link))
        if self.agent_mode:
            self.log("*** servers: dcn-agent each (hello %d ms, %d misses)" % (self.hello_ms, self.dead_misses))
        else:
            self.log("*** servers: plain IP on their ports, no agent")

    def _root_ifnames(self):
        w = self.wiring
        out = []
        for l in w.links:
            for end, ifn in ((l["a"], l["a_if"]), (l["b"], l["b_if"])):
                if not w.is_server(end):
                    out.append(ifn)
        return out

    def _sock(self, server):
        return os.path.join(state.AGENT_SOCK_DIR, "%s.sock" % server)

    def _create_hosts(self, workers=8):
        """Mininet hosts, several shells started at once (each start mostly
        waits for its bash prompt); PIDs recorded in chunks as they come."""
        w = self.wiring
        self.net = Mininet(topo=None, build=False, controller=None, autoSetMacs=False)
        n = len(w.server_list)
        t0 = last = time.time()

        def make(s):
            return DcnHost(s["name"], s["id"], w.server_ip(s["id"]), self.agent_mode)

        made = {}
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(make, s) for s in w.server_list]
            try:
                for i, f in enumerate(futures):
                    h = f.result()
                    made[h.name] = h
                    self.state.data["hosts"].append(state.proc_ref(h.pid, "host " + h.name))
                    if i % 64 == 63 or i == n - 1:
                        self.state.save()
                    if time.time() - last > 2 and i < n - 1:
                        self.log("*** hosts %d/%d (%.0f s)" % (i + 1, n, time.time() - t0))
                        last = time.time()
            finally:
                # keep every host that did start, even on error, so teardown finds it
                for f in futures:
                    if f.done() and not f.cancelled() and f.exception() is None:
                        h = f.result()
                        made.setdefault(h.name, h)
                        ref = state.proc_ref(h.pid, "host " + h.name)
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
            netops.write_sysctls([("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1"),
                                  ("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1")], h.pid)
        self.log("*** %d hosts (%.1f s)" % (n, time.time() - t0))

    def _create_links(self):
        w = self.wiring
        lines = []
        mtu = self.mtu
        for l in w.links:
            ends = []
            for end, ifn in ((l["a"], l["a_if"]), (l["b"], l["b_if"])):
                ns = " netns %d" % self.hosts[end].pid if w.is_server(end) else ""
                ends.append("%s%s mtu %d" % (ifn, ns, mtu))
            lines.append("link add %s type veth peer name %s" % (ends[0], ends[1]))
        for i in range(0, len(lines), 2048):
            netops.run_batch("ip", lines[i:i + 2048], force=False)
        # register the host-side ends as Mininet interfaces, in port order
        for l in sorted(w.links, key=lambda x: (x["a_port"])):
            for end, port, ifn in ((l["a"], l["a_port"], l["a_if"]), (l["b"], l["b_port"], l["b_if"])):
                if w.is_server(end):
                    BatchIntf(ifn, self.hosts[end], port, link=None)
        self.log("*** %d links" % len(lines))

    def _link_params(self, l):
        return self.highspeed_link if l["kind"] == "switch-switch" else self.server_link

    def _configure_hosts(self):
        """Per host: ports up, offloads, shaping, address (tree baseline).
        Root side: switch ports up, no IPv6, offloads, shaping."""
        w = self.wiring
        per_host = {}
        root_ifs, root_tc = [], []
        for l in w.links:
            params = self._link_params(l)
            for end, ifn in ((l["a"], l["a_if"]), (l["b"], l["b_if"])):
                if w.is_server(end):
                    per_host.setdefault(end, []).append((ifn, params))
                else:
                    root_ifs.append(ifn)
                    root_tc += linkclass.tc_lines(ifn, params)
        offload = self.switch_kind == "ovs" and self.datapath == "netdev"
        netops.write_sysctls([("/proc/sys/net/ipv6/conf/%s/disable_ipv6" % i, "1") for i in root_ifs])
        if offload:
            netops.offloads_off(root_ifs)
        netops.run_batch("tc", root_tc)
        missing = netops.set_up(root_ifs)
        if missing:
            raise TestbedError("switch ports missing: %s" % " ".join(missing[:10]))
        for name, h in self.hosts.items():
            ifs = per_host.get(name, [])
            names = [i for i, _ in ifs]
            if offload:
                netops.offloads_off(names, h.pid)
            tc = []
            for ifn, params in ifs:
                tc += linkclass.tc_lines(ifn, params)
            netops.run_batch("tc", tc, pid=h.pid)
            missing = netops.set_up(["lo"] + names, h.pid)
            if missing:
                raise TestbedError("%s: interfaces missing: %s" % (name, " ".join(missing)))
            if not self.agent_mode and names:
                # tree baseline: the address on the single port
                first = h.intfs[min(h.intfs)]
                netops.run_batch("ip", ["addr add %s/8 dev %s" % (h.dcn_ip, first.name)], pid=h.pid)
                first.ip, first.prefixLen = h.dcn_ip, 8
        self.log("*** ports configured%s" % (" (offloads off on both veth ends)" if offload else ""))

    def _create_switches(self):
        w = self.wiring
        ports = {}
        for l in w.links:
            for end, ifn in ((l["a"], l["a_if"]), (l["b"], l["b_if"])):
                if not w.is_server(end):
                    ports.setdefault(end, []).append(ifn)
        if self.switch_kind == "ovs":
            cmds = []
            for s in w.switch_list:
                cmds += ovs.add_bridge_cmds(w.bridge[s["name"]], self.datapath,
                                            sorted(ports.get(s["name"], []), key=_port_key), stp=self.stp)
            ovs.vsctl_batch(cmds, chunk=1024)
        else:
            lines = []
            for s in w.switch_list:
                b = w.bridge[s["name"]]
                lines.append("link add %s type bridge %s mcast_snooping 0 ageing_time 30000" % (
                    b, "stp_state 1 forward_delay 200 hello_time 100 max_age 600" if self.stp
                    else "stp_state 0 forward_delay 0"))
                for p in ports.get(s["name"], []):
                    lines.append("link set dev %s master %s" % (p, b))
                lines.append("link set dev %s up" % b)
            netops.run_batch("ip", lines, force=False)
            netops.write_sysctls([("/proc/sys/net/ipv6/conf/%s/disable_ipv6" % w.bridge[s["name"]], "1")
                                  for s in w.switch_list])
        self.log("*** %d %s bridges" % (len(w.switch_list), "OVS" if self.switch_kind == "ovs" else "Linux"))

    # ----------------------------------------------------------------- agents
    def _agent_cmd(self, name):
        w = self.wiring
        cmd = [self.agent_bin, "--topo", w.spec, "--name", name, "--ctl", self._sock(name),
               "--hello-ms", str(self.hello_ms), "--dead-misses", str(self.dead_misses),
               "--mtu", str(self.mtu), "--log", os.path.join(RUN_DIR, "logs", name + ".log"),
               "--foreground"]
        if self.server_link.get("bw") is not None:
            cmd += ["--capacity-mbps", "%d" % int(self.server_link["bw"])]
        for port, ifn in sorted(w.host_ifname_overrides.get(name, {}).items()):
            cmd += ["--port", "%d=%s" % (port, ifn)]
        return cmd + self.agent_args

    def _spawn(self, host, cmd, what, **kw):
        kw.setdefault("stdin", subprocess.DEVNULL)
        kw.setdefault("stdout", subprocess.DEVNULL)
        kw.setdefault("stderr", subprocess.DEVNULL)
        with netops.in_netns(host.pid):
            p = subprocess.Popen(cmd, start_new_session=True, **kw)
        self.state.add_proc(p.pid, what, save=False)
        return p

    def start_agent(self, name):
        h = self.hosts[name]
        errf = open(os.path.join(RUN_DIR, "logs", name + ".stderr"), "ab")
        try:
            p = self._spawn(h, self._agent_cmd(name), "agent " + name, stderr=errf)
        finally:
            errf.close()
        self.agents[name] = p
        return p

    def _start_agents(self):
        for name in self.hosts:
            self.start_agent(name)
        self.state.save()
        self.log("*** %d agents started" % len(self.agents))

    def agent_status(self, name, timeout=5):
        """`dcn-ctl status --json`, spoken directly on the agent's control
        socket (one line request, answer until close; agent/src/agent/ctl.h):
        no process per query, which matters with thousands of agents."""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(timeout)
                s.connect(self._sock(name))
                s.sendall(b"status --json\n")
                chunks = []
                while True:
                    d = s.recv(65536)
                    if not d:
                        break
                    chunks.append(d)
            return json.loads(b"".join(chunks).decode())
        except (OSError, ValueError):
            return None

    def _agent_dead(self, name):
        p = self.agents.get(name)
        if p is None or p.poll() is None:
            return None
        tail = ""
        for suffix in (".stderr", ".log"):
            try:
                with open(os.path.join(RUN_DIR, "logs", name + suffix)) as f:
                    tail += f.read()[-400:]
            except OSError:
                pass
        return "agent %s exited with status %s: %s" % (name, p.returncode, tail.strip())

    def wait_ready(self, names=None, timeout=None):
        names = list(names or self.hosts)
        if timeout is None:
            timeout = self.ready_timeout or (30 + 0.05 * len(names) +
                                             self.hello_ms * self.dead_misses / 1000.0)
        pending = set(names)
        deadline = time.time() + timeout
        last_print = 0
        t0 = time.time()
        with ThreadPoolExecutor(max_workers=16) as pool:
            while pending:
                for n in list(pending):
                    dead = self._agent_dead(n)
                    if dead:
                        raise TestbedError(dead)
                order = sorted(pending)
                for n, st in zip(order, pool.map(self.agent_status, order)):
                    if st and st.get("ready"):
                        pending.discard(n)
                done = len(names) - len(pending)
                if time.time() - last_print >= 1 or not pending:
                    self.log("*** agents ready %d/%d (%.1f s)" % (done, len(names), time.time() - t0))
                    last_print = time.time()
                if not pending:
                    break
                if time.time() > deadline:
                    sample = sorted(pending)[:8]
                    detail = []
                    for n in sample:
                        st = self.agent_status(n)
                        detail.append("%s: %s" % (n, "unreachable" if st is None else
                                                  "%s/%s neighbours" % (st.get("neighbors_up"),
                                                                        st.get("neighbors_total"))))
                    raise TestbedError("%d agents not ready after %.0f s (%s)" % (
                        len(pending), timeout, "; ".join(detail)))
                time.sleep(min(0.2, max(0.05, self.hello_ms / 2000.0)))
        return time.time() - t0

    def stop_agent(self, name, grace=3.0):
        p = self.agents.pop(name, None)
        if p is None:
            return
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(grace)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.state.drop_proc(p.pid)

    # -------------------------------------------------------- helpers for use
    def host(self, name):
        try:
            return self.hosts[name]
        except KeyError:
            raise TestbedError("no server named %s" % name) from None

    def spawn_in(self, name, cmd, what=None, **kw):
        """Start a tracked auxiliary process (iperf, ping) in a server."""
        p = self._spawn(self.host(name), cmd, what or ("aux in " + name), **kw)
        self.state.save()
        self.aux[p.pid] = p
        return p

    def reap(self, p):
        self.aux.pop(p.pid, None)
        self.state.drop_proc(p.pid)

    def run_in(self, name, cmd, timeout=60):
        """Run cmd in a server, wait, return (rc, stdout, stderr); tracked while it runs."""
        p = self.spawn_in(name, cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            return None, out.decode(errors="replace"), "timeout"
        finally:
            self.reap(p)
        return p.returncode, out.decode(errors="replace"), err.decode(errors="replace")

    # ------------------------------------------------------ failure injection
    def event(self, what, *args):
        line = "%s %s %s" % (_now_iso(), what, " ".join(args))
        self.events.append(line)
        self.log("[event] " + line)
        try:
            with open(self.event_log, "a") as f:
                f.write(line + "\n")
        except OSError:
            pass

    def _node_kind(self, name):
        if name in self.wiring.servers:
            return "server"
        if name in self.wiring.switches:
            return "switch"
        raise TestbedError("no node named %s" % name)

    def _set_end(self, node, ifn, up):
        pid = self.hosts[node].pid if self.wiring.is_server(node) else None
        return netops.set_up([ifn], pid, up)

    def _set_link(self, a, b, up):
        self._node_kind(a), self._node_kind(b)
        links = self.wiring.links_between(a, b)
        if not links:
            raise TestbedError("no link between %s and %s" % (a, b))
        for l in links:
            self._set_end(l["a"], l["a_if"], up)
            self._set_end(l["b"], l["b_if"], up)
        return links

    def link_down(self, a, b):
        self._set_link(a, b, False)
        self.event("link_down", a, b)

    def link_up(self, a, b):
        self._set_link(a, b, True)
        self.event("link_up", a, b)

    def _server_ports(self, name):
        return [l["a_if"] if l["a"] == name else l["b_if"] for l in self.wiring.links_of(name)]

    def server_down(self, name):
        """Server failure: its agent stopped, all its ports down."""
        if self._node_kind(name) != "server":
            raise TestbedError("%s is not a server" % name)
        self.stop_agent(name)
        netops.set_up(self._server_ports(name), self.hosts[name].pid, False)
        self.event("server_down", name)

    def server_up(self, name, wait=False):
        if self._node_kind(name) != "server":
            raise TestbedError("%s is not a server" % name)
        netops.set_up(self._server_ports(name), self.hosts[name].pid, True)
        if self.agent_mode and name not in self.agents:
            self.start_agent(name)
            self.state.save()
        self.event("server_up", name)
        if wait and self.agent_mode:
            self.wait_ready([name])

    def _switch_ports(self, name):
        return [l["a_if"] if l["a"] == name else l["b_if"] for l in self.wiring.links_of(name)]

    def switch_down(self, name):
        """Switch failure: every port of the bridge down (its peers lose carrier)."""
        if self._node_kind(name) != "switch":
            raise TestbedError("%s is not a switch" % name)
        netops.set_up(self._switch_ports(name), None, False)
        self.event("switch_down", name)

    def switch_up(self, name):
        if self._node_kind(name) != "switch":
            raise TestbedError("%s is not a switch" % name)
        netops.set_up(self._switch_ports(name), None, True)
        self.event("switch_up", name)

    # --------------------------------------------------------------- teardown
    def stop(self):
        if self._stopped:
            return
        self._stopped = True
        if not self._started:
            return
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
        try:
            self._teardown()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)

    def _teardown(self):
        """Every step runs even when an earlier one fails; errors are reported."""
        t0 = time.time()
        self.log("*** tearing down")
        errors = []
        # Host shells go before the root-side veths: a dying namespace removes
        # all its devices (and so their peers) in one batch, far faster than
        # deleting thousands of veths one by one.
        for step in (self._stop_processes, self._delete_bridges, self._stop_hosts,
                     self._delete_root_links, self._remove_sockets):
            try:
                step()
            except Exception as e:  # pylint: disable=broad-except
                errors.append("%s: %s" % (step.__name__, e))
        if errors:
            self.log("*** teardown problems (state file kept for make clean-testbed): " + "; ".join(errors))
        else:
            self.state.remove()
        self.log("*** teardown done in %.1f s" % (time.time() - t0))

    def _stop_processes(self):
        procs = list(self.aux.values()) + list(self.agents.values())
        for p in procs:
            if p.poll() is None:
                try:
                    p.terminate()
                except ProcessLookupError:
                    pass
        deadline = time.time() + 3
        for p in procs:
            try:
                p.wait(max(0.01, deadline - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        # anything the state lists that is not a Popen of ours (should be none)
        mine = {p.pid for p in procs}
        state.stop_processes([r for r in self.state.data["procs"] if r["pid"] not in mine], grace=1)
        self.agents.clear()
        self.aux.clear()
        self.state.data["procs"] = []
        self.state.save()

    def _delete_bridges(self):
        bridges = list(self.state.data.get("bridges", []))
        if self.switch_kind == "ovs":
            if bridges and ovs.daemons_running():
                ovs.del_bridges(bridges)
            # a netdev bridge's internal port is a tap device vswitchd removes;
            # if vswitchd died, remove the ones named after our bridges
            left = [b for b in bridges if netops.link_exists(b)]
            netops.run_batch("ip", ["link del dev %s" % b for b in left], check=False)
        else:
            present = [b for b in bridges if netops.link_exists(b)]
            netops.run_batch("ip", ["link del dev %s" % b for b in present], check=False)

    def _delete_root_links(self):
        rl = netops.wait_links_gone(self.state.data.get("root_links", []))
        netops.run_batch("ip", ["link del dev %s" % n for n in rl], check=False)

    def _stop_hosts(self):
        for h in self.hosts.values():  # signal every shell first, then reap each
            if h.shell and h.shell.poll() is None:
                try:
                    os.killpg(h.shell.pid, signal.SIGHUP)
                except OSError:
                    pass
        for h in self.hosts.values():
            try:
                h.terminate()
            except Exception:  # pylint: disable=broad-except
                pass
        # anything the hosts list that still lives goes by pid
        state.stop_processes([r for r in self.state.data["hosts"] if state.same_process(r)], grace=1)

    def _remove_sockets(self):
        for s in self.state.data.get("sockets", []):
            try:
                os.unlink(s)
            except OSError:
                pass

    # ------------------------------------------------------------ inspection
    def leftovers(self):
        """What of this run still exists (empty lists after a clean stop)."""
        w = self.wiring
        out = {"bridges": [], "links": [], "hosts": [], "procs": []}
        if not w:
            return out
        names = [w.bridge[s["name"]] for s in w.switch_list]
        existing = set(ovs.list_bridges()) if ovs.daemons_running() else set()
        out["bridges"] = [b for b in names if b in existing or netops.link_exists(b)]
        out["links"] = [n for n in self._root_ifnames() if netops.link_exists(n)]
        out["hosts"] = [h.name for h in self.hosts.values() if state.proc_start_time(h.pid)]
        return out


def _port_key(ifn):
    try:
        return int(ifn.rsplit("-eth", 1)[1])
    except (IndexError, ValueError):
        return 0
