"""What an ovs-vswitchd does, counted from outside, for the OVS benches
(ovs_latency.py, ovs_split.py): the syscalls its threads enter (`perf stat`
on the syscall tracepoints) and OVS's own event counters (`ovs-appctl
coverage/show`). Its main thread, the one that forwards every veth port of
the userspace datapath, enters poll() once per pass of its main loop,
recvmmsg() once per port per pass and sendmmsg() once per frame batch."""
import os
import re
import shutil
import signal
import subprocess
import tempfile

EVENT_PREFIX = "syscalls:sys_enter_"


class SyscallCounter:
    """`perf stat` counting `syscalls` entered by the threads `tids` (summed),
    from start() to stop(); stop() returns {syscall: count}, {} when perf is
    not installed or failed."""

    def __init__(self, tids, syscalls):
        self.tids, self.syscalls = [t for t in tids if t], syscalls
        self.proc = self.out = None

    def start(self):
        if not shutil.which("perf") or not self.tids:
            return self
        fd, self.out = tempfile.mkstemp(prefix="ovs-counters-", suffix=".csv")
        os.close(fd)
        events = ",".join(EVENT_PREFIX + s for s in self.syscalls)
        self.proc = subprocess.Popen(["perf", "stat", "-x", ",", "-e", events, "-t",
                                      ",".join(str(t) for t in self.tids), "-o", self.out],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return self

    def stop(self):
        if self.proc is None:
            return {}
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        counts = {}
        try:
            with open(self.out) as f:
                for line in f:
                    cells = line.strip().split(",")
                    if len(cells) > 2 and cells[2].startswith(EVENT_PREFIX) and cells[0].isdigit():
                        counts[cells[2][len(EVENT_PREFIX):]] = int(cells[0])
        except OSError:
            pass
        finally:
            os.unlink(self.out)
        return counts


def coverage_totals(names, target=None):
    """OVS's own event counters `names`, totals since that ovs-vswitchd
    started (a name it never hit is absent); `target`: its control socket
    (ovs-appctl -t), else the system's. {} when it cannot be reached."""
    cmd = ["ovs-appctl", "--timeout=10"] + (["-t", target] if target else []) + ["coverage/show"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r"(\w+)\s.*total: (\d+)", line.strip())
        if m and m.group(1) in names:
            out[m.group(1)] = int(m.group(2))
    return out
