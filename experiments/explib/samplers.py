"""Background samplers: the box's CPU (from /proc/stat), its stalls (a
thread that should wake every 20 ms), the byte counters of every link, read
on the link's root-namespace end (a switch port), so one thread observes the
whole emulated network without entering a namespace, and the queues of the
links' shapers (rtnetlink)."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING


from .nlqdisc import QdiscReader
from orchestrator.counters import LinkCounters, rates as link_rates
from orchestrator.state import box_cpu_times

if TYPE_CHECKING:
    from orchestrator.topology import Wiring


class _Sampler(threading.Thread):
    def __init__(self, period):
        super().__init__(daemon=True)
        self.period = period
        self._halt = threading.Event()
        self.samples = []  # (unix time, value)

    def stop(self):
        self._halt.set()
        if self.is_alive():
            self.join(5)

    def run(self):
        prev = self.read()
        while not self._halt.wait(self.period):
            cur = self.read()
            self.samples.append((time.time(), self.diff(prev, cur)))
            prev = cur

    def window(self, t0=None, t1=None):
        return [(t, v) for t, v in self.samples if (t0 is None or t >= t0) and (t1 is None or t <= t1)]


class CpuSampler(_Sampler):
    """Fraction of the box's CPU time that was busy over each period, as
    (busy, busy including niced work). Work at nice 19 (builds of other
    developers on a shared box) yields the CPU to the emulation at once, so
    the verdict uses the first; both are kept."""

    def read(self) -> tuple:
        return box_cpu_times()

    @staticmethod
    def diff(prev: tuple, cur: tuple) -> tuple:
        total, idle, nice = cur[0] - prev[0], cur[1] - prev[1], cur[2] - prev[2]
        if total <= 0:
            return (0.0, 0.0)
        return (max(0.0, min(1.0, 1.0 - (idle + nice) / total)), max(0.0, min(1.0, 1.0 - idle / total)))

    def stats(self, t0: float | None = None, t1: float | None = None) -> dict:
        win = [v for _, v in self.window(t0, t1)]
        if not win:
            return {"max": None, "mean": None, "max_incl_nice": None, "samples": 0}
        vals = [v[0] for v in win]
        return {"max": round(max(vals), 4), "mean": round(sum(vals) / len(vals), 4),
                "max_incl_nice": round(max(v[1] for v in win), 4), "samples": len(vals)}


class StallWatch(_Sampler):
    """Stalls of the whole box: a thread that asks to wake every `tick`
    seconds and records each wake-up that came more than `least` seconds
    late, as (unix time of the wake-up, lateness in seconds). A virtual
    machine paused by its host, or a box whose run queue is long, wakes it
    late; so it wakes the agents late too, whose hellos then stop for as
    long. Costs 50 wake-ups a second (well under 1 % of a core)."""

    def __init__(self, tick: float = 0.02, least: float = 0.03) -> None:
        super().__init__(tick)
        self.least = least

    def run(self) -> None:  # samples: (unix time of a late wake-up, lateness in s)
        last = time.monotonic()
        while not self._halt.wait(self.period):
            now = time.monotonic()
            late = now - last - self.period
            if late > self.least:
                self.samples.append((time.time(), late))
            last = now

    def longest(self, t0: float | None = None, t1: float | None = None) -> float:
        """The longest stall (s) whose wake-up fell in [t0, t1]; 0.0 if none."""
        return max([x for _, x in self.window(t0, t1)] or [0.0])


class LinkSampler(_Sampler):
    """Rate (Mb/s) of both directions of every link, named "A>B", as
    orchestrator.counters.LinkCounters reads them. capacity_of(link): its
    rate in Mb/s. host_pid, switch_pid: as LinkCounters'."""

    def __init__(self, wiring: Wiring, capacity_of: Callable[[dict], float], period: float = 1.0,
                 host_pid: Callable[[str], int] | None = None,
                 switch_pid: Callable[[str], int | None] | None = None) -> None:
        super().__init__(period)
        self.counters = LinkCounters(wiring, host_pid, switch_pid)
        self.names = self.counters.names
        self.capacity = {n: capacity_of(wiring.links[i]) for n, i in zip(self.names, self.counters.link_index)}

    def read(self) -> tuple:
        return self.counters.read()

    diff = staticmethod(link_rates)

    def mean_rates(self, t0: float | None = None, t1: float | None = None) -> dict[str, float | None]:
        """Mean Mb/s per direction over the window."""
        win = [v for _, v in self.window(t0, t1)]
        out = {}
        for i, name in enumerate(self.names):
            vals = [s[i] for s in win if s[i] is not None]
            out[name] = sum(vals) / len(vals) if vals else None
        return out

    def link_loads(self, t0: float | None = None, t1: float | None = None) -> list[float]:
        """Mean Mb/s of every link over the window: the mean of its two
        directions (a direction never sampled counts 0), as the BCube
        paper gives its link load."""
        both = {}
        for name, r in self.mean_rates(t0, t1).items():
            a, b = name.split(">")
            both.setdefault(tuple(sorted((a, b))), []).append(r or 0.0)
        return [sum(v) / 2 for v in both.values()]

    def utilisation(self, t0: float | None = None, t1: float | None = None) -> dict:
        rates = self.mean_rates(t0, t1)
        return {n: (None if r is None or not self.capacity[n] else r / self.capacity[n]) for n, r in rates.items()}

    def timeline_rows(self) -> list[list]:
        """CSV rows: time, then one Mb/s column per direction."""
        rows = [["unix_time"] + self.names]
        for t, vals in self.samples:
            rows.append([f"{t:.3f}"] + ["" if v is None else f"{v:.3f}" for v in vals])
        return rows


