"""The agents: one dcn-agent per server, started in its namespace, asked for
status over its control socket, waited for, stopped."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from . import netops, state
from .cluster_testbed import ClusterTestbed
from .errors import TestbedError
from .status_poll import StatusPoller

if TYPE_CHECKING:
    from .hosts import DcnHost

RUN_DIR = state.STATE_DIR
# dcn-agent's two data paths (--data-path; docs/protocol.md, "Data paths"):
# the agent's own, every frame through the agent in user space, and the
# kernel's, BPF programs that relay, send and deliver plain data frames once
# the agent has handled a path's first ones. The kernel's is the default of
# dcn-agent, the testbed, the experiments and the benchmarks alike.
DATA_PATHS = ("agent", "kernel")
DEFAULT_DATA_PATH = "kernel"
DATA_PATH_TEXT = {"agent": "the agent's data path: every frame through the agent in user space",
                  "kernel": "the kernel's data path: plain data frames relayed, sent and delivered in the kernel"}


def data_path_args(path: str) -> tuple:
    """dcn-agent's options for the data path `path` (agent or kernel)."""
    if path not in DATA_PATHS:
        raise ValueError(f'the data path is {" or ".join(DATA_PATHS)}, not {path!r}')
    return ("--data-path", path)


def data_path_of(agent_args: Sequence[str]) -> str:
    """The inverse: the data path that dcn-agent options give, read as the
    agent reads them (the last `--data-path PATH` or `--data-path=PATH`
    counts); the agent's default without one."""
    args = list(agent_args)
    path = DEFAULT_DATA_PATH
    for i, a in enumerate(args):
        value = a.partition("=")[2] if a.startswith("--data-path=") else \
            args[i + 1] if a == "--data-path" and i + 1 < len(args) else None
        if value in DATA_PATHS:
            path = value
    return path


