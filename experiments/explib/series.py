"""Throughput series from the link sampler (net.links: per-direction Mb/s
samples, names "A>B"), and the small reductions the experiments apply to
them."""
from __future__ import annotations


from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .experiment import Net


def summed(samples: list, idx: list[int], t0: float = 0.0) -> list:
    """[(t - t0, Mb/s)]: the directions idx summed per sample. A sample the
    sampler could not time (every direction None: the read took too long,
    LinkSampler.diff) is left out, not counted as 0 Mb/s; a single
    direction without a counter (its interface gone) counts as 0."""
    return [(t - t0, sum(v[i] or 0 for i in idx)) for t, v in samples
            if any(x is not None for x in v)]


def rx_series(net: Net, dst: str, t0: float) -> list:
    """[(t, Mb/s)] into dst, summed over its links, from the link sampler."""
    dirs = [i for i, n in enumerate(net.links.names) if n.endswith(">" + dst)]
    return summed(net.links.samples, dirs, t0)


def into_servers(net: Net, t0: float, names: list[str] | None = None) -> list:
    """[(t, Mb/s)] received by the servers (all, or `names`), from the link counters."""
    w = net.tb.wiring
    want = set(names) if names else None
    idx = [i for i, n in enumerate(net.links.names)
           if w.is_server(n.split(">")[1]) and (want is None or n.split(">")[1] in want)]
    return summed(net.links.samples, idx, t0)


def mean_between(series: list[tuple[float, float]], a: float, b: float) -> float | None:
    """The mean of the samples with a <= t <= b, or None when there are none."""
    vals = [v for t, v in series if a <= t <= b]
    return sum(vals) / len(vals) if vals else None


def steady(dur: float) -> tuple:
    """The steady part of a transfer of dur seconds: 2 s after its start to
    1 s before its end (proportionally less for very short runs)."""
    return min(2.0, 0.2 * dur), dur - min(1.0, 0.1 * dur)


def r2(x: float | None) -> float | None:
    return None if x is None else round(x, 2)