class QueueSampler(_Sampler):
    """The root qdisc of some interfaces (switch ports in this namespace,
    server ports in their hosts'), from one rtnetlink dump per namespace
    and period (nlqdisc.py; no process is started): bytes sent and bytes
    queued. A link direction whose queue holds at least one period of data
    at the start of a period must send at its full rate through that
    period, whatever arrives: the work-conserving invariant that Handigol
    et al. (CoNEXT 2012) check to tell an emulator's shortfall from the
    traffic's own (Net.expect_saturated, Net.check_line_rate)."""

    def __init__(self, devs: list, period: float = 0.5) -> None:
        """devs: {link direction "A>B": the interface whose egress shapes
        it, a name in this namespace or (pid, name) in the namespace of
        process pid}."""
        super().__init__(period)
        self.devs = dict(devs)
        self._by_ns = {}
        for dev in self.devs.values():
            pid, name = dev if isinstance(dev, tuple) else (None, dev)
            self._by_ns.setdefault(pid, set()).add(name)
        self._readers = {}

    def read(self) -> tuple:
        t = time.time()
        out = {}
        for pid, names in self._by_ns.items():
            try:
                if pid not in self._readers:
                    self._readers[pid] = QdiscReader(pid)
                qs = self._readers[pid].read()
            except OSError:  # a host gone (its testbed stopping): no sample from it
                continue
            for name in names:
                if name in qs:
                    out[name if pid is None else (pid, name)] = qs[name][1:]
        return t, out

    def stop(self) -> None:
        super().stop()
        for r in self._readers.values():
            r.close()
        self._readers = {}

    @staticmethod
    def diff(prev: tuple, cur: tuple) -> tuple:
        """(seconds, {dev: (bytes sent in the period, bytes queued at its start)})."""
        dt = cur[0] - prev[0]
        out = {}
        for dev, (b1, _) in cur[1].items():
            b0, q0 = prev[1].get(dev, (None, None))
            if None not in (b0, b1, q0) and b1 >= b0:
                out[dev] = (b1 - b0, q0)
        return dt, out

    def busy(self, direction: str, mbps: float, t0: float, t1: float) -> tuple:
        """Over the periods in [t0, t1] that began with at least a period's
        worth of data queued: (their seconds, the rate they carried over
        mbps), or (0, None)."""
        dev = self.devs.get(direction)
        secs = sent = 0.0
        for t, (dt, vals) in self.window(t0, t1):
            v = vals.get(dev)
            if v is None or dt <= 0 or t - dt < t0:
                continue
            if v[1] * 8 >= mbps * 1e6 * dt:
                secs += dt
                sent += v[0]
        return round(secs, 2), (round(sent * 8 / (secs * mbps * 1e6), 4) if secs else None)

    def timeline_rows(self) -> list[list]:
        """CSV rows: end of each period, then per direction the Mb/s sent
        in it and the bytes queued at its start."""
        dirs = sorted(self.devs)
        rows = [["unix_time"] + [f"{d} {k}" for d in dirs for k in ("mbps", "queued_bytes")]]
        for t, (dt, vals) in self.samples:
            row = [f"{t:.3f}"]
            for d in dirs:
                v = vals.get(self.devs[d])
                row += ["", ""] if v is None or dt <= 0 else [f"{v[0] * 8 / dt / 1e6:.3f}", str(v[1])]
            rows.append(row)
        return rows
