#!/usr/bin/python3
"""A stand-in for the orchestrator's dcn-view server, for the page's
development and for tests without root: it serves orchestrator/view/static/
and the dcn-view JSON API from a fixture folder (make_fixtures.py writes one).

    tests/view/mock_view_server.py [--port N] [--fixture DIR] [--seed N]

Prints "dcn-view mock: http://127.0.0.1:PORT/" once it listens (--port 0, the
default, takes a free port). Each GET /api/state is a new sample: random loads
(the flow's links carry its rate), the scenario's failed links at 0 and its
failed nodes; the first sample after a start or a new generation has unknown
(null) loads, as the real server's first sample. Controls for tests:
GET /mock/bump (a new generation: the page must fetch the topology again),
GET /mock/down?seconds=S (answer 503 for S seconds), GET /mock/stats (how many
requests each endpoint had: topology, state, server),
POST /mock/scenario with a JSON object merged into the scenario (e.g.
{"experiment": null} or {"failed_links": [["h00", "s0_0"]]}).
Stdlib only, 127.0.0.1 only.
"""
import argparse
import json
import os
import random
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
STATIC = os.path.join(os.path.dirname(os.path.dirname(HERE)), "orchestrator", "view", "static")
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".md": "text/plain; charset=utf-8", ".svg": "image/svg+xml"}


class Mock:
    def __init__(self, fixture, seed):
        with open(os.path.join(fixture, "topology.json")) as f:
            self.topology = json.load(f)
        with open(os.path.join(fixture, "scenario.json")) as f:
            self.scenario = json.load(f)
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.samples = 0
        self.start = time.time()
        self.down_until = 0.0
        self.events = []
        self.stats = {"topology": 0, "state": 0, "server": 0}
        self.by_ends = {frozenset((lk["a"], lk["b"])): lk for lk in self.topology["links"]}

    def bump(self):
        with self.lock:
            self.topology["generation"] += 1
            self.samples = 0
            self.event("generation %d" % self.topology["generation"])

    def event(self, text):
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".000+00:00"
        self.events = (self.events + ["%s %s" % (stamp, text)])[-20:]

    def failed_ids(self):
        return {self.by_ends[frozenset(p)]["id"] for p in self.scenario.get("failed_links", [])
                if frozenset(p) in self.by_ends}

    def state(self):
        with self.lock:
            first = self.samples == 0
            self.samples += 1
            failed = self.failed_ids()
            load = {}
            for fl in self.scenario.get("flows", []):
                for a, b in zip(fl["path"], fl["path"][1:]):
                    lk = self.by_ends.get(frozenset((a, b)))
                    if lk:
                        d = "ab" if lk["a"] == a else "ba"
                        load[lk["id"], d] = load.get((lk["id"], d), 0.0) + fl["rate_mbps"]
            links = {}
            for lk in self.topology["links"]:
                i = lk["id"]
                if first:
                    links[i] = {"ab": None, "ba": None, "failed": i in failed}
                elif i in failed:
                    links[i] = {"ab": 0.0, "ba": 0.0, "failed": True}
                else:
                    def rnd(d):
                        base = load.get((i, d), 0.0)
                        noise = self.rng.random() * lk["mbps"] * (0.1 if base else 0.6) if self.rng.random() < 0.6 else 0
                        return round(min(lk["mbps"], base + noise), 2)
                    links[i] = {"ab": rnd("ab"), "ba": rnd("ba"), "failed": False}
            if self.samples % 5 == 2:
                self.event("sample %d: %d flows" % (self.samples, len(self.scenario.get("flows", []))))
            exp = self.scenario.get("experiment")
            if exp is not None:
                elapsed = time.time() - self.start
                exp = dict(exp, progress=round((elapsed / 60.0) % 1.0, 3), elapsed_s=round(elapsed, 1))
            flows = [dict(fl, age_s=round(time.time() - self.start, 1)) for fl in self.scenario.get("flows", [])]
            return {"generation": self.topology["generation"], "t": round(time.time(), 3), "links": links,
                    "failed_nodes": dict(self.scenario.get("failed_nodes", {})), "flows": flows,
                    "experiment": exp, "events": list(self.events)}

    def server(self, name):
        kinds = {n["name"]: n["kind"] for n in self.topology["nodes"]}
        if kinds.get(name) != "server":
            return None
        with self.lock:
            if name in self.scenario.get("failed_nodes", {}):
                return {"name": name, "status": None, "neighbors": None, "flows": None, "failures": None}
            failed = self.failed_ids()
            mine = [lk for lk in self.topology["links"] if name in (lk["a"], lk["b"])]
            neigh = []
            for port, lk in enumerate(mine):
                other = lk["b"] if lk["a"] == name else lk["a"]
                neigh.append({"nha": "0x%02x" % (port + 1), "name": other, "port": port, "ifname": "%s-eth%d" % (name, port),
                              "mac": "02:00:00:00:%02x:%02x" % (port, len(name)), "up": lk["id"] not in failed,
                              "last_heard_ms": None if lk["id"] in failed else self.rng.randrange(0, 900)})
            flows = [{k: v for k, v in fl.items() if k != "server"} for fl in self.scenario.get("flows", [])
                     if fl.get("server") == name]
            failures = []
            for a, b in self.scenario.get("failed_links", []):
                if name in (a, b):
                    failures.append({"a": a, "b": b, "kind": "local", "expires_in_ms": None})
                elif flows:
                    failures.append({"a": a, "b": b, "kind": "learned", "expires_in_ms": self.rng.randrange(1000, 30000)})
            up = sum(1 for n in neigh if n["up"])
            status = {"name": name, "id": 0, "ip": self.scenario.get("ips", {}).get(name, ""),
                      "family": self.topology["family"], "neighbors_up": up, "neighbors_total": len(neigh),
                      "ready": up == len(neigh), "uptime_s": round(time.time() - self.start, 1), "path_select": "bsr"}
            return {"name": name, "status": status, "neighbors": neigh, "flows": flows, "failures": failures}


