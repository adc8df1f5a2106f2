"""Byte counters of the emulated links, read where one process sees them
all: a server-switch link on its switch port (rx: from the server, tx:
towards it), a switch-switch link on its a end, a server-server cable on
its a end through /proc/PID/net/dev of the server's namespace. The
experiments' LinkSampler and the live view (orchestrator/view) both read
the links through LinkCounters."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .topology import Wiring

READ_SPAN_MAX = 0.1   # of a rate's interval that reading its counters may take


def read_sysfs(ifname: str, what: str) -> int | None:
    """One counter (rx_bytes, tx_bytes) of an interface of this namespace."""
    try:
        with open(f"/sys/class/net/{ifname}/statistics/{what}") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def read_netdev(pid: int) -> dict:
    """{ifname: {"rx_bytes", "tx_bytes"}} of the namespace of process pid."""
    out = {}
    try:
        with open(f"/proc/{pid:d}/net/dev") as f:
            for line in f.readlines()[2:]:
                name, _, rest = line.partition(":")
                v = rest.split()
                out[name.strip()] = {"rx_bytes": int(v[0]), "tx_bytes": int(v[8])}
    except (OSError, ValueError, IndexError):
        pass
    return out


class LinkCounters:
    """Both directions of every link that can be read: `names` ("A>B"),
    `link_index` (the direction's link in wiring.links) and `forward` (True:
    the link's a->b direction). host_pid(name): the pid of a server's
    namespace; without it server-server cables are left out. switch_pid(name):
    the pid of the namespace of a switch's ports when not this one, or None."""

    def __init__(self, wiring: Wiring, host_pid: Callable[[str], int] | None = None,
                 switch_pid: Callable[[str], int | None] | None = None) -> None:
        self._dirs = []  # (ifname or (pid, ifname), counter)
        self.names, self.link_index, self.forward = [], [], []

        def add(i, src, dst, end, counter):
            self._dirs.append((end, counter))
            self.names.append(f"{src}>{dst}")
            self.link_index.append(i)
            self.forward.append(src == wiring.links[i]["a"])

        def sw_end(sw, ifn):
            pid = switch_pid(sw) if switch_pid else None
            return ifn if pid is None else (pid, ifn)

        for i, l in enumerate(wiring.links):
            a, b = l["a"], l["b"]
            if not wiring.is_server(a):
                end = sw_end(a, l["a_if"])
                add(i, a, b, end, "tx_bytes"), add(i, b, a, end, "rx_bytes")
            elif not wiring.is_server(b):
                end = sw_end(b, l["b_if"])
                add(i, b, a, end, "tx_bytes"), add(i, a, b, end, "rx_bytes")
            elif host_pid is not None:  # a server-server cable: both ends in namespaces
                end = (host_pid(a), l["a_if"])
                add(i, a, b, end, "tx_bytes"), add(i, b, a, end, "rx_bytes")

    def read(self) -> tuple:
        """(time after the read, counters in `names` order, seconds the read
        took). A counter that could not be read is None."""
        t0 = time.time()
        netdev = {}
        out = []
        for end, counter in self._dirs:
            if isinstance(end, tuple):
                pid, name = end
                if pid not in netdev:
                    netdev[pid] = read_netdev(pid)
                out.append(netdev[pid].get(name, {}).get(counter))
            else:
                out.append(read_sysfs(end, counter))
        t1 = time.time()
        return t1, out, t1 - t0


def rates(prev: tuple, cur: tuple) -> list[float | None]:
    """Mb/s per direction between two LinkCounters.read()s; None for all
    when either read took more than READ_SPAN_MAX of the interval (a box so
    busy that the counters were read seconds apart: the interval's rate is
    not known, and a stamp taken at one end of the read would make it up;
    such a box fails the experiments' CPU and stall checks anyway)."""
    dt = cur[0] - prev[0]
    if dt <= 0 or max(prev[2], cur[2]) > READ_SPAN_MAX * dt:
        return [None] * len(cur[1])
    return [None if a is None or b is None else (b - a) * 8 / dt / 1e6 for a, b in zip(prev[1], cur[1])]
