"""Asking many agents at once whether they are ready (Agents.wait_ready).

Each agent gets at most one open request (`status --json`, what `dcn-ctl
-s SOCK status --json` sends) on its control socket; answers are read as
they come, from all sockets at once. An agent listens on its control socket
before it loads its BPF programs and makes its devices, and answers only once
its loop runs: its request simply stays open meanwhile. A request open for
longer than `timeout` is closed and asked again; an agent that answered is
asked again no sooner than `reask` seconds later. Agents whose loop runs
(they have answered before) have at most `window` requests open among
them, so that the rate of requests follows how fast they answer: on a box
saturated by the OVS userspace datapath an answer takes long, and the
requests back off instead of adding to the load (the 16 blocking threads
this replaced had the same effect, with 16)."""
from __future__ import annotations

import json
import resource
import selectors
import socket
import time
from collections.abc import Callable

REQUEST = b"status --json\n"
ANSWER_TIMEOUT_S = 5.0
MAX_OPEN = 4096
WINDOW = 64


def open_limit(cap: int = MAX_OPEN) -> int:
    """How many control sockets may be open at once: cap, unless the
    open-file limit keeps fewer (256 spare)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return cap
    return max(16, min(cap, soft - 256))


class StatusPoller:
    def __init__(self, sock_of: Callable[[str], str], reask: float, timeout: float = ANSWER_TIMEOUT_S,
                 max_open: int | None = None, window: float = WINDOW) -> None:
        self.sock_of = sock_of  # name -> path of its control socket
        self.reask = reask
        self.timeout = timeout
        self.max_open = max_open or open_limit()
        self.window = window
        self.sel = selectors.DefaultSelector()
        self.open = {}  # name -> [socket, chunks of the answer, sent at]
        self.answered = {}  # name -> when its last answer (or failure) came
        self.running = set()  # names that have answered (their loop runs)
        self.open_running = 0  # how many of the open requests go to those

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for n in list(self.open):
            self._drop(n)
        self.sel.close()

    def _drop(self, name):
        if name in self.running:
            self.open_running -= 1
        s = self.open.pop(name)[0]
        self.sel.unregister(s)
        s.close()
        self.answered[name] = time.monotonic()

    def ask(self, names: list[str]) -> None:
        """A request to each of names that has none open and was not answered
        in the last `reask` seconds, as far as the limit of open sockets
        allows; requests open longer than `timeout` are sent again."""
        now = time.monotonic()
        for n in names:
            if n in self.open:
                if now - self.open[n][2] < self.timeout:
                    continue
                self._drop(n)  # no answer in time: ask again
            elif now - self.answered.get(n, -1e9) < self.reask:
                continue
            if len(self.open) >= self.max_open:
                break
            if n in self.running and self.open_running >= self.window:
                continue
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.setblocking(False)
            try:
                s.connect(self.sock_of(n))  # a listening socket takes it at once, or EAGAIN
                s.send(REQUEST)  # a few bytes: the socket's buffer takes them
            except OSError:
                s.close()
                self.answered[n] = now  # no agent there (yet): asked again after reask
                continue
            self.sel.register(s, selectors.EVENT_READ, n)
            self.open[n] = [s, [], now]
            self.open_running += n in self.running

    def answers(self, wait: float) -> dict[str, dict | None]:
        """{name: parsed status, or None for an answer that is not JSON or a
        connection reset} of the requests completed within `wait` seconds."""
        out = {}
        deadline = time.monotonic() + wait
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if not self.open:
                if not out:
                    time.sleep(left)  # nothing was asked: the caller's pace all the same
                break
            if out and not self.open_running:
                break  # the running agents answered: the caller may ask the next ones
            for key, _ in self.sel.select(left):
                n = key.data
                s, chunks, _ = self.open[n]
                try:
                    d = s.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    d = None
                if d:
                    chunks.append(d)
                    continue
                self._drop(n)
                try:
                    out[n] = json.loads(b"".join(chunks).decode()) if d is not None else None
                except ValueError:
                    out[n] = None
                if out[n] is not None:
                    self.running.add(n)
        return out
