"""Traffic: iperf3 TCP flows with JSON results, started together and waited
for with progress, and dcn-relay transfers (pipelined trees of servers)."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from orchestrator import state

from .experiment import ExperimentError

if TYPE_CHECKING:
    from orchestrator.testbed import Testbed
    from .agentctl import PathWatcher
    from .experiment import Experiment, Net


class Flow:
    """One iperf3 TCP connection src -> dst of `nbytes` (or `seconds`).
    cport: the data connection's client port (iperf3 --cport), so that its
    path can be told from the control connection's while it runs."""

    def __init__(self, src: str, dst: str, nbytes: int | None = None, seconds: float | None = None,
                 label: str | None = None, cport: int | None = None) -> None:
        if (nbytes is None) == (seconds is None):
            raise ValueError("a flow has a size or a duration")
        self.src, self.dst, self.nbytes, self.seconds = src, dst, nbytes, seconds
        self.label = label or f"{src}>{dst}"
        self.cport = cport
        self.port = None
        self.server = self.client = None
        self.result = None      # the client's iperf3 JSON
        self.error = None
        self.start_time = self.end_time = None

    def summary(self) -> dict:
        out = {"label": self.label, "src": self.src, "dst": self.dst, "port": self.port,
               "requested_bytes": self.nbytes, "requested_seconds": self.seconds, "error": self.error}
        r = self.result or {}
        end = r.get("end", {})
        rx = end.get("sum_received", {})
        tx = end.get("sum_sent", {})
        out["bytes_received"] = rx.get("bytes")
        out["seconds"] = rx.get("seconds")
        out["mbps"] = round(rx["bits_per_second"] / 1e6, 3) if rx.get("bits_per_second") else None
        out["retransmits"] = tx.get("retransmits")
        conn = (r.get("start", {}).get("connected") or [{}])[0]
        out["local_port"] = conn.get("local_port")
        out["start_unix"] = self.start_time
        out["end_unix"] = self.end_time
        out["bytes_sent"] = tx.get("bytes")
        # iperf3 -n ends when the sender has written its bytes; the server
        # stops counting at that moment, so bytes still in flight are not in
        # bytes_received: a completed connection is one that sent them all.
        out["ok"] = self.error is None and out["bytes_sent"] is not None and (
            self.nbytes is None or out["bytes_sent"] >= self.nbytes)
        return out


