#!/usr/bin/python3
"""Does a connection from a server whose agent was killed and restarted move
again? A BCube_1 n=4 testbed, one TCP connection --src -> --dst (iperf3),
the source's agent SIGKILLed after --lead s and started again --down s
later (the soak's agent_kill). Every --period s it records the connection's
bytes acknowledged, RTO and backoff at the source (`ss -tin`) and the
flows' paths at both agents (`dcn-ctl flows`); at the end both agents'
counters and logs. Prints a RESULT line per run: when the agent was ready
again and when the data moved again, seconds after the restart.

  sudo tools/probes/agent_restart.py --src h21 --dst h20 --out /tmp/restart
"""
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "experiments"))
from explib import Experiment, agentctl, soak, traffic  # noqa: E402
from orchestrator.agents import RUN_DIR  # noqa: E402


class Poller(threading.Thread):
    def __init__(self, tb, src, dst, period):
        super().__init__(daemon=True)
        self.tb, self.src, self.dst, self.period = tb, src, dst, period
        self.rows, self.halt = [], threading.Event()

    def run(self):
        while not self.halt.is_set():
            t = time.time()
            # nsenter, not tb.run_in: that saves the testbed's state, which the main thread also does
            r = subprocess.run(["nsenter", "-t", str(self.tb.hosts[self.src].pid), "-n", "ss", "-tinH", "dst",
                                self.tb.wiring.ip_of(self.dst)], stdout=subprocess.PIPE, text=True, timeout=5)
            # the data connection: iperf3's control connection to the same port acknowledges a few bytes
            conns = [[int(m.group(3)), int(m.group(1)), int(m.group(2) or 0)] for m in re.finditer(
                r"rto:(\d+)(?: backoff:(\d+))?[^\n]*?bytes_acked:(\d+)", r.stdout)]
            acked = max(conns) if conns else None
            paths = {}
            for n in (self.src, self.dst):
                paths[n] = sorted(" ".join(f.get("path") or []) for f in agentctl.flows(self.tb, n)
                                  if f.get("proto") == 6) if n in self.tb.agents else None
            self.rows.append((t, acked, paths))
            self.halt.wait(max(0.0, self.period - (time.time() - t)))


def one_run(ex, a):
    with ex.testbed("bcube n=4 k=1", "run") as net:
        tb = net.tb
        poller = Poller(tb, a.src, a.dst, a.period)
        poller.start()
        st = {}
        flow = traffic.Flow(a.src, a.dst, seconds=a.seconds, label="C")

        def tick(elapsed):
            if "kill" not in st and elapsed >= a.lead:
                soak.apply_failure(tb, "agent_kill", a.src, True)
                st["kill"] = time.time()
            elif "kill" in st and "restart" not in st and time.time() >= st["kill"] + a.down:
                soak.apply_failure(tb, "agent_kill", a.src, False)
                st["restart"] = time.time()
            elif "restart" in st and "ready" not in st:
                r = agentctl.ctl(tb, a.src, "status")
                if r and r.get("ready"):
                    st["ready"] = time.time()
        traffic.run_flows(ex, tb, [flow], timeout=a.seconds + 60, on_tick=tick)
        poller.halt.set()
        poller.join()
        ex.write_json("counters.json", {n: {k: v for k, v in agentctl.counters(tb, n).items() if v}
                                        for n in (a.src, a.dst)})
        for n in (a.src, a.dst):
            p = os.path.join(RUN_DIR, "logs", n + ".log")
            if os.path.exists(p):
                shutil.copy(p, ex.path(n + ".log"))
    t0 = st["restart"]
    ex.write_json("poll.json", [{"t": round(t - t0, 3), "acked": ac, "paths": p} for t, ac, p in poller.rows])
    before = next((ac[0] for t, ac, _ in reversed(poller.rows) if t <= t0 and ac), None)
    moved = next((round(t - t0, 3) for t, ac, _ in poller.rows if t > t0 and ac and before is not None
                  and ac[0] > before), None)
    return {"ready_s": round(st["ready"] - t0, 3) if "ready" in st else None, "data_moved_s": moved,
            "flow": flow.summary().get("mbps")}


def run(ex):
    ex.add_argument("--src", default="h21")
    ex.add_argument("--dst", default="h20")
    ex.add_argument("--seconds", type=float, default=20.0)
    ex.add_argument("--lead", type=float, default=4.0)
    ex.add_argument("--down", type=float, default=3.5)
    ex.add_argument("--period", type=float, default=0.05)
    ex.set_defaults(hello_ms=100)
    a = ex.parse()
    r = one_run(ex, a)
    print("RESULT", json.dumps(r), flush=True)
    return ex.finish(measured=r, reasons=[])


if __name__ == "__main__":
    sys.exit(Experiment("agent-restart", __doc__, repeat=False).main(run))