class Handler(BaseHTTPRequestHandler):
    mock = None
    static = STATIC

    def log_message(self, fmt, *args):
        pass

    def send(self, code, body, ctype="application/json"):
        if not isinstance(body, bytes):
            body = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlsplit(self.path)
        path, m = url.path, self.mock
        if path == "/mock/bump":
            m.bump()
            return self.send(200, {"generation": m.topology["generation"]})
        if path == "/mock/down":
            m.down_until = time.time() + float(parse_qs(url.query).get("seconds", ["5"])[0])
            return self.send(200, {"down_until": m.down_until})
        if path == "/mock/stats":
            return self.send(200, m.stats)
        for prefix, key in (("/api/topology", "topology"), ("/api/state", "state"), ("/api/server/", "server")):
            if path.startswith(prefix):
                m.stats[key] += 1
        if time.time() < m.down_until:
            return self.send(503, {"error": "testbed down (mock)"})
        if path in ("/", "/index.html"):
            return self.file("index.html")
        if path.startswith("/static/"):
            return self.file(unquote(path[len("/static/"):]))
        if path == "/api/topology":
            with m.lock:
                return self.send(200, m.topology)
        if path == "/api/state":
            return self.send(200, m.state())
        if path.startswith("/api/server/"):
            name = unquote(path[len("/api/server/"):])
            ans = m.server(name)
            return self.send(200, ans) if ans else self.send(404, {"error": "no server %r" % name})
        self.send(404, {"error": "not found"})

    def do_POST(self):
        if urlsplit(self.path).path != "/mock/scenario":
            return self.send(404, {"error": "not found"})
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        with self.mock.lock:
            self.mock.scenario.update(body)
        self.send(200, self.mock.scenario)

    def file(self, name):
        if "/" in name or name.startswith("."):
            return self.send(404, {"error": "not found"})
        fn = os.path.join(self.static, name)
        if not os.path.isfile(fn):
            return self.send(404, {"error": "not found"})
        with open(fn, "rb") as f:
            self.send(200, f.read(), TYPES.get(os.path.splitext(name)[1], "application/octet-stream"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--fixture", default=os.path.join(HERE, "fixtures", "bcube"))
    ap.add_argument("--static", default=STATIC)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    Handler.mock = Mock(a.fixture, a.seed)
    Handler.static = a.static
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    print("dcn-view mock: http://127.0.0.1:%d/" % srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
