"""Expedited RCU grace periods while the agents attach and detach their BPF
programs (docs/testbed.md, "Bring-up with the kernel's data path").

An agent with --data-path kernel attaches one TCX link per port and two
more (the TUN device's egress, the segmenting veth), and the kernel waits
for an RCU grace period on every attach and detach, holding the RTNL lock:
so the testbed's agents attach one after the other. On this 2-core box,
with hundreds of agents busy, a grace period took about 13 ms, and 256
agents took 21 s to come up and as long to go; with expedited grace
periods, 1.1 s and 4.8 s. So the testbed sets /sys/kernel/rcu_expedited
while its agents start and while they stop, records the value it found in
the state file first, and puts that value back after (or `make
clean-testbed` does, after a killed run)."""
from __future__ import annotations

PATH = "/sys/kernel/rcu_expedited"


def read(path: str = PATH) -> int | None:
    """The knob's value (0 or 1), or None when the kernel has none."""
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def write(value: int, path: str = PATH) -> bool:
    """True when the knob now holds value."""
    try:
        with open(path, "w") as f:
            f.write(f"{value:d}\n")
    except OSError:
        return False
    return read(path) == value


def expedite(path: str = PATH) -> int | None:
    """Turn it on. Returns the value to put back, or None when there is
    nothing to put back (no knob, already on, or not allowed)."""
    before = read(path)
    if before is None or before != 0:
        return None
    return before if write(1, path) else None


def restore(before: int, path: str = PATH) -> bool:
    """Put back the value found, if the knob still holds the one we set
    (someone else may have changed it since). True when restored."""
    if before is None or read(path) != 1:
        return False
    return write(before, path)
