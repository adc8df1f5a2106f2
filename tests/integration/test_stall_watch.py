"""explib.samplers.StallWatch (no root needed): a process stopped for a
while (as a virtual machine paused by its host is) finds its watch woke
that much late; the longest stall is taken over a window."""
import os
import signal
import subprocess
import sys
import time

EXPERIMENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "experiments")
CHILD = """
import sys, time
sys.path.insert(0, %r)
from explib.samplers import StallWatch
w = StallWatch()
w.start()
print("up", flush=True)
time.sleep(float(sys.argv[1]))
w.stop()
print("%%.3f" %% w.longest())
""" % EXPERIMENTS


def watch(run_s, stop_s=None):
    p = subprocess.Popen([sys.executable, "-c", CHILD, str(run_s)], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "up"
    if stop_s is not None:
        time.sleep(0.3)
        os.kill(p.pid, signal.SIGSTOP)
        time.sleep(stop_s)
        os.kill(p.pid, signal.SIGCONT)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 0
    return float(out)


def test_a_stop_is_seen_as_a_stall_of_its_length():
    late = watch(1.5, stop_s=0.4)
    assert 0.35 <= late <= 5.0, late


def test_longest_only_counts_the_window():
    sys.path.insert(0, EXPERIMENTS)
    from explib.samplers import StallWatch
    w = StallWatch()
    w.samples = [(100.0, 0.05), (200.0, 0.3), (300.0, 0.1)]
    assert w.longest() == 0.3
    assert w.longest(250.0) == 0.1 and w.longest(0, 150) == 0.05 and w.longest(400.0) == 0.0
