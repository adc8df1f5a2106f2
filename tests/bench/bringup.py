#!/usr/bin/python3
"""Bring-up benchmark: time from start to every agent ready, and peak memory,
for BCube instances of 16, 64, 256 and 1024 servers (and the BCube paper's
2048-server container, bcube n=8 k=3 parts=4), with OVS bridges and with
Linux bridges. Writes results/bringup/DATE/summary.json, one folder per
day so that the runs of different machines stay side by side (--data-path
agent: results/bringup-agent/DATE/).

  tests/bench/bringup.py BUILD_DIR [--sizes 16,64] [--switch ovs,lxbr] [--no-2048]
                         [--container-shapers htb,tbf] [--ovs-max-links N] [--data-path agent|kernel]
                         [--out FILE_OR_DIR]

Needs root; takes the machine-wide namespace lock itself. Not a timed test:
numbers are recorded, nothing is asserted about them. A calibration of the
machine (orchestrator/calibrate.py: 100 processes, network namespaces and
veth pairs) is recorded before the first run, so that figures from
machines that differ several times in speed can be compared."""
import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from orchestrator import calibrate, linkclass, ovs, smoke, state  # noqa: E402
from orchestrator.agents import DATA_PATHS, DEFAULT_DATA_PATH, data_path_args  # noqa: E402
from orchestrator.testbed import Testbed, TestbedError  # noqa: E402
from tests.support import testing  # noqa: E402

# 1024: half of the 2048 container (servers keep 4 ports: the NHA carries a 2-bit out port)
SIZES = {16: "bcube n=4 k=1", 64: "bcube n=4 k=2", 256: "bcube n=4 k=3", 1024: "bcube n=8 k=3 parts=2"}
CONTAINER_2048 = "bcube n=8 k=3 parts=4"


def meminfo_kib():
    info = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":")
            info[k] = int(v.split()[0])
    return info


def mem_used_kib():
    info = meminfo_kib()
    return info["MemTotal"] - info["MemAvailable"]


def mem_total_mib():
    return round(meminfo_kib()["MemTotal"] / 1024.0)


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


class MemSampler(threading.Thread):
    def __init__(self):
        super().__init__(daemon=True)
        self.base = mem_used_kib()
        self.peak = self.base
        self.stop_flag = threading.Event()

    def run(self):
        while not self.stop_flag.wait(0.2):
            self.peak = max(self.peak, mem_used_kib())


def run_ok(rec):
    """A run is ok when it came up and every sampled ping answered."""
    ps = rec.get("ping_sample")
    return bool(ps) and ps["pairs"] > 0 and ps["failed"] == 0 and ps["ok"] == ps["pairs"] \
        and "error" not in rec


