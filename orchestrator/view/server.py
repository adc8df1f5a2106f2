"""The view's HTTP server: a static page and three JSON answers (docs/view.md)
read from the testbed of this process, on 127.0.0.1 only.

It samples on request only: the link counters are read, and the agents
asked for their flows, when the page asks for the state (about once a
second while a page is open), so nothing is read while none is. The rate
of a link is the change of its counters since the previous request.

Trust: the listener takes connections from this machine only, and only
with a Host header naming 127.0.0.1 or localhost (a web page elsewhere
cannot reach it through DNS rebinding). It answers GET only: the view
reads the testbed and changes nothing in it."""
from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

from .. import linkclass, state
from ..counters import LinkCounters, rates
from ..errors import TestbedError

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                 ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png"}
FLOW_AGENTS_PER_STATE = 64  # agents asked for their flows per state request (round robin beyond)
FLOW_BUDGET_S = 0.3         # and for at most this long: the rest keep their last answer
CTL_TIMEOUT_S = 0.5         # an agent that has not answered by then is left out of this state
RATE_GAP_MAX_S = 10.0       # counters older than this give no rate (the page was closed between)
EVENTS_SHOWN = 20
SERVER_REQUESTS = ("status", "neighbors", "flows", "failures")


class ViewError(RuntimeError):
    pass


