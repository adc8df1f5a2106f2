"""dcn-ctl spoken directly on the agents' control sockets (one request line,
the answer until close; docs/interfaces.md), and a watcher that records when
the flows of one source change path."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orchestrator.testbed import Testbed


def ctl(tb: Testbed, name: str, request: str, timeout: float = 5) -> dict | None:
    """The parsed JSON answer of `dcn-ctl -n NAME REQUEST --json`, or None."""
    return tb.agent_request(name, request, timeout)


def flows(tb: Testbed, name: str) -> list[dict]:
    r = ctl(tb, name, "flows")
    return r.get("flows", []) if r else []


def counters(tb: Testbed, name: str) -> dict:
    r = ctl(tb, name, "counters")
    return r.get("counters", {}) if r else {}


def flow_key(f: dict) -> tuple:
    return (f["src"], f["sport"], f["dst"], f["dport"], f["proto"])


class PathWatcher(threading.Thread):
    """Polls the flows of some agents every `period` s and keeps every change
    of a flow's path: changes = [(unix time, agent, key, path list)].
    probe_rounds[key]: the polls in which the flow's probe count grew. A BSR
    round probes all its paths at once, every 10 s or on a failure, so with
    a poll period of a few seconds each round is one such poll (two rounds
    between two polls would count once)."""

    def __init__(self, tb: Testbed, names: list[str], period: float = 0.1,
                 match: Callable[[dict], bool] | None = None) -> None:
        super().__init__(daemon=True)
        self.tb, self.names, self.period = tb, list(names), period
        self.match = match or (lambda f: f.get("proto") == 6)
        self.current = {}
        self.changes = []
        self.last = {}  # key -> last flow record seen
        self.probe_rounds = {}
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            t = time.time()
            for n in self.names:
                for f in flows(self.tb, n):
                    if not self.match(f):
                        continue
                    k = (n,) + flow_key(f)
                    prev = self.last.get(k)
                    if f.get("probes", 0) > (prev.get("probes", 0) if prev else 0):
                        self.probe_rounds[k] = self.probe_rounds.get(k, 0) + 1
                    self.last[k] = f
                    if self.current.get(k) != f["path"]:
                        self.current[k] = f["path"]
                        self.changes.append((t, n, k, f["path"]))
            self._halt.wait(self.period)

    def stop(self) -> None:
        self._halt.set()
        if self.is_alive():
            self.join(5)

    def rows(self, t0: float) -> list[list]:
        """CSV rows: seconds since t0, agent, flow, path."""
        out = [["t_s", "agent", "flow", "path"]]
        for t, n, k, p in self.changes:
            out.append([f"{t - t0:.3f}", n, "%s:%s>%s:%s" % k[1:5], " ".join(p)])
        return out
