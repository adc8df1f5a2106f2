"""Readiness polling over many agents (orchestrator/agents.py,
agent_status_many and wait_ready): every request goes out before any answer
is read, so an agent that is still setting up (its control socket listens,
its loop does not run yet) costs a pass no more than the pass's wait, and
wait_ready prints progress each second while such agents keep it waiting.
No namespaces: stand-in agents are threads on Unix sockets in a temporary
folder."""
import json
import os
import socket
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from orchestrator.agents import Agents  # noqa: E402


class StandIn:
    """One stand-in agent: `answer` is what it replies (None: it listens
    but never accepts, as an agent before its loop runs) after `after`
    seconds from its start."""

    def __init__(self, path, answer, after=0.0):
        self.path, self.answer, self.after = path, answer, after
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.bind(path)
        self.s.listen(64)
        self.t0 = time.time()
        self.stop = False
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while not self.stop:
            wait = self.after - (time.time() - self.t0)
            if self.answer is None or wait > 0:
                time.sleep(0.02)
                continue
            self.s.settimeout(0.1)
            try:
                c, _ = self.s.accept()
            except OSError:
                continue
            with c:
                c.settimeout(1)
                try:
                    c.recv(256)
                    c.sendall(self.answer)
                except OSError:
                    pass

    def close(self):
        self.stop = True
        self.s.close()


class FakeTestbed(Agents):
    def __init__(self, folder, names):
        self.folder = folder
        self.hosts = dict.fromkeys(names)
        self.agents = {}
        self.ready_timeout = 20
        self.hello_ms = 100
        self.dead_misses = 3
        self.lines = []

    def _sock(self, name):
        return os.path.join(self.folder, name + ".sock")

    def log(self, line):
        self.lines.append((time.time(), line))


READY = json.dumps({"ready": True}).encode()
NOT_READY = json.dumps({"ready": False}).encode()


def test_one_pass_answers_and_bounds():
    with tempfile.TemporaryDirectory() as d:
        tb = FakeTestbed(d, [])
        agents = [StandIn(tb._sock("r%d" % i), READY) for i in range(5)]
        agents.append(StandIn(tb._sock("n0"), NOT_READY))
        agents.append(StandIn(tb._sock("g0"), b"not json"))
        agents += [StandIn(tb._sock("b%d" % i), None) for i in range(50)]  # setting up
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stale.bind(tb._sock("s0"))  # a socket file nobody listens on
        names = ["r%d" % i for i in range(5)] + ["n0", "g0", "s0", "a0"] + ["b%d" % i for i in range(50)]
        try:
            t0 = time.time()
            got = tb.agent_status_many(names, wait=0.5, chunk=16)
            took = time.time() - t0
        finally:
            for a in agents:
                a.close()
            stale.close()
        assert all(got["r%d" % i] == {"ready": True} for i in range(5))
        assert got["n0"] == {"ready": False}
        assert got["g0"] is None and got["s0"] is None and got["a0"] is None
        assert all(got["b%d" % i] is None for i in range(50))
        # 59 agents in 4 chunks of at most 16, each waiting at most 0.5 s;
        # one at a time with a timeout each, the 50 silent ones would hold it for minutes
        assert took < 4 * 0.5 + 1.0, took


def test_wait_ready_shows_progress_while_agents_set_up():
    with tempfile.TemporaryDirectory() as d:
        names = ["h%02d" % i for i in range(40)]
        tb = FakeTestbed(d, names)
        # half ready at once, half listening but silent for 2.5 s
        agents = [StandIn(tb._sock(n), READY, after=0.0 if i % 2 == 0 else 2.5) for i, n in enumerate(names)]
        try:
            t0 = time.time()
            tb.wait_ready()
            took = time.time() - t0
        finally:
            for a in agents:
                a.close()
        assert took < 6, took
        texts = [line for _, line in tb.lines]
        assert texts[-1].startswith("*** agents ready 40/40"), texts
        # progress while the silent half kept the run waiting: lines before
        # the last, each second, with only the first half counted
        early = [line for t, line in tb.lines if t - t0 < 2.4]
        assert early and all(line.startswith("*** agents ready 20/40") for line in early), texts
        assert len(texts) >= 3, texts