class View:
    """dcn-view on 127.0.0.1:port. attach(tb) shows a started testbed,
    detach(tb) takes it away before its teardown; set_experiment() shows an
    experiment's phase and progress. A context manager; close() stops it."""

    def __init__(self, port: int, log: Callable[[str], None] | None = None) -> None:
        """port: 1..65535, or 0 for any free one (self.port tells which)."""
        if not 0 <= port <= 65535:
            raise ViewError(f"--view {port:d}: a TCP port is 1..65535")
        # _lock: the fields below, held for instants only (the experiment
        # sets its progress under it); _sample_lock: one state request's
        # sampling at a time, with what it keeps between requests
        self._lock = threading.Lock()
        self._tb = None
        self._label = None
        self.generation = 0
        self._experiment = None
        self._sample_lock = threading.Lock()
        self._sampled_generation = None
        self._counters = None   # LinkCounters of the attached testbed; False: not readable here
        self._prev = None       # the previous counters read
        self._flows = {}        # server -> its agent's last flows answer
        self._segments = {}     # server -> its agent's last segments answer (MDCube)
        self._next_agent = 0
        self._handler_cpu_s = 0.0  # CPU time of the requests' threads
        self._serve_tid = None
        try:
            self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        except OSError as e:
            raise ViewError(f"--view {port:d}: cannot listen on 127.0.0.1:{port:d} ({e.strerror})") from None
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._httpd.view = self
        self._thread = threading.Thread(target=self._serve, name="dcn-view", daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self.port:d}/"
        (log or print)(f"*** dcn-view: {self.url}")

    def __enter__(self) -> View:
        return self

    def __exit__(self, *exc: Any) -> bool:
        self.close()
        return False

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _serve(self):
        self._serve_tid = threading.get_native_id()
        self._httpd.serve_forever()

    def _count_cpu(self, seconds):
        with self._lock:
            self._handler_cpu_s += seconds

    def cpu_seconds(self) -> float:
        """The CPU time the view has taken: its requests' threads and the
        thread that accepts them (its wake-ups when no page is open included)."""
        with self._lock:
            total = self._handler_cpu_s
        listener = state.proc_cpu_s(os.getpid(), self._serve_tid) if self._serve_tid else None
        return total + (listener or 0.0)

    # ---------------------------------------------------------- the testbed
    def attach(self, tb: Any, label: str | None = None) -> None:
        with self._lock:
            self._tb, self._label = tb, label
            self.generation += 1

    def detach(self, tb: Any) -> None:
        with self._lock:
            if self._tb is tb:
                self._tb = self._label = None
                self.generation += 1

    def set_experiment(self, name: str, **fields: Any) -> None:
        """fields: phase (text), run, runs, progress (0..1 or None); those
        not given keep their value."""
        with self._lock:
            if self._experiment is None or self._experiment["name"] != name:
                self._experiment = {"name": name, "phase": None, "run": None, "runs": None, "progress": None,
                                    "t0": time.time()}
            self._experiment.update(fields)

    # ------------------------------------------------------------- answers
    def topology(self) -> dict:
        with self._lock:
            tb, out = self._tb, {"generation": self.generation, "spec": None, "family": None, "label": self._label,
                                 "width": 1, "height": 1, "nodes": [], "groups": [], "links": []}
            if tb is None or tb.wiring is None:
                return out
            w = tb.wiring
            out.update(spec=w.spec, family=w.family, width=w.layout.get("width", 1),
                       height=w.layout.get("height", 1), groups=w.layout.get("groups", []))
            out["nodes"] = ([{"name": s["name"], "kind": "server", "x": s.get("x"), "y": s.get("y")}
                             for s in w.server_list] +
                            [{"name": s["name"], "kind": "switch", "x": s.get("x"), "y": s.get("y")}
                             for s in w.switch_list])
            out["links"] = [{"id": f"L{i:d}", "a": l["a"], "b": l["b"], "kind": l["kind"],
                             "mbps": linkclass.params_for(w.family, l["kind"], tb.server_link,
                                                          tb.highspeed_link).get("bw")}
                            for i, l in enumerate(w.links)]
            return out

    def state(self) -> dict:
        with self._sample_lock:
            with self._lock:
                out = {"generation": self.generation, "t": time.time(), "links": {}, "failed_nodes": {},
                       "flows": [], "experiment": self._experiment_now(), "events": []}
                tb = self._tb
            out["view_cpu_s"] = round(self.cpu_seconds(), 4)
            if tb is None or tb.wiring is None:
                return out
            if self._sampled_generation != out["generation"]:
                self._sampled_generation = out["generation"]
                self._counters = self._prev = None
                self._flows, self._segments = {}, {}
            w = tb.wiring
            failed_nodes = dict(tb.failed_nodes)
            if tb.agent_mode:
                agents = dict(tb.agents)
                for name in w.servers:
                    p = agents.get(name)
                    if name not in failed_nodes and (p is None or p.poll() is not None):
                        failed_nodes[name] = "agent"
            failed_links = dict(tb.failed_links)
            loads = self._link_loads(tb)
            for i, l in enumerate(w.links):
                fault = failed_links.get(frozenset((l["a"], l["b"])))
                if fault is None and {failed_nodes.get(l["a"]), failed_nodes.get(l["b"])} & {"server", "switch"}:
                    fault = "node"
                out["links"][f"L{i:d}"] = {"ab": loads[i][0], "ba": loads[i][1], "failed": fault is not None,
                                           "fault": fault}
            out["failed_nodes"] = failed_nodes
            if tb.agent_mode:
                out["flows"] = self._agent_flows(tb, [n for n in w.servers if n not in failed_nodes])
            out["events"] = list(tb.events[-EVENTS_SHOWN:])
            return out

    def server(self, name: str) -> dict | None:
        """What the agent of server `name` says of itself; None: no such server."""
        with self._lock:
            tb = self._tb
        if tb is None or tb.wiring is None or name not in tb.wiring.servers:
            return None
        out = {"name": name}
        for req in SERVER_REQUESTS:
            r = tb.agent_request(name, req, timeout=CTL_TIMEOUT_S) if tb.agent_mode else None
            out[req] = r.get(req, r) if isinstance(r, dict) and req != "status" else r
        return out

    # -------------------------------------------------------------- helpers
    def _experiment_now(self):
        e = self._experiment
        if e is None:
            return None
        out = {k: v for k, v in e.items() if k != "t0"}
        out["elapsed_s"] = round(time.time() - e["t0"], 1)
        return out

    def _link_loads(self, tb):
        """[a->b, b->a] Mb/s of every link since the previous request."""
        w = tb.wiring
        out = [[None, None] for _ in w.links]
        if self._counters is None:
            try:
                self._counters = LinkCounters(w, host_pid=lambda n: tb.hosts[n].pid, switch_pid=tb.ns_pid_here)
            except (TestbedError, KeyError, AttributeError):  # another machine's namespaces (--cluster)
                self._counters = False
        if not self._counters:
            return out
        cur, prev = self._counters.read(), self._prev
        self._prev = cur
        if prev is None or cur[0] - prev[0] > RATE_GAP_MAX_S:
            return out
        for v, i, fwd in zip(rates(prev, cur), self._counters.link_index, self._counters.forward):
            out[i][0 if fwd else 1] = None if v is None or v < 0 else round(v, 3)
        return out

    def _agent_flows(self, tb, alive):
        """Every flow the agents hold. A request asks the agents in turn, at
        most FLOW_AGENTS_PER_STATE of them and for FLOW_BUDGET_S (so a
        busy box delays a failure's drawing by that much at most); the next
        request goes on where this one stopped, and the agents not asked
        keep their last answer."""
        start = self._next_agent % len(alive) if alive else 0
        deadline = time.monotonic() + FLOW_BUDGET_S
        asked = 0
        segmented = tb.wiring.family == "mdcube"
        for name in (alive[start:] + alive[:start])[:FLOW_AGENTS_PER_STATE]:
            if asked and time.monotonic() > deadline:
                break
            r = tb.agent_request(name, "flows", timeout=CTL_TIMEOUT_S)
            self._flows[name] = r.get("flows", []) if isinstance(r, dict) else []
            if segmented:
                r = tb.agent_request(name, "segments", timeout=CTL_TIMEOUT_S)
                self._segments[name] = r.get("segments", []) if isinstance(r, dict) else []
            asked += 1
        self._next_agent = start + asked
        keep = set(alive)
        self._flows = {n: f for n, f in self._flows.items() if n in keep}
        self._segments = {n: f for n, f in self._segments.items() if n in keep}
        return ([dict(f, server=n) for n, fl in self._flows.items() for f in fl] +
                chained_flows(self._segments, tb.wiring.ip_of))


