"""Whether a topology fits this machine, judged before anything is built
or even exported: a testbed far too large for the memory would otherwise
die late, after minutes of bring-up (`bcube n=32 k=3` is a million
servers)."""
from __future__ import annotations

from .ovs import mem_available_kib

# Memory a server costs with its agent, its links and its share of the
# switches: results/bringup/ measured a peak of 6829 MiB for the 2048
# servers of bcube n=8 k=3 parts=4 (3.3 MiB each), and 649 MiB for 256
# (2.5 MiB each); rounded up.
MIB_PER_SERVER = 3.5
# The share of the available memory a testbed may plan to take: the rest is
# for the experiment's own processes (iperf3, relays, samplers) and the box.
MEM_SHARE = 0.8


def mem_available_mib() -> float:
    return mem_available_kib() / 1024.0


def too_large(counts: dict, available_mib: float) -> str | None:
    """A one-line reason why a topology of counts (topology.counts) does not
    fit in available_mib, or None when it does."""
    need = counts["servers"] * MIB_PER_SERVER
    if need <= available_mib * MEM_SHARE:
        return None
    return (f'{counts["servers"]:d} servers and {counts["links"]:d} links need about {_size(need)} of memory '
            f'({MIB_PER_SERVER:.1f} MiB a server, results/bringup/), more than '
            f"{int(MEM_SHARE * 100)}% of the {_size(available_mib)} available; choose a smaller instance")


def _size(mib):
    for unit, div in (("TiB", 1024.0 ** 2), ("GiB", 1024.0)):
        if mib >= div:
            return f"{mib / div:.1f} {unit}"
    return f"{mib:.0f} MiB"