class Agents(ClusterTestbed):
    """Mixin of Testbed: agent processes and auxiliary processes in servers."""

    def _agent_cmd(self, name):
        w = self.wiring
        cmd = [self.agent_bin, "--topo", w.spec, "--name", name, "--ctl", self._sock(name),
               "--hello-ms", str(self.hello_ms), "--dead-misses", str(self.dead_misses),
               "--mtu", str(self.mtu), "--log", os.path.join(RUN_DIR, "logs", name + ".log"),
               "--foreground"]
        if self.server_link.get("bw") is not None:
            cmd += ["--capacity-mbps", f'{int(self.server_link["bw"])}']
        for port, ifn in sorted(w.host_ifname_overrides.get(name, {}).items()):
            cmd += ["--port", f"{port:d}={ifn}"]
        return cmd + self.agent_args

    def _spawn(self, host, cmd, what, **kw):
        kw.setdefault("stdin", subprocess.DEVNULL)
        kw.setdefault("stdout", subprocess.DEVNULL)
        kw.setdefault("stderr", subprocess.DEVNULL)
        if not self._local(host.name):  # over ssh, in the host's namespace on its machine
            p = self.cluster.spawn(self._machine(host.name), host.pid, cmd, **kw)
        else:
            with netops.in_netns(host.pid):
                p = subprocess.Popen(cmd, start_new_session=True, **kw)
        self.state.add_proc(p.pid, what, save=False)
        return p

    def start_agent(self, name: str) -> subprocess.Popen:
        h = self.hosts[name]
        errf = open(os.path.join(RUN_DIR, "logs", name + ".stderr"), "ab")
        try:
            p = self._spawn(h, self._agent_cmd(name), "agent " + name, stderr=errf)
        finally:
            errf.close()
        self.agents[name] = p
        return p

    def _start_agents(self, workers=8):
        """Every agent, several started at once: each start enters the host's
        namespace (per thread) and waits for its child's exec, which a box
        busy with the agents already running makes slow."""
        t0 = time.time()
        names = list(self.hosts)
        if len(names) <= workers:
            for i, name in enumerate(names):
                self.start_agent(name)
                if i == len(names) // 2:
                    state.kill_point("agents-half")  # started, not yet in the state file
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                for f in [pool.submit(self.start_agent, n) for n in names]:
                    f.result()
        self.state.save()
        if self.cluster:  # the control sockets of the agents on other machines, answered here
            self._forward_ctl(names)
        self.log(f"*** {len(self.agents)} agents started ({time.time() - t0:.1f} s)")

    def agent_status(self, name: str, timeout: float = 5) -> dict | None:
        return self.agent_request(name, "status", timeout)

    def agent_request(self, name: str, request: str, timeout: float = 5) -> dict | None:
        """The parsed answer of `dcn-ctl -n NAME REQUEST --json`, spoken
        directly on the agent's control socket (one line request, answer
        until close; agent/src/agent/ctl/ctl.h), or None: no process per query,
        which matters with thousands of agents."""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(timeout)
                s.connect(self._ctl_sock(name))
                s.sendall((request + " --json\n").encode())
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
        return f"agent {name} exited with status {p.returncode}: {tail.strip()}"

    def wait_ready(self, names: list[str] | None = None, timeout: float | None = None) -> float:
        """Waits until every agent named is ready. Driven by progress, not
        by a fixed time: it fails only when for `timeout` seconds (default:
        --ready-timeout, else 30 s + 0.05 s a server + the dead interval) no
        agent became ready and the pending agents' neighbours up, summed,
        reached no new high, so a slow machine that keeps progressing is
        waited for however long it takes (docs/testbed.md)."""
        names = list(names or self.hosts)
        if timeout is None:
            timeout = self.ready_timeout or (30 + 0.05 * len(names) +
                                             self.hello_ms * self.dead_misses / 1000.0)
        pending = set(names)
        up = {}               # pending agent -> neighbours up in its last answer
        best = (-1, -1)       # (agents ready, neighbours up of the pending ones): the highest seen
        last_progress = time.time()
        last_print = 0
        t0 = time.time()
        # an agent that answered "not ready" is asked again after this long
        reask = min(1.0, max(0.05, self.hello_ms / 1000.0))
        with StatusPoller(self._ctl_sock, reask) as poller:
            while pending:
                for n in list(pending):
                    dead = self._agent_dead(n)
                    if dead:
                        raise TestbedError(dead)
                poller.ask(sorted(pending))
                for n, st in poller.answers(min(0.2, max(0.05, self.hello_ms / 2000.0))).items():
                    if st and st.get("ready"):
                        pending.discard(n)
                        up.pop(n, None)
                    elif st and isinstance(st.get("neighbors_up"), int):
                        up[n] = st["neighbors_up"]
                done = len(names) - len(pending)
                score = (done, sum(up.values()))
                if score > best:
                    best, last_progress = score, time.time()
                if time.time() - last_print >= 1 or not pending:
                    self.log(f"*** agents ready {done:d}/{len(names)} ({time.time() - t0:.1f} s)")
                    last_print = time.time()
                if pending and time.time() - last_progress > timeout:
                    sample = sorted(pending)[:8]
                    detail = []
                    for n in sample:
                        st = self.agent_status(n)
                        seen = ("unreachable" if st is None else
                                f'{st.get("neighbors_up")}/{st.get("neighbors_total")} neighbours')
                        detail.append(f"{n}: {seen}")
                    raise TestbedError(f'{len(pending)} agents not ready: no progress for {timeout:.0f} s, '
                                       f'{time.time() - t0:.0f} s in all ({"; ".join(detail)})')
        return time.time() - t0

    def stop_agent(self, name: str, grace: float = 3.0) -> None:
        p = self.agents.pop(name, None)
        if p is None:
            return
        if p.poll() is None and not self._local(name):
            self._stop_remote_agent(name)
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(grace)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.state.drop_proc(p.pid)

    # -------------------------------------------------------- helpers for use
    def host(self, name: str) -> DcnHost:
        try:
            return self.hosts[name]
        except KeyError:
            raise TestbedError(f"no server named {name}") from None

    def spawn_in(self, name: str, cmd: list[str], what: str | None = None, save: bool = True,
                 **kw: Any) -> subprocess.Popen:
        """Start a tracked auxiliary process (iperf, ping) in a server
        (save=False: the caller writes the state file after a batch)."""
        p = self._spawn(self.host(name), cmd, what or ("aux in " + name), **kw)
        if save:
            self.state.save()
        self.aux[p.pid] = p
        return p

    def reap(self, p: subprocess.Popen, save: bool = True) -> None:
        self.aux.pop(p.pid, None)
        self.state.drop_proc(p.pid, save=save)

    def run_in(self, name: str, cmd: list[str], timeout: float = 60) -> tuple:
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
