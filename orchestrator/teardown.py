"""Teardown: removes exactly what the run created (processes by PID, bridges,
host namespaces, root-side veths, control sockets), each step even when an
earlier one failed."""
from __future__ import annotations

import os
import signal
import time

from . import netops, ovs, state
from .cluster_testbed import ClusterTestbed


class Teardown(ClusterTestbed):
    """Mixin of Testbed."""

    def stop(self) -> None:
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
        # --cluster: the other machines' processes first, ended there
        # (_cluster_stop_processes), then their shells, bridges and links
        # (_cluster_teardown), the ssh sessions after this machine's host
        # shells (_cluster_disconnect); all do nothing without a cluster
        for step in (self._stop_captures, self._expedite_rcu, self._cluster_stop_processes, self._stop_processes,
                     self._stop_namespace_processes, self._cluster_teardown, self._delete_bridges,
                     self._restore_ovs_forwarder, self._stop_ovs,
                     self._stop_hosts, self._cluster_disconnect, self._delete_root_links, self._restore_rcu,
                     self._remove_sockets):
            state.kill_point("teardown-" + step.__name__.strip("_"))
            try:
                step()
            except Exception as e:  # pylint: disable=broad-except
                errors.append(f"{step.__name__}: {e}")
        if errors:
            self.log("*** teardown problems (state file kept for make clean-testbed): " + "; ".join(errors))
        else:
            self.state.remove()
        self.log(f"*** teardown done in {time.time() - t0:.1f} s")

    def _stop_captures(self):
        """The captures first, while every port still exists: their files
        end with the run's last frames, not with the teardown's."""
        self.capture_stop()

    def _stop_processes(self):
        procs = list(self.aux.values()) + list(self.agents.values())
        netops.stop_popens(procs)
        # anything the state lists that is not a Popen of ours (should be none)
        mine = {p.pid for p in procs}
        state.stop_processes([r for r in self.state.data["procs"] if r["pid"] not in mine], grace=1)
        self.agents.clear()
        self.aux.clear()
        self.state.data["procs"] = []
        self.state.save()

    def _stop_namespace_processes(self):
        """Whatever else still runs inside our hosts' namespaces: daemons
        started from the CLI (`h13 iperf3 -s -D` forks away from the host
        shell and would keep the namespace, its veths and their bridge ports
        alive after the shell is gone), background jobs of the shells. Found
        by namespace identity while the shells still hold the namespaces
        (so an identity cannot belong to anyone else), ended by PID. The
        host shells themselves go in _stop_hosts."""
        shells = {h.pid for h in self.hosts.values() if h.pid and self._local(h.name)}
        idents = [state.netns_of(pid) for pid in shells]
        n = state.stop_netns_processes(idents, exclude=shells)
        if n:
            self.log(f'*** stopped {n:d} process{"" if n == 1 else "es"} left in the hosts\' namespaces')

    def _delete_bridges(self):
        state.delete_switch_side(self.state.data)

    def _restore_ovs_forwarder(self):
        """ovs-vswitchd's main thread back at the policy it had before the
        run (BringUp._raise_ovs_forwarder), once the run's bridges are gone."""
        if state.restore_ovs_forwarder(self.state.data):
            ref = self.state.data["ovs_forwarder"]
            self.log(f'*** ovs-vswitchd (pid {ref["pid"]:d}) back at {ovs.policy_name(ref["policy"])} '
                     f'{ref["priority"]:d}')

    def _delete_root_links(self):
        rl = netops.wait_links_gone(self.state.data.get("root_links", []))
        netops.run_batch("ip", [f"link del dev {n}" for n in rl], check=False)

    def _stop_ovs(self):
        """The OVS daemons this run started, once its bridges are gone
        (state.stop_ovs_started): an idle ovs-vswitchd left running follows
        every link change on the box (it took a quarter of the CPU while a
        later 2048-server Linux-bridge run shaped its ports)."""
        state.stop_ovs_started(self.state.data, self.log)

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
        """Stale agent sockets only: a file someone else put at a recorded
        path, or a socket another agent answers on, stays."""
        for s in self.state.data.get("sockets", []):
            state.remove_stale_socket(s)

    # ------------------------------------------------------------ inspection
    def leftovers(self) -> dict:
        """What of this run still exists (empty lists after a clean stop)."""
        w = self.wiring
        out = {"bridges": [], "links": [], "hosts": [], "procs": []}
        if not w:
            return out
        names = [w.bridge[s["name"]] for s in w.switch_list]
        existing = set(ovs.list_bridges())
        out["bridges"] = [b for b in names if b in existing or netops.link_exists(b)]
        out["links"] = [n for n in self._root_ifnames() if netops.link_exists(n)]
        out["hosts"] = [h.name for h in self.hosts.values() if self._local(h.name) and state.proc_start_time(h.pid)]
        # anything still inside a namespace one of our hosts had (a daemon
        # started from the CLI keeps the namespace alive after its shell)
        out["procs"] = [r["pid"] for r in state.procs_in_netns(
            [r.get("netns") for r in self.state.data.get("hosts", [])])]
        return out