def one_run(build, spec, switch, log, hello_ms, shaper="htb", data_path=DEFAULT_DATA_PATH):
    rec = {"spec": spec, "switch": switch, "hello_ms": hello_ms, "shaper": shaper, "data_path": data_path}
    sampler = MemSampler()
    sampler.start()
    tb = Testbed(build, spec, switch=switch, log=log, hello_ms=hello_ms, ready_timeout=900,
                 server_link=dict(linkclass.DEFAULT_SERVER, shaper=shaper),
                 agent_args=data_path_args(data_path))
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
            rec["ovs_vswitchd_rss_kib"] = state.proc_rss_kib(ovs.vswitchd_pid())
        n = rec["servers"]
        rec["loadavg_1m_when_up"] = round(os.getloadavg()[0], 1)
        rec["pss_mib_agents"] = round(sum(pss_kib(p.pid) for p in tb.agents.values()) / 1024.0, 1)
        rec["pss_mib_host_shells"] = round(sum(pss_kib(h.pid) for h in tb.hosts.values()) / 1024.0, 1)
        names = [s["name"] for s in tb.wiring.server_list]
        rec["neighbor_downs_at_up"] = neighbor_downs(tb, names)
        if n <= smoke.SCALE_SERVERS:
            pairs = smoke.choose_pairs(names, max_pairs=min(2 * n, 600))
        else:  # the agents alone keep 2 cores busy at this size: the smoke check's sample
            pairs = smoke.smoke_pairs(names)
        t1 = time.time()
        ok, failed = smoke.ping_pairs(tb, pairs, deadline_s=smoke.SCALE_BUDGET_S if n > smoke.SCALE_SERVERS
                                      else None)
        rec["ping_sample"] = {"pairs": len(pairs), "ok": len(ok), "failed": len(failed),
                              "seconds": round(time.time() - t1, 1)}
        rec["ok"] = run_ok(rec)
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
    ap.add_argument("--container-shapers", default="htb,tbf",
                    help="the 2048-server container on Linux bridges once per link shaper "
                         "(orchestrator/linkclass.py SHAPERS); on OVS (when --switch has it) with htb only")
    ap.add_argument("--ovs-max-links", type=int, default=0, metavar="N",
                    help="skip OVS runs of more than N links (0: none skipped). OVS's userspace datapath "
                         "adds and deletes ports in time growing with the ports present: minutes for the "
                         "container, about 10 on a slow machine (docs/testbed.md)")
    ap.add_argument("--hello-ms", type=int, default=0, metavar="MS",
                    help="the agents' hello interval in every run (0, the default: 100 ms up to 256 servers, "
                         "the interface's 1000 ms above)")
    ap.add_argument("--data-path", choices=DATA_PATHS, default=DEFAULT_DATA_PATH,
                    help="the agents' data path, as the testbed's option (default %(default)s, the testbed's)")
    ap.add_argument("--out", default=None,
                    help="summary file (table.md is written beside it); a directory, or a path not ending in .json, "
                         "means DIR/summary.json "
                         "(default results/bringup/DATE/summary.json, DATE the UTC day of the start; "
                         "--data-path agent: results/bringup-agent/DATE/)")
    a = ap.parse_args()
    if a.out is None:  # each data path its own folder, the default's unsuffixed (as the experiments')
        a.out = default_out(a.data_path)
    try:
        a.out, plan = check_options(a)
    except ValueError as e:
        ap.error(str(e))  # one line, exit 2, before anything is built
    if os.geteuid() != 0:
        print("bringup bench: needs root (network namespaces); skipped")
        return 0
    if "bcube" not in testing.families(a.build):
        print("bringup bench: bcube family not built; skipped")
        return 0
    def log(msg):
        print("   " + msg, flush=True)

    end_on_signals()
    runs = []
    lock = state.take_netns_lock(log)  # nothing else may load the machine while it is measured
    try:
        a.calibration = calibrate.calibrate()
    finally:
        if lock:
            lock.close()
    print("machine: %s" % calibrate.describe(a.calibration), flush=True)
    try:
        return run_plan(a, plan, runs, log)
    except KeyboardInterrupt:
        if runs:  # written after each run; again, for a signal between the append and the write
            write_summary(a.out, runs, a.build, options(a), a.calibration)
        print("bringup bench: interrupted, the testbed torn down; %s" % (
            "%d finished run(s) in %s" % (len(runs), a.out) if runs else "nothing written"), flush=True)
        return 130


def neighbor_downs(tb, names):
    """What the agents' neighbour tables did while the testbed started:
    {"events": neighbours declared dead in all, "agents": agents that
    declared one, "unanswered": agents that gave no counters}. Every
    neighbour is up once the testbed is, so each event is one a busy box
    made its agent declare dead, then heard again."""
    with ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(lambda n: tb.agent_request(n, "counters", timeout=30), names))
    downs = [a.get("counters", {}).get("neighbor_down_events", 0) for a in answers if a]
    return {"events": sum(downs), "agents": sum(1 for d in downs if d),
            "unanswered": len(names) - len(downs)}


def default_out(data_path, now=None):
    """results/bringup[-PATH]/DATE/summary.json: a folder per UTC day, so
    that a run on another machine is kept beside the earlier ones (a
    bring-up time compares only with its machine's calibration)."""
    day = time.strftime("%Y-%m-%d", time.gmtime(now))
    return os.path.join(REPO, "results", "bringup" + ("" if data_path == DEFAULT_DATA_PATH else "-" + data_path),
                        day, "summary.json")


