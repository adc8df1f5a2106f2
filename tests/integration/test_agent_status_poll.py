"""Readiness polling over many agents (orchestrator/status_poll.py, used by
Agents.wait_ready): one open request per agent, answers read from all at
once, so an agent that is still setting up (its control socket listens, its
loop does not run yet) holds up no other, and its request stays open until
it answers, however slowly; wait_ready prints progress each second while
such agents keep it waiting. No namespaces: stand-in agents are threads on
Unix sockets in a temporary folder."""
import json
import os
import socket
import tempfile
import threading
import time

from orchestrator.agents import Agents
from orchestrator import errors
from orchestrator.status_poll import StatusPoller


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


class Climbing(StandIn):
    """A stand-in agent that hears one more neighbour each `step` seconds
    and is ready once it has `total` (or that never gets past `stuck_at`)."""

    def __init__(self, path, total, step, stuck_at=None):
        self.total, self.step, self.stuck_at = total, step, stuck_at  # before the serving thread starts
        self.t0 = time.time()
        super().__init__(path, b"", after=0.0)

    @property
    def answer(self):
        up = min(self.total, int((time.time() - self.t0) / self.step))
        if self.stuck_at is not None:
            up = min(up, self.stuck_at)
        return json.dumps({"ready": up >= self.total, "neighbors_up": up, "neighbors_total": self.total}).encode()

    @answer.setter
    def answer(self, _value):
        pass


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
# Slowness is no fault: a busy box (the rest of the suite beside it) may
# delay the stand-ins' answers by seconds, so the bounds leave that much.
SLACK_S = 10.0
LATE_S = SLACK_S + 2.0
NOT_READY = json.dumps({"ready": False}).encode()


def test_answers_come_from_all_at_once_and_silent_ones_stay_open():
    with tempfile.TemporaryDirectory() as d:
        tb = FakeTestbed(d, [])
        agents = [StandIn(tb._sock("r%d" % i), READY) for i in range(5)]
        agents.append(StandIn(tb._sock("n0"), NOT_READY))
        agents.append(StandIn(tb._sock("g0"), b"not json"))
        agents += [StandIn(tb._sock("b%d" % i), None) for i in range(50)]  # setting up
        agents.append(StandIn(tb._sock("late"), READY, after=LATE_S))  # answers LATE_S s in
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stale.bind(tb._sock("s0"))  # a socket file nobody listens on
        names = ["r%d" % i for i in range(5)] + ["n0", "g0", "s0", "a0", "late"] + ["b%d" % i for i in range(50)]
        answering = {"r%d" % i for i in range(5)} | {"n0", "g0"}
        try:
            with StatusPoller(tb._sock, reask=60.0, max_open=64) as p:
                t0 = time.time()
                p.ask(names)
                got = p.answers(0.5)
                took = time.time() - t0
                # 50 silent agents cost the call no more than its wait (and what a
                # busy box adds); asked one at a time with a timeout each, they
                # would hold it for minutes
                assert took < 0.5 + SLACK_S, took
                # on a busy box the stand-ins may answer in later calls: collect
                while not answering <= set(got) and time.time() - t0 < SLACK_S:
                    got.update(p.answers(0.5))
                assert all(got["r%d" % i] == {"ready": True} for i in range(5)), got
                assert got["n0"] == {"ready": False} and got["g0"] is None
                # absent, stale and silent agents give no answer yet
                assert not set(got) & ({"s0", "a0", "late"} | {"b%d" % i for i in range(50)}), got
                assert set(p.open) == {"late"} | {"b%d" % i for i in range(50)}
                # asking again sends nothing new: the open requests wait, the answered
                # ones wait for reask
                p.ask(names)
                assert set(p.open) == {"late"} | {"b%d" % i for i in range(50)}
                # the slow one's request, still open, gets its answer
                while "late" not in got and time.time() - t0 < LATE_S + SLACK_S:
                    got.update(p.answers(1.0))
                assert got.get("late") == {"ready": True}, got
            assert not p.open
        finally:
            for a in agents:
                a.close()
            stale.close()


def test_requests_to_running_agents_stay_within_the_window():
    with tempfile.TemporaryDirectory() as d:
        tb = FakeTestbed(d, [])
        names = ["r%d" % i for i in range(40)]
        agents = [StandIn(tb._sock(n), NOT_READY) for n in names]
        agents += [StandIn(tb._sock("b%d" % i), None) for i in range(10)]  # setting up
        try:
            with StatusPoller(tb._sock, reask=0.0, window=8) as p:
                p.ask(names + ["b%d" % i for i in range(10)])  # first contact: no window
                assert len(p.open) == 50
                got = {}
                t0 = time.time()
                while len(got) < 40 and time.time() - t0 < 5:
                    got.update(p.answers(0.5))
                assert set(got) == set(names)
                # every one has answered: from now on at most 8 of them at a time,
                # the silent ones' requests staying open beside them
                for _ in range(10):
                    p.ask(names)
                    assert p.open_running <= 8
                    assert sum(1 for n in p.open if n in names) == p.open_running
                    p.answers(0.5)
        finally:
            for a in agents:
                a.close()


def test_open_requests_are_capped_and_timed_out():
    with tempfile.TemporaryDirectory() as d:
        tb = FakeTestbed(d, [])
        agents = [StandIn(tb._sock("b%d" % i), None) for i in range(20)]
        names = ["b%d" % i for i in range(20)]
        try:
            with StatusPoller(tb._sock, reask=0.0, timeout=0.3, max_open=8) as p:
                p.ask(names)
                first = dict((n, v[0]) for n, v in p.open.items())
                assert len(first) == 8
                p.answers(0.4)
                p.ask(names)  # the 8 timed out: sent again, on new sockets
                assert len(p.open) == 8
                assert all(p.open[n][0] is not first[n] for n in p.open if n in first)
        finally:
            for a in agents:
                a.close()


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
        # progress while the silent half kept the run waiting: lines each
        # second before the last, counting at most the first half, and all of it
        early = [int(line.split()[3].split("/")[0]) for t, line in tb.lines if t - t0 < 2.4]
        assert len(early) >= 2 and max(early) == 20, texts


def test_wait_ready_waits_as_long_as_agents_progress():
    # a slow machine: every agent hears a neighbour each 0.4 s and needs 8,
    # 3.2 s in all, four times the allowed time without progress
    with tempfile.TemporaryDirectory() as d:
        names = ["h%02d" % i for i in range(6)]
        tb = FakeTestbed(d, names)
        agents = [Climbing(tb._sock(n), total=8, step=0.4) for n in names]
        try:
            took = tb.wait_ready(timeout=0.8)
        finally:
            for a in agents:
                a.close()
        assert 3.0 < took < 6, took


def test_wait_ready_fails_once_progress_stops():
    with tempfile.TemporaryDirectory() as d:
        names = ["h00", "h01"]
        tb = FakeTestbed(d, names)
        agents = [Climbing(tb._sock("h00"), total=4, step=0.1),
                  Climbing(tb._sock("h01"), total=4, step=0.1, stuck_at=2)]  # 2 of 4 heard, then nothing
        t0 = time.time()
        try:
            tb.wait_ready(timeout=1.0)
            raise AssertionError("wait_ready returned with h01 stuck")
        except errors.TestbedError as e:
            msg = str(e)
        finally:
            for a in agents:
                a.close()
        assert "1 agents not ready: no progress for 1 s" in msg and "h01: 2/4 neighbours" in msg, msg
        assert time.time() - t0 < 3, time.time() - t0
