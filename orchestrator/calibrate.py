"""A calibration of the machine, recorded beside every figure about speed
(tests/bench/bringup.py): machines of one kind start processes and
namespaces several times faster or slower than each other, so a bring-up
time means something only next to what the same machine did on these
three steps, each the median of three rounds of 100:

  processes   fork and exec of /bin/true, reaped
  namespaces  a process in a network namespace of its own (`unshare
              --net`, as Mininet's mnexec makes a host), reaped
  veth        veth pairs created then deleted by one `ip -batch`, in a
              namespace of the calibration's own (nothing outside it seen)

and whether the kernel's DAMON monitor runs (kdamond threads on): on
machines of this kind it does, and while thousands of agents are started
it takes about a tenth of the CPU, scanning their pages
(docs/testbed.md, "Where a slow machine's bring-up goes").

Nothing it makes outlives it: the namespaces are anonymous and go with
their processes.

  /usr/bin/python3 -m orchestrator.calibrate      print it as JSON (root)
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

ROUNDS = 3
N = 100
DAMON_ADMIN = "/sys/kernel/mm/damon/admin/kdamonds"


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _processes(argv):
    for _ in range(N):
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _veth_batch():
    cmds = [f"link add dcncal{i:d}a type veth peer name dcncal{i:d}b" for i in range(N)]
    cmds += [f"link del dcncal{i:d}a" for i in range(N)]
    script = "\n".join(cmds) + "\n"
    subprocess.run(["unshare", "--net", "ip", "-batch", "-"], input=script, text=True, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def calibrate() -> dict:
    """{"processes_100_s", "namespaces_100_s", "veth_100_s", "rounds"}: the
    median seconds of each step (root needed for the last two; without it
    they are None)."""
    out = {"rounds": ROUNDS}
    steps = {"processes_100_s": lambda: _processes(["/bin/true"])}
    if os.geteuid() == 0:
        steps["namespaces_100_s"] = lambda: _processes(["unshare", "--net", "/bin/true"])
        steps["veth_100_s"] = _veth_batch
    for name in ("processes_100_s", "namespaces_100_s", "veth_100_s"):
        fn = steps.get(name)
        try:
            out[name] = round(statistics.median(_timed(fn) for _ in range(ROUNDS)), 3) if fn else None
        except (OSError, subprocess.CalledProcessError):
            out[name] = None
    out["kdamonds_on"] = kdamonds_on()
    return out


def kdamonds_on(admin: str = DAMON_ADMIN) -> int:
    """How many of the kernel's DAMON monitors run (0 without DAMON's
    sysfs interface)."""
    try:
        names = os.listdir(admin)
    except OSError:
        return 0
    on = 0
    for n in names:
        try:
            with open(os.path.join(admin, n, "state")) as f:
                on += f.read().strip() == "on"
        except OSError:
            pass
    return on


def describe(cal: dict) -> str:
    """One line for a table's heading."""
    def s(k):
        return f"{cal[k]:.2f} s" if cal.get(k) is not None else "n/a"
    damon = cal.get("kdamonds_on")
    return (f'100 processes started in {s("processes_100_s")}, 100 network namespaces in {s("namespaces_100_s")}, 100 '
            f'veth pairs in {s("veth_100_s")} (medians of {cal.get("rounds", ROUNDS):d})'
            + ("" if damon is None else f"; DAMON kdamonds on: {damon:d}"))


if __name__ == "__main__":
    json.dump(calibrate(), sys.stdout, indent=2)
    print()