def end_on_signals():
    """SIGTERM and SIGHUP end the bench like Ctrl-C: one_run's teardown runs
    (Python's default for SIGTERM is to die at once, which left a killed
    run's 410 OVS bridges behind). Later signals are ignored, so that they
    do not cut that teardown short."""
    def on_signal(signum, _frame):
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(s, signal.SIG_IGN)
        raise KeyboardInterrupt("signal %d" % signum)
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(s, on_signal)


def run_plan(a, plan, runs, log):
    for spec, sw, shaper in plan:
        stats = json.loads(subprocess.run([testing.tool_path(a.build, "dcn-topo"), "stats"] + spec.split(),
                                          stdout=subprocess.PIPE, text=True).stdout)
        links = int(stats["links"])
        if sw == "ovs" and 0 < a.ovs_max_links < links:
            runs.append({"spec": spec, "switch": sw, "ok": False, "skipped":
                         "%d links: more than --ovs-max-links %d" % (links, a.ovs_max_links)})
            print("== %s on %s: skipped (%d links)" % (spec, sw, links), flush=True)
            write_summary(a.out, runs, a.build, options(a), a.calibration)
            continue
        print("== %s on %s%s" % (spec, sw, "" if shaper == "htb" else ", %s shaper" % shaper), flush=True)
        # the fast hello for small instances; the interface default (1 s)
        # from 1024 servers on: thousands of agents flooding hellos every
        # 100 ms saturate the 2 cores
        hello_ms = a.hello_ms or (100 if int(stats["servers"]) <= 256 else 1000)
        # the machine-wide lock is taken per run, so other suites can interleave
        # (none when DCN_NETNS_LOCKED says the caller holds it for all runs)
        lock = state.take_netns_lock(log)
        try:
            rec = one_run(a.build, spec, sw, log, hello_ms, shaper, a.data_path)
        finally:
            if lock:
                lock.close()
        print("   -> %s" % json.dumps({k: rec.get(k) for k in ("ok", "up_s", "peak_mem_mib", "error")}),
              flush=True)
        runs.append(rec)
        write_summary(a.out, runs, a.build, options(a), a.calibration)  # after every run, so an interrupted bench keeps them
    print("wrote %s" % a.out)
    return 0


def check_options(a):
    """The output path and the plan of runs, or ValueError naming the bad
    option: checked before the first run, so that a typo costs nothing and a
    long run is never lost at the end because its file cannot be written.
    An existing directory as --out, or a path not ending in .json, means
    summary.json inside it (table.md goes beside the summary, so a new
    folder's name taken as a file would put its table over the parent's)."""
    out = os.path.abspath(a.out)
    if os.path.isdir(out) or not out.endswith(".json"):
        out = os.path.join(out, "summary.json")
    parent = os.path.dirname(out)
    while not os.path.exists(parent):  # made at the first write
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        raise ValueError("--out %s: %s is not a writable directory" % (a.out, parent))
    if os.path.exists(out) and not os.access(out, os.W_OK):
        raise ValueError("--out %s: not writable" % a.out)
    plan = []
    switches = [x for x in a.switch.split(",") if x]
    for sw in switches:
        if sw not in ("ovs", "lxbr"):
            raise ValueError("--switch %s: expected ovs and/or lxbr" % sw)
    for x in [x for x in a.sizes.split(",") if x]:
        if not x.isdigit() or int(x) not in SIZES:
            raise ValueError("--sizes %s: expected some of %s" % (x, ",".join(str(k) for k in sorted(SIZES))))
        plan += [(SIZES[int(x)], sw, "htb") for sw in switches]
    if a.hello_ms < 0 or a.hello_ms > 60000:
        raise ValueError("--hello-ms %d: expected 0 (by size) or 1-60000" % a.hello_ms)
    if a.ovs_max_links < 0:
        raise ValueError("--ovs-max-links %d: expected 0 (no limit) or more" % a.ovs_max_links)
    if not a.no_2048:
        for sh in [x for x in a.container_shapers.split(",") if x]:
            if sh not in linkclass.SHAPERS:
                raise ValueError("--container-shapers %s: expected some of %s" % (sh, ",".join(linkclass.SHAPERS)))
            plan.append((CONTAINER_2048, "lxbr", sh))
        if "ovs" in switches:
            plan.append((CONTAINER_2048, "ovs", "htb"))
    if not plan:
        raise ValueError("nothing to run: --sizes and --container-shapers are both empty")
    return out, plan