def run_flows(ex: Experiment, tb: Testbed, flows: list, port_base: int = 5201, timeout: float | None = None,
              progress_every: float = 5.0, on_tick: Callable[[float], None] | None = None) -> list[Flow]:
    """Starts one iperf3 server per flow (a port each), then every client at
    once; waits until all end, printing progress; returns the flows with
    their results. on_tick(elapsed_s) runs about every 0.2 s while waiting
    (failure schedules)."""
    ports = {}
    for f in flows:
        ports[f.dst] = ports.get(f.dst, port_base - 1) + 1
        f.port = ports[f.dst]
        ip = tb.wiring.ip_of(f.dst)
        f.server = tb.spawn_in(f.dst, ["iperf3", "-s", "-1", "-B", ip, "-p", str(f.port)],
                               f"iperf3 -s in {f.dst}", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(0.5 + 0.005 * len(flows))
    for f in flows:
        if f.server.poll() is not None:
            raise ExperimentError(f'iperf3 server in {f.dst} port {f.port:d} exited: '
                                  f'{f.server.stderr.read().decode(errors="replace")[:200]}')
    t0 = time.time()
    for f in flows:
        cmd = ["iperf3", "-c", tb.wiring.ip_of(f.dst), "-p", str(f.port), "-J", "-i", "1",
               "--connect-timeout", "5000"]
        cmd += ["-n", str(f.nbytes)] if f.nbytes is not None else ["-t", str(f.seconds)]
        if f.cport:
            cmd += ["--cport", str(f.cport)]
        f.start_time = time.time()
        f.client = tb.spawn_in(f.src, cmd, f"iperf3 -c in {f.src}", stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    state.kill_point("flows")  # tests: SIGKILL with the traffic running
    pending = list(flows)
    last = time.time()
    try:
        while pending:
            for f in list(pending):
                if f.client.poll() is not None:
                    f.end_time = time.time()
                    pending.remove(f)
                    _collect(tb, f)
            now = time.time()
            if on_tick:
                on_tick(now - t0)
            ex.progress((len(flows) - len(pending)) / len(flows))
            if now - last >= progress_every and pending:
                ex.log(f"  flows done {len(flows) - len(pending):d}/{len(flows)} ({now - t0:.0f} s)")
                last = now
            if timeout and now - t0 > timeout:
                for f in pending:
                    f.error = f"timeout after {timeout:.0f} s"
                    f.client.kill()
                    _collect(tb, f)
                break
            time.sleep(0.2)
    finally:
        for f in flows:
            for p in (f.client, f.server):
                if p is not None:
                    if p.poll() is None:
                        p.kill()
                    p.wait()
                    tb.reap(p)
    return flows


def _collect(tb, f):
    out, err = f.client.communicate()
    try:
        f.result = json.loads(out.decode(errors="replace") or "{}")
    except ValueError:
        f.result = None
    if f.client.returncode != 0 or not f.result or "error" in f.result:
        f.error = (f.result or {}).get("error") or err.decode(errors="replace")[:200] or \
            f"iperf3 exited with {f.client.returncode}"


def all_to_all_plan(names: list[str], nbytes: int) -> RelayPlan:
    """Every server sends nbytes to every other one, one TCP connection each
    (dcn-relay: one sender process per server, one receiver per connection)."""
    plan = RelayPlan()
    for a in names:
        for b in names:
            if a != b:
                plan.chain([a, b], nbytes)
    return plan


def completion(flows: list) -> tuple:
    """(first start, last end, seconds) over the flows."""
    starts = [f.start_time for f in flows if f.start_time]
    ends = [f.end_time for f in flows if f.end_time]
    if not starts or not ends:
        return None, None, None
    return min(starts), max(ends), max(ends) - min(starts)


class RelayPlan:
    """A distribution of one file over chains of one-hop TCP connections,
    forwarded as data arrives by `dcn-relay recv` instances. Each stream is
    laid along a server path given by the library (`dcn-topo replicas` or
    `trees`), one TCP connection per server hop, so a stream crosses exactly
    the links its path names."""

    def __init__(self, port_base: int = 7000) -> None:
        self.inst = {}        # (node, port) -> {"forward": [(node, port)], "delivers": bytes or 0}
        self.sends = []       # (src, node, port, bytes)
        self.port_base = port_base
        self._next = {}

    def _new(self, node, nbytes, delivers=0):
        p = self._next.get(node, self.port_base)
        self._next[node] = p + 1
        self.inst[(node, p)] = {"forward": [], "delivers": delivers, "expect": nbytes}
        return (node, p)

    def chain(self, path: list[str], nbytes: int, deliver: bool = True,
              parent: tuple[str, int] | None = None) -> tuple[str, int] | None:
        """A stream of nbytes along path (server names, first = sender):
        relays at the inner servers, and an instance at the last one that
        counts as a delivery when deliver. parent: the instance (or the
        sender, None) that feeds it. Returns the last instance."""
        prev = parent
        for i, node in enumerate(path[1:], 1):
            last = i == len(path) - 1
            cur = self._new(node, nbytes, nbytes if (last and deliver) else 0)
            if prev is None:
                self.sends.append((path[0], cur[0], cur[1], nbytes))
            else:
                self.inst[prev]["forward"].append(cur)
            prev = cur
        return prev


def all_to_all_point(ex: Experiment, net: Net, rate: float, seconds: float) -> dict:
    """One all-to-all as a capacity point runs it (experiments/capacity,
    experiments/data-path-all-to-all): every server sends every other one
    a file sized for about `seconds` of traffic if the servers get 3/4 of
    their `rate` Mb/s link each; the traffic window is its steady part, 2 s
    after the start to 70 % of the rest, while every server still sends.
    Returns a dict: names, res, got, done (as run_relays), failed
    (connections whose sender or receiver failed), goodput_per_server_mbps
    (bytes received by all servers / servers / start to last byte; 0 when
    it never finished), cpu (net.cpu.stats over the window), window."""
    names = net.server_names()
    per_conn = max(1 << 16, int(rate * 1e6 / 8 * seconds * 0.75 / (len(names) - 1)))
    res, got, t0, done = run_relays(ex, net.tb, all_to_all_plan(names, per_conn), timeout=seconds * 8 + 60)
    end = t0 + (done or seconds)
    w0, w1 = t0 + 2, t0 + 2 + 0.7 * max(0.0, end - t0 - 2)
    net.traffic_window(w0, w1)
    total = sum(got.values()) * 8 / 1e6 / (done or float("inf"))   # Mb/s received, start to last byte
    return {"names": names, "res": res, "got": got, "done": done,
            "failed": sum(1 for r in res.values() if r.get("exit") != 0),
            "goodput_per_server_mbps": total / len(names), "cpu": net.cpu.stats(w0, w1), "window": (w0, w1)}


@dataclasses.dataclass
class AllToAllRun:
    """What all_to_all_run() measured: the relays' records and per-server
    bytes (as run_relays), t0 and completion (first byte sent to last byte
    received), per-server goodput in Mb/s, failed (connections whose sender
    or receiver failed, and servers short of their bytes), the connections'
    ends (connection_ends) and, when watched, the PathWatcher."""
    res: dict
    got: dict
    t0: float
    done: float | None
    per_server: float | None
    failed: int
    ends: dict | None
    watcher: PathWatcher | None = None


def all_to_all_run(ex: Experiment, net: Net, names: list[str], per_conn: int, label: str, watch: bool = False,
                   beside: Iterable = ()) -> AllToAllRun:
    """The all-to-all experiments' pattern: every server of `names` sends
    per_conn bytes to every other one, one TCP connection each (dcn-relay).
    watch: a PathWatcher polls the data connections of every source agent
    every 2 s, and the threads of `beside` (started, not yet running) run
    with it. The traffic window is 2 s in to the last byte; every relay's
    record goes to raw/<label>_relays.json."""
    from .agentctl import PathWatcher
    plan = all_to_all_plan(names, per_conn)
    n = len(names)
    watchers = []
    watcher = None
    if watch:  # the data connections: TCP towards the receivers' ports
        watcher = PathWatcher(net.tb, names, period=2.0,
                              match=lambda f: f["proto"] == 6 and plan.port_base <= f["dport"] < plan.port_base + n)
        watchers = [watcher] + list(beside)
    for w in watchers:
        w.start()
    res, got, t0, done = run_relays(ex, net.tb, plan,
                                    timeout=per_conn * 8 * (n - 1) / (ex.a.link_mbps * 1e6) * 8 + 120)
    for w in watchers:
        w.stop()
    net.traffic_window(t0 + 2, t0 + (done or 3))
    ex.write_json(f"raw/{label}_relays.json", {"%s:%s" % k: v for k, v in res.items()})
    failed = sum(1 for r in res.values() if r.get("exit") != 0)
    failed += sum(1 for x in names if got.get(x, 0) < per_conn * (n - 1))
    per_server = sum(got.values()) / n * 8 / done / 1e6 if done else None
    return AllToAllRun(res, got, t0, done, per_server, failed, connection_ends(res, t0), watcher)


def run_relays(ex: Experiment, tb: Testbed, plan: RelayPlan, timeout: float = 600,
               progress_every: float = 10.0) -> tuple:
    """Starts every recv instance, then the senders; waits for all. Returns
    (per-instance results, per-node delivered bytes, t0, completion time)."""
    from orchestrator.topology import tool_path
    exe = tool_path(ex.a.build_dir, "dcn-relay")
    if not exe:
        raise ExperimentError(f"dcn-relay not found in {ex.a.build_dir}: run make build")
    ip = tb.wiring.ip_of
    procs = []
    for (node, port), spec in sorted(plan.inst.items()):
        cmd = [exe, "recv", "--listen", str(port), "--bind", ip(node), "--expect", str(spec["expect"]),
               "--json", "--timeout", "600"]
        for fn, fp in spec["forward"]:
            cmd += ["--forward", f"{ip(fn)}:{fp:d}"]
        procs.append(((node, port), tb.spawn_in(node, cmd, "dcn-relay recv in " + node,
                                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
    time.sleep(0.5 + 0.01 * len(procs))
    senders = {}
    for src, node, port, nbytes in plan.sends:
        senders.setdefault(src, []).append(f"{ip(node)}:{port:d}:{int(nbytes)}")
    t0 = time.time()
    for src, tos in senders.items():
        cmd = [exe, "send", "--json", "--timeout", "600"]
        for t in tos:
            cmd += ["--to", t]
        procs.append(((src, "send"), tb.spawn_in(src, cmd, "dcn-relay send in " + src,
                                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
    results = {}
    last = time.time()
    try:
        pending = list(procs)
        while pending:
            for item in list(pending):
                key, p = item
                if p.poll() is not None:
                    out, err = p.communicate()
                    try:
                        results[key] = json.loads(out.decode(errors="replace") or "{}")
                    except ValueError:
                        results[key] = {}
                    results[key]["exit"] = p.returncode
                    if p.returncode != 0:
                        results[key]["stderr"] = err.decode(errors="replace")[:300]
                    pending.remove(item)
            if time.time() - t0 > timeout:
                for key, p in pending:
                    results[key] = {"exit": None, "stderr": f"timeout after {timeout:.0f} s"}
                break
            ex.progress((len(procs) - len(pending)) / len(procs))
            if time.time() - last >= progress_every and pending:
                ex.log(f"  relay processes done {len(procs) - len(pending):d}/{len(procs)} ({time.time() - t0:.0f} "
                       "s)")
                last = time.time()
            time.sleep(0.1)
    finally:
        for _, p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
            tb.reap(p)
    delivered, done_at = {}, {}
    for (node, port), spec in plan.inst.items():
        if not spec["delivers"]:
            continue
        r = results.get((node, port), {})
        delivered[node] = delivered.get(node, 0) + (r.get("bytes") or 0)
        if r.get("last_byte_unix_ms"):
            done_at[node] = max(done_at.get(node, 0), r["last_byte_unix_ms"] / 1000.0)
    completion = (max(done_at.values()) - t0) if done_at else None
    return results, delivered, t0, completion


def connection_ends(res: dict, t0: float) -> dict | None:
    """When the connections' last bytes arrived (s after the start):
    median, 90th and 99th percentile and the last, so that a tail of a few
    stragglers in the completion time shows."""
    ends = sorted(r["last_byte_unix_ms"] / 1000.0 - t0 for r in res.values()
                  if r.get("mode") == "recv" and r.get("last_byte_unix_ms"))
    if not ends:
        return None
    at = lambda q: round(ends[min(len(ends) - 1, int(q * len(ends)))], 2)  # noqa: E731
    return {"p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": round(ends[-1], 2)}


def topo_json(ex: Experiment, *args: str) -> dict:
    """`dcn-topo ARGS...` as parsed JSON: the library is the one source of
    the paths, trees and graphs the experiments lay traffic on."""
    from orchestrator.topology import tool_path
    exe = tool_path(ex.a.build_dir, "dcn-topo")
    r = subprocess.run([exe] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise ExperimentError(f'dcn-topo {" ".join(args)}: {r.stderr.strip()}')
    return json.loads(r.stdout)
