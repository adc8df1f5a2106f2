#!/usr/bin/python3
"""Bring-up benchmark: time from start to every agent ready, and peak memory,
for BCube instances of 16, 64, 256 and 1024 servers (and the BCube paper's
2048-server container, bcube n=8 k=3 parts=4), with OVS bridges and with
Linux bridges. Writes results/bringup/summary.json.

  tests/bench/bringup.py BUILD_DIR [--sizes 16,64] [--switch ovs,lxbr] [--no-2048]

Needs root; takes the machine-wide namespace lock itself. Not a timed test:
numbers are recorded, nothing is asserted about them."""
import argparse
import fcntl
import json
import os
import platform
import random
import subprocess
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from orchestrator import smoke, testing  # noqa: E402
from orchestrator.testbed import Testbed, TestbedError  # noqa: E402

# 1024: half of the 2048 container (servers keep 4 ports: the NHA carries a 2-bit out port)
SIZES = {16: "bcube n=4 k=1", 64: "bcube n=4 k=2", 256: "bcube n=4 k=3", 1024: "bcube n=8 k=3 parts=2"}
CONTAINER_2048 = "bcube n=8 k=3 parts=4"
# OVS's userspace datapath adds and deletes ports in time growing with the
# number of ports already present; beyond this many links OVS runs are skipped.
OVS_MAX_LINKS = 1100


def mem_used_kib():
    info = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":")
            info[k] = int(v.split()[0])
    return info["MemTotal"] - info["MemAvailable"]


def pss_kib(pid):
    """Proportional set size of one process (shared pages split fairly)."""
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def rss_kib(pidfile):
    try:
        with open(pidfile) as f:
            pid = int(f.read())
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


class MemSampler(threading.Thread):
    def __init__(self):
        super().__init__(daemon=True)
        self.base = mem_used_kib()
        self.peak = self.base
        self.stop_flag = threading.Event()

    def run(self):
        while not self.stop_flag.wait(0.2):
            self.peak = max(self.peak, mem_used_kib())


def one_run(build, spec, switch, log, hello_ms):
    rec = {"spec": spec, "switch": switch, "hello_ms": hello_ms}
    sampler = MemSampler()
    sampler.start()
    tb = Testbed(build, spec, switch=switch, log=log, hello_ms=hello_ms,
                 ready_timeout=900)
    t0 = time.time()
    try:
        tb.start()
        rec["up_s"] = round(time.time() - t0, 2)
        rec["phases_s"] = dict(tb.timings)
        rec["servers"] = len(tb.wiring.server_list)
        rec["switches"] = len(tb.wiring.switch_list)
        rec["links"] = len(tb.wiring.links)
        rec["agents"] = tb.agent_mode
        if switch == "ovs":
            rec["datapath"] = tb.datapath
            rec["ovs_vswitchd_rss_kib"] = rss_kib("/var/run/openvswitch/ovs-vswitchd.pid")
        n = rec["servers"]
        rec["loadavg_1m_when_up"] = round(os.getloadavg()[0], 1)
        rec["pss_mib_agents"] = round(sum(pss_kib(p.pid) for p in tb.agents.values()) / 1024.0, 1)
        rec["pss_mib_host_shells"] = round(sum(pss_kib(h.pid) for h in tb.hosts.values()) / 1024.0, 1)
        names = [s["name"] for s in tb.wiring.server_list]
        if n <= 256:
            pairs = smoke.choose_pairs(names, max_pairs=min(2 * n, 600))
        else:  # the agents alone keep 2 cores busy at this size: a small random sample
            rng = random.Random(7)
            pairs = sorted({tuple(rng.sample(names, 2)) for _ in range(128)})
        ok, failed = smoke.ping_pairs(tb, pairs)
        rec["ping_sample"] = {"pairs": len(pairs), "ok": len(ok), "failed": len(failed)}
        rec["ok"] = True
    except (TestbedError, RuntimeError) as e:
        rec["ok"] = False
        rec["error"] = str(e)[:500]
        rec["failed_after_s"] = round(time.time() - t0, 2)
    finally:
        rec["peak_mem_mib"] = round((sampler.peak - sampler.base) / 1024.0, 1)
        t1 = time.time()
        tb.stop()
        rec["teardown_s"] = round(time.time() - t1, 2)
        sampler.stop_flag.set()
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--sizes", default="16,64,256,1024")
    ap.add_argument("--switch", default="ovs,lxbr")
    ap.add_argument("--no-2048", action="store_true")
    ap.add_argument("--out", default=os.path.join(REPO, "results", "bringup", "summary.json"))
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("bringup bench: needs root (network namespaces); skipped")
        return 0
    if "bcube" not in testing.families(a.build):
        print("bringup bench: bcube family not built; skipped")
        return 0
    log_lines = []

    def log(msg):
        log_lines.append(msg)
        print("   " + msg, flush=True)

    runs = []
    # the machine-wide lock is taken per run, so other suites can interleave
    if True:
        plan = []
        for size in [int(x) for x in a.sizes.split(",") if x]:
            for sw in a.switch.split(","):
                plan.append((SIZES[size], sw))
        if not a.no_2048:
            plan.append((CONTAINER_2048, "lxbr"))
        for spec, sw in plan:
            links = int(json.loads(subprocess.run(
                [testing.tool_path(a.build, "dcn-topo"), "stats"] + spec.split(),
                stdout=subprocess.PIPE, text=True).stdout)["links"])
            if sw == "ovs" and links > OVS_MAX_LINKS:
                runs.append({"spec": spec, "switch": sw, "ok": False, "skipped":
                             "%d links: OVS userspace datapath port add/remove too slow here "
                             "(measured ~25 ms per port and growing)" % links})
                print("== %s on %s: skipped (%d links)" % (spec, sw, links), flush=True)
                continue
            print("== %s on %s" % (spec, sw), flush=True)
            # the fast hello for small instances; the interface default (1 s)
            # from 1024 servers on: thousands of agents flooding hellos every
            # 100 ms saturate the 2 cores
            n_srv = int(json.loads(subprocess.run(
                [testing.tool_path(a.build, "dcn-topo"), "stats"] + spec.split(),
                stdout=subprocess.PIPE, text=True).stdout)["servers"])
            with open("/run/dcn-netns.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                rec = one_run(a.build, spec, sw, log, 100 if n_srv <= 256 else 1000)
            print("   -> %s" % json.dumps({k: rec.get(k) for k in ("ok", "up_s", "peak_mem_mib", "error")}),
                  flush=True)
            runs.append(rec)
            write_summary(a.out, runs, a.build)
    write_summary(a.out, runs, a.build)
    print("wrote %s" % a.out)
    return 0


def write_summary(out, runs, build):
    head = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True).stdout.strip()
    summary = {
        "repo_head": head,
        "build_dir": os.path.abspath(build),
        "what": "testbed bring-up: start to every dcn-agent ready, peak extra memory (MemTotal-MemAvailable above the level before the run)",
        "machine": {"cpus": os.cpu_count(), "kernel": platform.release(),
                    "mem_total_mib": round((mem_used_kib() + 0) / 1024.0)},
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "runs": runs,
    }
    with open("/proc/meminfo") as f:
        summary["machine"]["mem_total_mib"] = round(int(f.readline().split()[1]) / 1024.0)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(summary, f, indent=2)


if __name__ == "__main__":
    sys.exit(main())