def options(a):
    """The options that chose the runs, for the summary (not --out: a path of
    the machine it ran on)."""
    return {"sizes": a.sizes, "switch": a.switch, "no_2048": a.no_2048,
            "container_shapers": a.container_shapers, "ovs_max_links": a.ovs_max_links, "hello_ms": a.hello_ms,
            "data_path": a.data_path}


def write_summary(out, runs, build, opts=None, calibration=None):
    head, dirty = testing.repo_head()
    summary = {
        "repo_head": head,
        "repo_modified": bool(dirty),
        "build_dir": os.path.relpath(os.path.abspath(build), REPO),
        "options": opts or {},
        "what": "testbed bring-up: start to every dcn-agent ready, peak extra memory (MemTotal-MemAvailable above the level before the run)",
        "machine": {"cpus": os.cpu_count(), "kernel": platform.release(), "mem_total_mib": mem_total_mib(),
                    "calibration": calibration},
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "runs": runs,
    }
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(summary, f, indent=2)
    with open(os.path.join(os.path.dirname(out), "table.md"), "w") as f:
        f.write(table(summary))


def table(summary):
    """The runs as the Markdown table docs/testbed.md shows (written by this
    script next to summary.json; nothing in it is typed by hand)."""
    lines = ["Written by tests/bench/bringup.py at %s (commit %s%s); see docs/testbed.md." % (
        summary["date_utc"], summary["repo_head"], ", modified" if summary.get("repo_modified") else ""),
        "",
        "Machine: %d CPUs; %s." % (summary["machine"]["cpus"], calibrate.describe(summary["machine"]["calibration"])
                                   if summary["machine"].get("calibration") else "no calibration recorded"),
        "",
        "| instance | servers / links | switch | hello (ms) | up (s) | hosts | links | switches "
        "| host config | agents start | agents ready | neighbours declared dead (agents) | peak mem (MiB) "
        "| pings ok / sampled | ping (s) | teardown (s) | ok |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in summary["runs"]:
        sw = r["switch"] + (" " + r["datapath"] if r.get("datapath") else "") + \
            (", %s shaper" % r["shaper"] if r.get("shaper", "htb") != "htb" else "")
        if r.get("skipped"):
            lines.append("| %s | | %s | | skipped: %s | | | | | | | | | | | | no |" % (r["spec"], sw, r["skipped"]))
            continue
        ph = r.get("phases_s", {})
        ps = r.get("ping_sample") or {}
        cells = [r["spec"], "%s / %s" % (r.get("servers", ""), r.get("links", "")), sw, str(r.get("hello_ms", ""))]
        cells.append("%.1f" % r["up_s"] if "up_s" in r else "failed after %s: %s" % (
            r.get("failed_after_s"), r.get("error", "")[:80].replace("|", "/")))
        for k in ("hosts", "links", "switches", "host_config", "agents_start", "agents_ready"):
            cells.append("%.1f" % ph[k] if k in ph else "")
        nd = r.get("neighbor_downs_at_up")
        cells.append(f"{nd['events']:d} ({nd['agents']:d})" if nd else "")
        cells.append("%.0f" % r["peak_mem_mib"] if "peak_mem_mib" in r else "")
        cells.append("%s / %s" % (ps.get("ok", ""), ps.get("pairs", "")) if ps else "")
        cells.append("%.1f" % ps["seconds"] if "seconds" in ps else "")
        cells.append("%.1f" % r["teardown_s"] if "teardown_s" in r else "")
        cells.append("yes" if r.get("ok") else "**no**")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
