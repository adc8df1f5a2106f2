"""The soak (experiments/soak, `make soak`): TCP connections between rotating
pairs of servers while a seeded random schedule fails and restores links,
switches and servers, with every connection's bytes, stalls and outcome,
every agent's memory, and agent crashes recorded.

  Peers      one soakpeer.py per server (a TCP sink and the senders the
             controller asks for), spoken to over stdin/stdout
  Oracle     whether two servers had a path at a time, from the wiring and
             the failures in force (servers relay: they are nodes of the
             graph like switches), as dcn-topo components computes it
  Injector   the seeded failure schedule on the Testbed's failure API, plus
             SIGKILL of an agent and its restart
  Phase      one network: traffic, failures, crash watch, RSS samples,
             progress; its counters and verdict inputs
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import os
import queue
import random
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from . import agentctl, tcpstats, traffic
from .experiment import ExperimentError

if TYPE_CHECKING:
    from orchestrator.testbed import Testbed
    from orchestrator.topology import Wiring
    from .experiment import Experiment, Net

PEER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "soakpeer.py")
PYTHON = "/usr/bin/python3"
PEER_PORT = 7700
SNAPSHOT_AT_S = (3.0, 10.0, 20.0)  # a stall's ages at which both directions' paths are recorded
RTO_GRACE_S = 2.0   # after a sender's pending retransmission, the time its data has to arrive (_rto_grace_until)
STALL_WITH_PATH_S = 3.0  # the longest stall allowed where a path remained (stalls())
RETX_SLACK_S = 1.0  # beyond a sender's RTO, the time its retransmission has to arrive (stalls())
KINDS = ("link", "silent", "one_way", "switch", "server", "agent_kill")
LINK_KINDS = ("link", "silent", "one_way")  # a (server, switch) or (server, server) pair as target


def parse_duration(s: str) -> float:
    """Seconds from "1900", "1900s", "30m", "1h" or "1h30m"; ValueError otherwise."""
    s = str(s).strip().lower()
    if not s:
        raise ValueError("empty duration")
    if s.replace(".", "", 1).isdigit():
        v = float(s)
    else:
        v, num = 0.0, ""
        for ch in s:
            if ch.isdigit() or ch == ".":
                num += ch
            elif ch in "hms" and num:
                v += float(num) * {"h": 3600, "m": 60, "s": 1}[ch]
                num = ""
            else:
                raise ValueError(f"bad duration {s!r} (seconds, or like 30m, 1h)")
        if num:
            raise ValueError(f"bad duration {s!r} (seconds, or like 30m, 1h)")
    if v <= 0:
        raise ValueError("duration must be positive")
    return v


# ------------------------------------------------------------------ peers
class Peers:
    """One soakpeer.py per server of the testbed, started in its namespace
    (tracked by the testbed, so its teardown ends them by PID too)."""

    def __init__(self, tb: Testbed, port: int = PEER_PORT) -> None:
        self.tb, self.port = tb, port
        self.procs = {}
        self.q = queue.Queue()
        self.threads = []
        for name in sorted(tb.wiring.servers):
            ip = tb.wiring.ip_of(name)
            p = tb.spawn_in(name, [PYTHON, PEER, "--bind", ip, "--port", str(port)], "soakpeer in " + name,
                            save=False, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            self.procs[name] = p
            th = threading.Thread(target=self._read, args=(name, p), daemon=True)
            th.start()
            self.threads.append(th)
        tb.state.save()

    def _read(self, name, p):
        for line in p.stdout:
            try:
                self.q.put((name, json.loads(line)))
            except ValueError:
                pass
        self.q.put((name, {"ev": "exit"}))

    def wait_ready(self, timeout: float = 15) -> None:
        ready, deadline, held = set(), time.time() + timeout, []
        while len(ready) < len(self.procs):
            try:
                name, ev = self.q.get(timeout=max(0.05, deadline - time.time()))
            except queue.Empty:
                missing = ", ".join(sorted(set(self.procs) - ready))
                raise ExperimentError(f"traffic peers not ready after {timeout:.0f} s: {missing}") from None
            if ev.get("ev") == "ready":
                ready.add(name)
            elif ev.get("ev") == "exit":
                raise ExperimentError(f"traffic peer in {name} exited at start")
            else:
                held.append((name, ev))
        for x in held:
            self.q.put(x)

    def cmd(self, name: str, line: str) -> bool:
        p = self.procs.get(name)
        if p is None or p.poll() is not None:
            return False
        try:
            p.stdin.write((line + "\n").encode())
            p.stdin.flush()
            return True
        except OSError:
            return False

    def events(self) -> list:
        out = []
        while True:
            try:
                out.append(self.q.get_nowait())
            except queue.Empty:
                return out

    def stop(self) -> None:
        for name in self.procs:
            self.cmd(name, "quit")
        for name, p in self.procs.items():
            try:
                p.wait(3)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            for f in (p.stdin, p.stdout):
                try:
                    f.close()
                except OSError:
                    pass
            self.tb.reap(p, save=False)
        self.tb.state.save()


# ----------------------------------------------------------------- oracle
class Oracle:
    """Reachability between servers under the failures in force. Servers
    forward (every family here is server-centric), so the graph's nodes are
    servers and switches; a failed server or switch is removed, a failed
    link is removed. The search is the C library's: one `dcn-topo
    components` per failure state asked about, which labels every server."""

    def __init__(self, wiring: Wiring, ex: Experiment) -> None:
        self.w, self.ex = wiring, ex
        self.links = set()
        self.nodes = set()
        self.history = [(0.0, frozenset(), frozenset())]   # (from unix time, down links, down nodes)
        self._memo = {}     # (down links, down nodes) -> {server: component, None when down}

    def set_down(self, t: float, link: tuple[str, str] | None = None, node: str | None = None,
                 down: bool = True) -> None:
        if link is not None:
            (self.links.add if down else self.links.discard)(frozenset(link))
        if node is not None:
            (self.nodes.add if down else self.nodes.discard)(node)
        self.history.append((t, frozenset(self.links), frozenset(self.nodes)))

    def components(self, links: frozenset, nodes: frozenset) -> dict[str, int | None]:
        """{server: its component} with these links and nodes down."""
        key = (links, nodes)
        if key not in self._memo:
            args = [w for n in sorted(nodes) for w in ("--fail-node", n)]
            args += [w for l in sorted(tuple(sorted(l)) for l in links) for w in ("--fail-link", ",".join(l))]
            self._memo[key] = traffic.topo_json(self.ex, "components", *self.w.spec.split(), *args)["component"]
        return self._memo[key]

    def _connected(self, links, nodes, src, dst):
        comp = self.components(links, nodes)
        return comp[src] is not None and comp[src] == comp[dst]

    def connected_now(self, src: str, dst: str) -> bool:
        return self._connected(frozenset(self.links), frozenset(self.nodes), src, dst)

    def no_path_seconds(self, src: str, dst: str, t0: float, t1: float) -> float:
        """Seconds of [t0, t1] during which src and dst had no path (for an
        instant, t0 == t1: a tiny positive number when there was none)."""
        h = self.history
        if t1 <= t0:
            st = next((x for x in reversed(h) if x[0] <= t0), h[0])
            return 0.0 if self._connected(st[1], st[2], src, dst) else 1e-3
        out = 0.0
        for ts, te, links, nodes in self._spans():
            a, b = max(ts, t0), min(te, t1)
            if b > a and not self._connected(links, nodes, src, dst):
                out += b - a
        return out

    def _spans(self):
        """Each failure state of the history with the time it held:
        (start, end, down links, down nodes); the last one has no end."""
        h = self.history
        for i, (ts, links, nodes) in enumerate(h):
            yield ts, h[i + 1][0] if i + 1 < len(h) else float("inf"), links, nodes

    def last_no_path(self, src: str, dst: str, t: float) -> tuple[float, float] | None:
        """The latest stretch of time without a path between src and dst
        that began before t, as (start, end) (end may be after t), or None."""
        end = None
        for ts, te, links, nodes in reversed(list(self._spans())):
            if ts >= t and end is None:
                continue
            if not self._connected(links, nodes, src, dst):
                end = te if end is None else end
                start = ts
            elif end is not None:
                return start, end
        return (start, end) if end is not None else None


# --------------------------------------------------------------- injector
def apply_failure(tb: Testbed, kind: str, target: str | tuple[str, str], down: bool) -> None:
    """One failure of KINDS put in force (down) or lifted on the testbed:
    target is a (server, switch) pair for a link, else a node's name."""
    if kind == "link":
        (tb.link_down if down else tb.link_up)(*target)
    elif kind in ("silent", "one_way"):
        a, b = target
        if down:
            tb.link_silent(a, b, "both" if kind == "silent" else f"{a}>{b}")
        else:
            tb.link_unsilent(a, b)
    elif kind == "switch":
        (tb.switch_down if down else tb.switch_up)(target)
    elif kind == "server":
        (tb.server_down if down else tb.server_up)(target)
    elif kind == "agent_kill":
        if down:
            p = tb.agents.pop(target, None)
            if p is not None:
                if p.poll() is None:
                    os.kill(p.pid, signal.SIGKILL)
                p.wait()
                tb.state.drop_proc(p.pid)
            tb.event("agent_kill", target)
        else:
            tb.start_agent(target)
            tb.state.save()
            tb.event("agent_restart", target)
    else:
        raise ValueError(f"unknown failure kind {kind!r}")


class Injector:
    """A seeded random failure schedule: every `mean_gap` s on average
    (exponential gaps) one element fails, for a time drawn uniformly in
    [down_min, down_max], with at most `max_down` failures in force.

      link        both ends of a cable down (Testbed.link_down/link_up)
      silent      every frame of a cable dropped both ways, its carrier up
                  (Testbed.link_silent/link_unsilent): found by missed hellos only
      one_way     the frames of one end of a cable dropped (the first of the
                  pair towards the second), its carrier up: only the other
                  end misses hellos
      switch      every port of a bridge down (switch_down/switch_up)
      server      the agent stopped (SIGTERM) and every port down (server_down/server_up)
      agent_kill  the agent killed with SIGKILL, its ports left up, the same
                  binary started again on restore (it must rejoin)

    Servers fail only among `churn` servers (chosen by the seed), so the
    other agents run the whole phase and their memory can be judged."""

    def __init__(self, ex: Experiment, tb: Testbed, oracle: Oracle, rnd: random.Random, churn: list[str],
                 mean_gap: float, down_min: float, down_max: float, max_down: int, weights: dict[str, float],
                 log: Callable[[str], None]) -> None:
        self.ex, self.tb, self.oracle, self.rnd = ex, tb, oracle, rnd
        self.churn = list(churn)
        self.mean_gap, self.down_min, self.down_max, self.max_down = mean_gap, down_min, down_max, max_down
        self.weights = weights
        self.log = log
        self.active = []          # dicts: kind, target, t_down, t_up_due
        self.events = []          # dicts: t, action (down/up), kind, target
        self.injected = collections.Counter()
        self.killed = set()       # agents this schedule stopped (not crashes)
        self.rejoin = []          # seconds from restart to ready, per restart
        self._pending_ready = {}
        self.next_at = None

    def start(self, now: float) -> None:
        self.next_at = now + self.rnd.expovariate(1.0 / self.mean_gap)

    def _busy(self):
        out = set()
        for f in self.active:
            t = f["target"]
            out.update(t if isinstance(t, tuple) else (t,))
        return out

    def _pick(self):
        busy = self._busy()
        kinds = [k for k in KINDS if self.weights.get(k, 0) > 0]
        for _ in range(20):
            kind = self.rnd.choices(kinds, [self.weights[k] for k in kinds])[0]
            if kind in LINK_KINDS:
                cands = [(l["a"], l["b"]) for l in self.tb.wiring.links
                         if l["a"] not in busy and l["b"] not in busy]
                if kind == "one_way":  # either end the one whose frames are lost
                    cands = [c if self.rnd.random() < 0.5 else (c[1], c[0]) for c in cands]
            elif kind == "switch":
                cands = [s for s in sorted(self.tb.wiring.switches) if s not in busy]
            else:
                cands = [s for s in self.churn if s not in busy]
            if cands:
                return kind, self.rnd.choice(cands)
        return None, None

    def _apply(self, kind, target, down):
        now = time.time()
        where = {"link": target} if kind in LINK_KINDS else {"node": target}
        if kind in ("server", "agent_kill") and down:
            self.killed.add(target)
        if down:
            self.oracle.set_down(now, down=True, **where)
        apply_failure(self.tb, kind, target, down)
        if not down:
            if kind in ("server", "agent_kill"):
                # a path again when its agent reports ready (tick), not when
                # restarted: until its dcn0 has an address a connection from
                # it fails at once (EADDRNOTAVAIL; CI at 03b7165 counted
                # one as lost where a path remained)
                self.killed.discard(target)
                self._pending_ready[target] = time.time()
            else:
                self.oracle.set_down(now, down=False, **where)
        self.events.append({"t": now, "action": "down" if down else "up", "kind": kind,
                            "target": "-".join(target) if isinstance(target, tuple) else target})

    def tick(self, now: float, allow_new: bool = True) -> None:
        for f in [f for f in self.active if f["t_up_due"] <= now]:
            self._apply(f["kind"], f["target"], False)
            self.active.remove(f)
        for name, t0 in list(self._pending_ready.items()):
            st = self.tb.agent_status(name, timeout=0.5)
            if st and st.get("ready"):
                self.rejoin.append(round(time.time() - t0, 3))
                del self._pending_ready[name]
                self.oracle.set_down(time.time(), down=False, node=name)
        if allow_new and now >= self.next_at:
            self.next_at = now + self.rnd.expovariate(1.0 / self.mean_gap)
            if len(self.active) < self.max_down:
                kind, target = self._pick()
                if kind:
                    dur = self.rnd.uniform(self.down_min, self.down_max)
                    self._apply(kind, target, True)
                    self.active.append({"kind": kind, "target": target, "t_down": now, "t_up_due": now + dur})
                    self.injected[kind] += 1

    def restore_all(self) -> None:
        for f in list(self.active):
            self._apply(f["kind"], f["target"], False)
            self.active.remove(f)

    def describe_active(self) -> str:
        return ", ".join("%s %s" % (f["kind"], "-".join(f["target"]) if isinstance(f["target"], tuple)
                                    else f["target"]) for f in self.active) or "none"


# ------------------------------------------------------------------ phase
def _proc_mem(pid):
    """(VmRSS, VmData, VmSize) in kB of a process, or None. VmData and VmSize
    grow only when the process maps new memory (malloc's brk or mmap):
    beside RSS they tell a leak from pages of pools allocated at start being
    touched for the first time."""
    vals = {}
    try:
        with open(f"/proc/{pid:d}/status") as f:
            for line in f:
                k = line.split(":")[0]
                if k in ("VmRSS", "VmData", "VmSize"):
                    vals[k] = int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    if len(vals) < 3:
        return None
    return vals["VmRSS"], vals["VmData"], vals["VmSize"]


def agent_logs(servers, t0, t1):
    """The lines the agents of servers logged between unix times t0 and t1
    (neighbours up and down, ports, restarts: each line starts with the UTC
    time to the millisecond and the server's name), in time order: what a
    stall's snapshots cannot show, the order in which the agents saw a
    failure."""
    from orchestrator.agents import RUN_DIR
    lo, hi = (time.strftime("%H:%M:%S", time.gmtime(t)) for t in (t0, t1 + 1))
    lines = []
    for name in servers:
        try:
            with open(os.path.join(RUN_DIR, "logs", name + ".log"), errors="replace") as f:
                lines += [ln.rstrip("\n") for ln in f if lo <= ln[:8] <= hi or (hi < lo and (ln[:8] >= lo or
                                                                                              ln[:8] <= hi))]
        except OSError:
            pass
    return sorted(lines)


def _log_tail(name, n=300):
    from orchestrator.agents import RUN_DIR
    tail = ""
    for suffix in (".stderr", ".log"):
        try:
            with open(os.path.join(RUN_DIR, "logs", name + suffix), errors="replace") as f:
                tail += f.read()[-n:]
        except OSError:
            pass
    return tail.strip()


class Phase:
    """One network under the soak: `run(seconds)` drives everything and
    returns when the traffic has drained."""

    SHORT = (16 << 10, 1 << 20)     # bytes, log-uniform: 3 connections in 4
    MEDIUM = (1 << 20, 16 << 20)    # and 1 in 4 (up to --max-size)

    def __init__(self, ex: Experiment, net: Net, label: str, a: argparse.Namespace, rnd: random.Random,
                 self_check: str | None = None) -> None:
        self.ex, self.net, self.tb, self.label, self.a, self.rnd = ex, net, net.tb, label, a, rnd
        self.w = self.tb.wiring
        self.servers = [s["name"] for s in self.w.server_list]
        self.oracle = Oracle(self.w, ex)
        churn = sorted(rnd.sample(self.servers, min(a.churn_servers, len(self.servers))),
                       key=lambda x: self.w.servers[x]["id"])
        self.injector = Injector(ex, self.tb, self.oracle, rnd, churn, a.mean_gap, a.down_min, a.down_max,
                                 a.max_down, a.weights, ex.log)
        pairs = [(x, y) for x in self.servers for y in self.servers if x != y]
        rnd.shuffle(pairs)
        self.pairs, self.pair_i = pairs, 0
        self.conns = {}             # id -> record
        self.active = set()
        self.next_id = 1
        self.crashes = []
        self.rss = []               # (unix, agent, pid, RSS kB)
        self.vm = []                # (VmData kB, VmSize kB), one per self.rss entry
        self.rx_total = {}          # peer -> (t, cumulative bytes)
        self.goodput = []           # (unix, cumulative bytes received, all peers)
        self.self_check = self_check
        self._sc_done = False
        self.snapshots = []         # the paths of stalled connections (_snapshot; stall_paths.json)
        self.t0 = self.t1 = None

    # ------------------------------------------------------------ traffic
    def _size(self):
        lo, hi = self.SHORT if self.rnd.random() < 0.75 else (self.MEDIUM[0], self.a.max_bytes)
        return int(math.exp(self.rnd.uniform(math.log(lo), math.log(hi))))

    def _start_conns(self, now):
        busy = {(self.conns[i]["src"], self.conns[i]["dst"]) for i in self.active}
        tries = 0
        while len(self.active) < self.a.concurrency and tries < len(self.pairs):
            src, dst = self.pairs[self.pair_i]
            self.pair_i = (self.pair_i + 1) % len(self.pairs)
            tries += 1
            if (src, dst) in busy or src in self.injector.killed or dst in self.injector.killed:
                continue   # a failed server runs no application: its pairs wait for the next round
            cid = self.next_id
            self.next_id += 1
            n = self._size()
            c = {"id": cid, "phase": self.label, "src": src, "dst": dst, "bytes": n, "t_start": now,
                 "t_conn": None, "t_end": None, "sent": 0, "received": 0, "t_last": now, "outcome": None,
                 "reason": None, "gaps": [], "no_path_s": None, "path_remained": None}
            self.conns[cid] = c
            self.active.add(cid)
            busy.add((src, dst))
            if not self.peers.cmd(src, f"send {cid:d} {self.w.ip_of(dst)} {PEER_PORT:d} {int(n)}"):
                self._lose(c, now, "sender peer gone")

    def _lose(self, c, now, reason):
        if c["outcome"]:
            return
        c["outcome"], c["reason"], c["t_end"] = "lost", reason, now
        w0 = min(c["t_last"], now)
        c["stall_window"] = [round(w0, 3), round(now, 3)]
        nop = self.oracle.no_path_seconds(c["src"], c["dst"], w0, now)
        c["no_path_s"] = round(nop, 3)
        c["path_remained"] = nop == 0
        self.active.discard(c["id"])
        self.peers.cmd(c["src"], f'abort {c["id"]:d}')
        self.peers.cmd(c["dst"], f'abort {c["id"]:d}')
        path = "a path remained" if c["path_remained"] else f"no path for {nop:.3f} s of its stall"
        self.ex.log(f'  {self.label}: connection {c["id"]:d} {c["src"]}>{c["dst"]} lost ({reason}; {path})')

    def _handle(self, name, ev, now):
        kind = ev.get("ev")
        if kind == "prog":
            self.rx_total[name] = (ev["t"], ev["rx_total"])
            for k, (got, t_last) in ev.get("rx", {}).items():
                c = self.conns.get(int(k))
                if c and not c["outcome"]:
                    c["received"] = got
                    if t_last:
                        c["t_last"] = max(c["t_last"], t_last)
            for k, sent in ev.get("tx", {}).items():
                c = self.conns.get(int(k))
                if c:
                    c["sent"] = max(c["sent"], sent)
            return
        if kind == "exit":
            if not self._stopping:
                raise ExperimentError(f"{self.label}: the traffic peer in {name} exited")
            return
        c = self.conns.get(ev.get("id"))
        if c is None:
            return
        if kind == "tx_conn":
            c["t_conn"] = ev["t"]
            c["sport"] = ev.get("sport")
        elif kind == "tx_done":
            c["sent"] = ev["sent"]
        elif kind == "rx_done":
            c["received"] = ev["bytes"]
            c["gaps"] = ev["gaps"]
            c["t_last"] = ev["t_last"]
            if not c["outcome"]:
                c["outcome"], c["t_end"] = "completed", ev["t_last"]
                self.active.discard(c["id"])
        elif kind in ("tx_err", "rx_err"):
            if kind == "tx_err":
                c["sent"] = max(c["sent"], ev.get("sent") or 0)
            else:
                c["gaps"] = ev.get("gaps") or c["gaps"]
                c["received"] = max(c["received"], ev.get("bytes") or 0)
            if not c["outcome"]:
                self._lose(c, ev.get("t") or now, ev.get("err") or kind)

    def _check_stalls(self, now):
        for cid in list(self.active):
            c = self.conns[cid]
            if now - c["t_last"] <= self.a.stall_limit:
                self._snapshot(c, now)
            elif now < self._rto_grace_until(c, now):
                continue
            else:
                self._snapshot(c, now, at_loss=True)
                self._lose(c, now, f"no data for {self.a.stall_limit:.0f} s")

    def _rto_grace_until(self, c, now):
        """A stall is judged once the sender has retransmitted into it. A
        sender whose retransmission timer is still running (its RTO grew
        with the RTT samples of an earlier failure, and a later failure
        took the packets in flight) gets until that timer fires plus
        RTO_GRACE_S, once per stall and only if the timer fires within the
        stall limit; a blackhole still loses the connection. The grace is
        recorded in the connection's row (rto_grace_s)."""
        if c.get("grace_stall") == c["t_last"]:
            return c["grace_until"]
        c["grace_stall"], c["grace_until"] = c["t_last"], now
        if c.get("sport") is None or c["src"] not in self.tb.agents:
            return now
        rc, out, _ = self.tb.run_in(c["src"], ["ss", "-tnoH", "sport", "=", f':{c["sport"]:d}'], timeout=5)
        left = tcpstats.retransmit_timer_s(out) if rc == 0 else None
        if left is not None and left <= self.a.stall_limit:
            c["grace_until"] = now + left + RTO_GRACE_S
            c["rto_grace_s"] = round(left + RTO_GRACE_S, 3)
            self.ex.log(f'  {self.label}: connection {c["id"]:d} {c["src"]}>{c["dst"]}: no data for '
                        f'{self.a.stall_limit:.0f} s, its sender retransmits in {left:.1f} s; '
                        f"judged {RTO_GRACE_S:.0f} s after that")
        return c["grace_until"]

    def _snapshot(self, c, now, at_loss=False):
        """While a connection stalls with a path between its servers, the
        paths of its data (at the source) and of its ACKs (at the
        destination), at the stall's ages SNAPSHOT_AT_S and when it is
        lost (at_loss): a long stall can then be explained afterwards
        (docs/soak.md)."""
        age = now - c["t_last"]
        if c.get("snap_stall") != c["t_last"]:
            c["snap_stall"], c["snaps"] = c["t_last"], 0
        if not at_loss:
            if c["snaps"] >= len(SNAPSHOT_AT_S) or age < SNAPSHOT_AT_S[c["snaps"]]:
                return
            c["snaps"] += 1
        if not self.oracle.connected_now(c["src"], c["dst"]):
            return
        ip = self.w.ip_of
        sport = c.get("sport")  # None: the peer did not say (then every connection of the pair)

        def ask(agent, request):
            """The agent's JSON answer, or None when it is down or silent."""
            return agentctl.ctl(self.tb, agent, request) if agent in self.tb.agents else None

        def paths(agent, to, peer_key, own_key):
            fl = agentctl.flows(self.tb, agent) if agent in self.tb.agents else None
            if fl is None:
                return None
            return [{"path": f.get("path"), "rate_mbps": f.get("rate_mbps")} for f in fl
                    if f.get("proto") == 6 and f.get("dst") == ip(to) and f.get(peer_key) == PEER_PORT
                    and (sport is None or f.get(own_key) == sport)]

        def pathset(agent, to):
            """What a new flow from agent to `to` would be given now (`dcn-ctl
            paths`: the family's path set under the agent's failed-link
            database); [] says the agent believes there is no path."""
            r = ask(agent, "paths " + to)
            return [p.get("path") for p in r.get("paths", [])] if r else None

        def faildb(agent):
            """The links the agent holds failed (`dcn-ctl failures`): "A-B"
            for a learned link with its seconds left, "A-B local" for a port
            of its own that is down."""
            r = ask(agent, "failures")
            if not r:
                return None
            return ["%s-%s %s" % (e["a"], e["b"], "local" if e["kind"] == "local"
                                  else f'{e["expires_in_ms"] / 1000.0:.1f} s')
                    for e in r.get("failures", [])]

        def tcp(agent, side):
            """The connection's socket in that server (`ss -tino`, one line):
            its RTO, backoff, cwnd, retransmissions and timer; None without
            the source port."""
            if sport is None:
                return None
            rc, out, _ = self.tb.run_in(agent, ["ss", "-tinoH", side, "=", f":{sport:d}"], timeout=5)
            return " ".join(out.split()) if rc == 0 else None
        def drops(agent):
            """What the agent dropped or routed again, by reason (its nonzero
            drop_* and reroute counters since it started)."""
            if agent not in self.tb.agents:
                return None
            return {k: v for k, v in agentctl.counters(self.tb, agent).items()
                    if v and (k.startswith("drop_") or "reroute" in k)}
        ss_src = tcp(c["src"], "sport")
        rto = c.setdefault("stall_rto", {})
        if c["t_last"] not in rto:   # the stall's first snapshot: the sender's RTO, if not backed off
            rto[c["t_last"]] = tcpstats.unbacked_rto_s(ss_src or "")
        self.snapshots.append({"conn": c["id"], "src": c["src"], "dst": c["dst"], "sport": sport,
                               "t_s": round(now - self.t0, 3), "stall_from_s": round(c["t_last"] - self.t0, 3),
                               "data_paths_at_src": paths(c["src"], c["dst"], "dport", "sport"),
                               "ack_paths_at_dst": paths(c["dst"], c["src"], "sport", "dport"),
                               "pathset_at_src": pathset(c["src"], c["dst"]),
                               "pathset_at_dst": pathset(c["dst"], c["src"]),
                               "faildb_at_src": faildb(c["src"]),
                               "faildb_at_dst": faildb(c["dst"]),
                               "ss_at_src": ss_src,
                               "drops_at_src": drops(c["src"]),
                               "ss_at_dst": tcp(c["dst"], "dport"),
                               "failures_in_force": self.injector.describe_active()})

    # ------------------------------------------------------------- agents
    def _check_agents(self, now):
        for name, p in list(self.tb.agents.items()):
            if p.poll() is None:
                continue
            tail = _log_tail(name)
            self.crashes.append({"t": now, "agent": name, "pid": p.pid, "status": p.returncode, "log_tail": tail})
            self.ex.log(f"  {self.label}: AGENT CRASH {name} (pid {p.pid:d}, status {p.returncode}): {tail[-200:]}")
            self.tb.agents.pop(name, None)
            self.tb.state.drop_proc(p.pid)
            if sum(1 for c in self.crashes if c["agent"] == name) > 5:
                raise ExperimentError(f"{self.label}: the agent of {name} crashed 6 times: {tail[-300:]}")
            self.tb.start_agent(name)     # keep the soak going; the crash stays counted
            self.tb.state.save()

    def _sample_rss(self, now):
        for name, p in sorted(self.tb.agents.items()):
            m = _proc_mem(p.pid)
            if m is not None:
                self.rss.append((now, name, p.pid, m[0]))
                self.vm.append(m[1:])

    # --------------------------------------------------------- self-checks
    def _self_check(self, now):
        """Test hooks (--self-check) that must make a verdict fail: an agent
        killed behind the schedule's back (a crash), or a server's traffic
        dropped with its links up (connections lost where a path remained)."""
        if self._sc_done or not self.self_check or now - self.t0 < 0.3 * self.a.phase_seconds:
            return
        self._sc_done = True
        victim = next(s for s in self.servers if s not in self.injector.churn)
        if self.self_check == "crash":
            self.ex.log(f"  self-check: SIGKILL of {victim}'s agent outside the schedule")
            os.kill(self.tb.agents[victim].pid, signal.SIGKILL)
        elif self.self_check == "blackhole":
            # an 8 bit/s HTB class with a one-packet queue on the server's TUN: what it sends is dropped
            # (netem is not in every kernel; HTB is, since the testbed shapes links with it)
            self.ex.log(f"  self-check: what {victim} sends into dcn0 dropped (8 bit/s HTB) "
                        f"for {2 * self.a.stall_limit + 5:.0f} s, its links up")
            for cmd in (["qdisc", "add", "dev", "dcn0", "root", "handle", "1:", "htb", "default", "10"],
                        ["class", "add", "dev", "dcn0", "parent", "1:", "classid", "1:10", "htb", "rate", "8bit",
                         "ceil", "8bit", "burst", "1", "cburst", "1"],
                        ["qdisc", "add", "dev", "dcn0", "parent", "1:10", "handle", "10:", "pfifo", "limit", "1"]):
                rc, _, err = self.tb.run_in(victim, ["tc"] + cmd)
                if rc != 0:
                    raise ExperimentError(f'self-check: tc {" ".join(cmd)} in {victim}: {err.strip()}')
            # longer than the stall limit and a sender's retransmission grace (_rto_grace_until)
            self._blackhole = (victim, now + 2 * self.a.stall_limit + 5)

    def _self_check_end(self, now, force=False):
        bh = getattr(self, "_blackhole", None)
        if bh and (force or now >= bh[1]):
            self.tb.run_in(bh[0], ["tc", "qdisc", "del", "dev", "dcn0", "root"])
            self._blackhole = None

    # ---------------------------------------------------------------- run
    def progress(self, now: float) -> None:
        done = sum(1 for c in self.conns.values() if c["outcome"] == "completed")
        lost = [c for c in self.conns.values() if c["outcome"] == "lost"]
        cpu = self.net.cpu.stats(now - 10, now)
        g = self.goodput
        rate = None
        if len(g) >= 2:
            old = next((x for x in g if x[0] >= now - 10), g[0])
            if g[-1][0] > old[0]:
                rate = (g[-1][1] - old[1]) * 8 / (g[-1][0] - old[0]) / 1e6
        rss = [kb for t, _, _, kb in self.rss if t >= now - 6]
        with_path = sum(1 for c in lost if c["path_remained"])
        goodput = "-" if rate is None else f"{rate:.1f}"
        cpu_pct = "-" if cpu["mean"] is None else f'{100 * cpu["mean"]:.0f}'
        rss_kb = f"{min(rss):d}-{max(rss):d}" if rss else "-"
        self.ex.log(f"{self.label} {now - self.t0:4.0f}/{self.a.phase_seconds:.0f} s: connections {len(self.conns)} "
                    f"started, {done:d} completed, {len(self.active)} active, {len(lost)} lost ({with_path:d} with a "
                    f"path); failures {sum(self.injector.injected.values()):d} (down now: "
                    f"{self.injector.describe_active()}); crashes {len(self.crashes)}; goodput {goodput} Mb/s; "
                    f"CPU {cpu_pct} %; agent RSS {rss_kb} kB")

    def run(self) -> None:
        a = self.a
        self._stopping = False
        self.peers = Peers(self.tb)
        try:
            self.peers.wait_ready()
            self.t0 = now = time.time()
            self.injector.start(now)
            next_rss = next_prog = now
            next_good = now + 1
            end = self.t0 + a.phase_seconds
            drain_end = None
            while True:
                now = time.time()
                for name, ev in self.peers.events():
                    self._handle(name, ev, now)
                sending = now < end
                if sending:
                    self._start_conns(now)
                    self._self_check(now)
                elif drain_end is None:
                    self.injector.restore_all()
                    self._self_check_end(now, force=True)
                    drain_end = now + 2 * a.stall_limit + 5   # a stall, then a retransmission's grace
                    self.ex.log(f"{self.label}: traffic and failures stopped at {now - self.t0:.0f} s; every failure "
                                f"restored; draining {len(self.active)} "
                                "connections")
                self._self_check_end(now)
                self.injector.tick(now, allow_new=sending)
                self._check_agents(now)
                self._check_stalls(now)
                if now >= next_good:
                    self.goodput.append((now, sum(v for _, v in self.rx_total.values())))
                    next_good += 1
                if now >= next_rss:
                    self._sample_rss(now)
                    next_rss += a.rss_period
                if now >= next_prog:
                    if now > self.t0:
                        self.progress(now)
                    next_prog += 10
                if drain_end is not None and (not self.active or now >= drain_end):
                    for cid in list(self.active):
                        self._lose(self.conns[cid], now, "not finished when the phase ended")
                    break
                time.sleep(0.1)
            self.t1 = time.time()
            time.sleep(1.2)  # the last progress reports
            for name, ev in self.peers.events():
                self._handle(name, ev, time.time())
            self._sample_rss(time.time())
            self.progress(time.time())
        finally:
            self._stopping = True
            self._self_check_end(time.time(), force=True)
            self.peers.stop()

    # ------------------------------------------------------------- results
    def stalls(self) -> list:
        """Every stall (receiver gaps of completed or failed connections, and
        the final stall of lost ones) with whether a path remained, and the
        longest it may last where one did (limit_s): STALL_WITH_PATH_S, and
        longer in two cases where the wait is TCP's own, not the network's
        (docs/soak.md):
          - the sender's RTO plus RETX_SLACK_S, when the stall's first
            snapshot showed a longer RTO that had not backed off
            (sender_rto_s): a SYN retransmitted (lost at a fault not yet
            detected) leaves an RTO of about 3 s, from RFC 6298 5.7 or from
            a 1 s RTT sample that the timestamp of the first SYN gives. The
            network must still deliver that retransmission: if it is lost
            too, the RTO doubles and the stall is over its limit;
          - STALL_WITH_PATH_S plus the length of a time without a path that
            the connection had just had (it ended at most STALL_WITH_PATH_S
            before the stall began: after_no_path_s), or of its previous
            stall if that one had no path at some time and ended as long
            before: TCP backed off all through it, and its next
            retransmission comes up to that long after the path is back."""
        out = []
        for c in self.conns.values():
            windows = [tuple(g) for g in c["gaps"]]
            if c["outcome"] == "lost":
                windows.append(tuple(c["stall_window"]))
            pathless = None     # the connection's last stall that had no path at some time: (start, end)
            for g0, g1 in sorted(windows):
                nop = self.oracle.no_path_seconds(c["src"], c["dst"], g0, g1)
                # the snapshot's key is the controller's view of the stall's start, which may lead the
                # receiver's by the time the sender took to start (a connection's first stall)
                rto = [v for t, v in c.get("stall_rto", {}).items() if g0 - 0.5 <= t < g1 and v is not None]
                limit = max([STALL_WITH_PATH_S] + [r + RETX_SLACK_S for r in rto])
                before = self.oracle.last_no_path(c["src"], c["dst"], g0)
                after_nop = None
                for span in (before, pathless):
                    if span and span[1] >= g0 - STALL_WITH_PATH_S:
                        after_nop = max(after_nop or 0.0, span[1] - span[0])
                if after_nop is not None:
                    limit = max(limit, STALL_WITH_PATH_S + after_nop)
                if nop > 0:
                    pathless = (g0, g1)
                out.append({"conn": c["id"], "src": c["src"], "dst": c["dst"], "start": g0, "s": round(g1 - g0, 3),
                            "path_remained": nop == 0, "no_path_s": round(nop, 3),
                            "sender_rto_s": rto[0] if rto else None,
                            "after_no_path_s": None if after_nop is None else round(after_nop, 3),
                            "limit_s": round(limit, 3), "over_limit": nop == 0 and g1 - g0 > limit + 0.0005})
        return out

    def memory_windows(self, warm: float = 0.10, warm_min_s: float = 120.0, base: float = 0.10,
                       last: float = 0.10) -> tuple:
        """(start, end of the window after the warm-up, start of the last
        window), seconds into the phase (see memory())."""
        D = self.t1 - self.t0
        b0 = max(warm * D, warm_min_s)
        return b0, b0 + base * D, D - last * D

    def memory(self, warm: float = 0.10, warm_min_s: float = 120.0, base: float = 0.10, last: float = 0.10,
               limit: float = 0.05) -> tuple:
        """Memory flatness of every agent process that ran the whole phase:
        growth = max RSS over the last `last` of the phase / max RSS over the
        `base` of it that follows the warm-up - 1. The warm-up is `warm` of
        the phase and at least `warm_min_s`: BSR's flow pool (1024 flows of
        about 15 KB, allocated once) is touched as flows are first used,
        and its high-water mark settles only once flows expire (60 s idle).
        Returns (rows, None) or ([], why) when the phase is too short."""
        T, D = self.t0, self.t1 - self.t0
        b0, b1, e0 = [T + x for x in self.memory_windows(warm, warm_min_s, base, last)]
        if b1 > e0:
            return [], (f"phase of {D:.0f} s too short: the warm-up ({b0 - T:.0f} s) and the two windows "
                        f"({100 * base:.0f} % each) do not fit")
        by_pid = collections.defaultdict(list)
        for (t, name, pid, kb), (data, size) in zip(self.rss, self.vm):
            by_pid[(name, pid)].append((t, kb, data, size))
        rows = []
        for (name, pid), pts in sorted(by_pid.items()):
            if pts[0][0] > T + 1 or pts[-1][0] < self.t1 - 1:
                continue   # restarted during the phase: not judged
            b = [x for x in pts if b0 <= x[0] <= b1]
            e = [x for x in pts if x[0] >= e0]
            if not b or not e:
                continue
            growth = max(x[1] for x in e) / max(x[1] for x in b) - 1
            rows.append({"agent": name, "pid": pid, "rss_start_kb": pts[0][1],
                         "rss_after_warmup_kb": max(x[1] for x in b), "rss_last_kb": max(x[1] for x in e),
                         "rss_max_kb": max(x[1] for x in pts),
                         "vmdata_after_warmup_kb": max(x[2] for x in b), "vmdata_last_kb": max(x[2] for x in e),
                         "vmsize_after_warmup_kb": max(x[3] for x in b), "vmsize_last_kb": max(x[3] for x in e),
                         "growth": round(growth, 4),
                         "ok": growth <= limit, "windows_s": [round(b0 - T, 1), round(b1 - T, 1), round(e0 - T, 1),
                                                              round(D, 1)]})
        return rows, None