def chained_flows(segments: dict, ip_of: Callable[[str], str]) -> list[dict]:
    """MDCube's flows from its agents' segment tables (`dcn-ctl segments`).
    Hierarchical routing keeps a flow's path in pieces: the source's agent
    holds the segment to the entry server of the next container, that
    server's agent the next one, and so on to the destination. A flow is
    (src, dst, flow id), drawn from its source's segment on, joined end to
    start; a piece not (yet) known leaves the path short ("complete": false)."""
    start_of, heads = {}, []
    for server, segs in segments.items():
        for sg in segs:
            nodes = sg.get("segment") or []
            if not nodes:
                continue
            key = (sg.get("src"), sg.get("dst"), sg.get("flow_id"))
            start_of[(key, nodes[0])] = nodes
            if sg.get("source"):
                heads.append((key, server, sg))
    out = []
    for key, server, sg in heads:
        path, joined = list(sg["segment"]), {sg["segment"][0]}
        while path[-1] != key[1] and path[-1] not in joined and (key, path[-1]) in start_of:
            joined.add(path[-1])
            path += start_of[(key, path[-1])][1:]
        try:
            src, dst = ip_of(key[0]), ip_of(key[1])
        except KeyError:
            continue
        out.append({"server": server, "src": src, "dst": dst, "proto": None, "sport": None, "dport": None,
                    "flow_id": key[2], "path": path, "complete": path[-1] == key[1], "rate_mbps": None,
                    "age_s": sg.get("age_s"), "jump": sg.get("jump")})
    return out


class _Handler(BaseHTTPRequestHandler):
    server_version = "dcn-view"

    def log_message(self, *_args):
        pass

    def do_GET(self):  # noqa: N802 (http.server's name)
        c0 = time.thread_time()
        try:
            self._answer(self.server.view)
        finally:
            self.server.view._count_cpu(time.thread_time() - c0)

    def _answer(self, view):
        if self.headers.get("Host", "") not in (f"127.0.0.1:{view.port:d}", f"localhost:{view.port:d}"):
            return self._json(403, {"error": "the view answers 127.0.0.1 and localhost only"})
        path = unquote(urlsplit(self.path).path)
        if path in ("/", "/index.html"):
            return self._file("index.html")
        if path.startswith("/static/"):
            return self._file(path[len("/static/"):])
        if path == "/api/topology":
            return self._json(200, view.topology())
        if path == "/api/state":
            return self._json(200, view.state())
        if path.startswith("/api/server/"):
            name = path[len("/api/server/"):]
            r = view.server(name)
            return self._json(200, r) if r is not None else self._json(404, {"error": f"no server named {name}"})
        return self._json(404, {"error": f"nothing at {path}"})

    def _file(self, name):
        ctype = CONTENT_TYPES.get(os.path.splitext(name)[1])
        try:
            listed = name in os.listdir(STATIC_DIR)  # no path of the request's own: only the folder's files
        except OSError:
            listed = False
        if ctype is None or not listed:
            return self._json(404, {"error": f"no file {name}"})
        with open(os.path.join(STATIC_DIR, name), "rb") as f:
            self._send(200, ctype, f.read())

    def _json(self, code, obj):
        self._send(code, "application/json", json.dumps(obj).encode())

    def _send(self, code, ctype, body):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass
