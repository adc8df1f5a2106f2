"""The testbed: builds a topology family on Mininet hosts and OVS (or Linux)
bridges from the library's export, starts one dcn-agent per server, waits for
readiness, injects failures and removes exactly what it created.

The pieces are mixins, one module each: bringup (BringUp.start), agents,
failures (link/server/switch down and up), capture (tcpdump on ports) and
teardown (stop)."""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from . import linkclass, state
from .agents import Agents
from .bringup import BringUp
from .capture import Captures
from .errors import TestbedError
from .failures import Failures
from .teardown import Teardown

RUN_DIR = state.STATE_DIR

__all__ = ["Testbed", "TestbedError", "SWITCH_KINDS"]

# ovs: OVS bridges (kernel datapath when the module exists, else netdev);
# ovs-afxdp: OVS userspace datapath with afxdp-nonpmd ports; lxbr: Linux bridges.
SWITCH_KINDS = ("ovs", "ovs-afxdp", "lxbr")


class Testbed(BringUp, Agents, Failures, Captures, Teardown):
    """Use as a context manager, or call start() and stop() (stop is
    idempotent and also runs on SIGTERM through the entry script).
    cluster: a cluster.Cluster to spread the run over its machines
    (docs/cluster.md); local_pids_needed: with one, refuse machines whose
    processes this one cannot see (an experiment's samplers read /proc)."""

    __test__ = False  # not a pytest test class

    def __init__(self, build_dir: str, spec: str, switch: str = "ovs", datapath: str | None = None,
                 server_link: dict | None = None, highspeed_link: dict | None = None,
                 mtu: int = linkclass.DEFAULT_MTU, hello_ms: int = 100, dead_misses: int = 3,
                 agent: bool | None = None, ready_timeout: float | None = None, state_path: str = state.STATE_FILE,
                 log: Callable[[str], None] | None = None, agent_args: Sequence[str] = (), event_log: str | None = None,
                 capture: Sequence[str] = (), capture_dir: str | None = None, ovs_rt: bool = True,
                 cluster: Any = None, local_pids_needed: bool = False) -> None:
        self.build_dir = build_dir
        self.spec = spec
        if switch not in SWITCH_KINDS:
            raise TestbedError(f'--switch must be one of {", ".join(SWITCH_KINDS)}')
        self.switch_kind = switch
        self.is_ovs = switch.startswith("ovs")
        # ovs-afxdp: the userspace datapath with AF_XDP ports (no PMD threads)
        self.ovs_port_type = "afxdp-nonpmd" if switch == "ovs-afxdp" else None
        if self.ovs_port_type:
            if datapath == "system":
                raise TestbedError("--switch ovs-afxdp needs the netdev (userspace) datapath")
            datapath = "netdev"
        self.datapath = datapath
        # the userspace datapath's forwarding thread at real-time priority
        # while the run lasts (BringUp._raise_ovs_forwarder)
        self.ovs_rt = ovs_rt
        self.server_link = dict(linkclass.DEFAULT_SERVER if server_link is None else server_link)
        self.highspeed_link = dict(linkclass.highspeed_default(self.server_link) if highspeed_link is None
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
        self.silenced = set()  # (node, interface) egresses a silent fault drops (failures.py)
        self.failed_links = {}  # frozenset({a, b}) -> "down", "silent" or "silent A>B" (failures.py)
        self.failed_nodes = {}  # name -> "server" or "switch", injected and not yet undone
        self.timings = {}
        self.agent_mode = False
        self.stp = False
        self.agent_bin = self.ctl_bin = None
        # ports to capture from the start (before the agents' first hellos),
        # the folder of this run's pcap files, and the running captures
        self.capture_wanted = list(capture)
        self._capture_checked = False
        self.capture_dir = capture_dir
        self.captures = {}
        self.cluster = cluster
        self.local_pids_needed = local_pids_needed
        self.where = {}        # node -> machine (--cluster)
        self.links_made = []   # Mininet link objects of the tunnels (--cluster)
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
