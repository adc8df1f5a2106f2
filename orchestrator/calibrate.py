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
    return out


def describe(cal: dict) -> str:
    """One line for a table's heading."""
    def s(k):
        return f"{cal[k]:.2f} s" if cal.get(k) is not None else "n/a"
    return (f'100 processes started in {s("processes_100_s")}, 100 network namespaces in {s("namespaces_100_s")}, 100 '
            f'veth pairs in {s("veth_100_s")} (medians of {cal.get("rounds", ROUNDS):d})')


if __name__ == "__main__":
    json.dump(calibrate(), sys.stdout, indent=2)
    print()
