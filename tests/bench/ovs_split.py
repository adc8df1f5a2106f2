#!/usr/bin/python3
"""The switch layer of a topology on OVS's userspace datapath, split over K
private ovs-vswitchd instances (each with its own database), against one.

Issue 9 asks to measure this for the 2048-server container
(bcube n=8 k=3 parts=4: 8192 links, 1024 switches). Each instance runs in
a network namespace of its own: two userspace-datapath ovs-vswitchd in one
namespace cannot both run, since each opens a tap device named after the
datapath, "ovs-netdev" (the second fails: "creating tap device failed:
Device or resource busy"). The switches go to the instances round robin;
the server ends of all links sit in one more namespace, with no agents.

For each K it records the time to create the veths, to start the daemons,
to add every bridge and port (each instance's `ovs-vsctl` transactions in
parallel, 1024 commands each, as the testbed does, waiting until ovs-vswitchd
has applied them), the ports the datapaths then hold, the daemons' CPU
time and memory, their CPU use while idle, and the teardown. Deleting a
namespace returns before the kernel has destroyed its interfaces, so each
run then waits until the box is quiet (settle s), lest that work slow the
next run. IPv6 is off in every namespace, so that no frame crosses the
switches unless the bench sends it.

Then (--hello-ms, 0 for none) it loads the switches the way the agents'
hellos do: tests/bench/hello_load.py sends one broadcast frame per server
port per hello period from the server namespace, for --load seconds. Over
that window (after 5 s of warm-up) it records the frames the instances took
in and sent out per second (OVS's coverage counters; each hello should go
out of every other port of its switch and of the bridge's own internal
port), their CPU, their
main-loop passes (one poll() each, counted with `perf stat` when perf is
installed) and how busy the whole box was. Nothing reads the flooded
frames at the server ends, so the agents' wake-ups are not in that load:
it is the switches' part alone. OVS folds its counters into the totals it
shows about once a second, so a rate carries up to a second's error over
the window: 2 % with the default 60 s of load.

  tests/bench/ovs_split.py BUILD [--topo SPEC] [--instances 1,4,16] [--rounds 2]
                           [--limit S] [--idle S] [--hello-ms MS] [--load S]
                           [--out FILE] [--clean]

Needs root; takes the machine-wide namespace lock (unless DCN_NETNS_LOCKED=1).
Creates only namespaces named dcnsplit-*, and files under /run/dcn/ovs-split;
ends only the daemons it started, by the PIDs in their pid files. Not a
timed test: numbers are recorded, nothing is asserted about them."""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from orchestrator import ovs, state  # noqa: E402
from orchestrator.topology import TopoError, export  # noqa: E402
from ovs_counters import SyscallCounter, coverage_totals  # noqa: E402  (tests/bench, this script's folder)

NS_PREFIX = "dcnsplit-"
SERVER_NS = NS_PREFIX + "srv"
RUN_ROOT = "/run/dcn/ovs-split"
CHUNK = 1024          # ovs-vsctl commands per transaction, as the testbed's _create_switches
HELLO_LOAD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hello_load.py")
WARMUP_S = 5.0
_LOCK = None


def log(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


def sh(args, check=True, **kw):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if check and r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(args[:4]), (r.stderr or r.stdout).strip()[:300]))
    return r


def ip_batch(ns, lines):
    for i in range(0, len(lines), 2048):
        sh(["ip", "-n", ns, "-batch", "-"], input="\n".join(lines[i:i + 2048]) + "\n")


def our_namespaces():
    r = sh(["ip", "netns", "list"], check=False)
    return [w.split()[0] for w in r.stdout.splitlines() if w.split() and w.split()[0].startswith(NS_PREFIX)]


def rss_mib(pid):
    return (state.proc_rss_kib(pid) or 0) / 1024.0


class Instance:
    """One private ovsdb-server + ovs-vswitchd pair in namespace `ns`."""

    def __init__(self, index):
        self.index = index
        self.ns = "%s%d" % (NS_PREFIX, index)
        self.dir = os.path.join(RUN_ROOT, str(index))
        self.db = "unix:" + os.path.join(self.dir, "db.sock")
        self.env = dict(os.environ, OVS_RUNDIR=self.dir, OVS_LOGDIR=self.dir, OVS_DBDIR=self.dir)

    def path(self, name):
        return os.path.join(self.dir, name)

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        sh(["ovsdb-tool", "create", self.path("conf.db"), ovs.SCHEMA])
        exe = ["ip", "netns", "exec", self.ns]
        sh(exe + ["ovsdb-server", self.path("conf.db"), "--remote=punix:" + self.path("db.sock"),
                  "--pidfile=" + self.path("ovsdb-server.pid"), "--unixctl=" + self.path("ovsdb-server.ctl"),
                  "--detach", "--log-file=" + self.path("ovsdb-server.log")], env=self.env)
        sh(["ovs-vsctl", "--db=" + self.db, "--no-wait", "init"])
        sh(exe + ["ovs-vswitchd", self.db, "--pidfile=" + self.path("ovs-vswitchd.pid"),
                  "--unixctl=" + self.path("ovs-vswitchd.ctl"), "--detach",
                  "--log-file=" + self.path("ovs-vswitchd.log")], env=self.env)

    def pids(self):
        return [p for p in (ovs.pidfile_pid(self.path(n)) for n in ("ovs-vswitchd.pid", "ovsdb-server.pid")) if p]

    def vswitchd(self):
        return ovs.pidfile_pid(self.path("ovs-vswitchd.pid"))

    def add(self, cmds, limit, result):
        """Every command, CHUNK per transaction; result gets the seconds, or an error."""
        t0 = time.time()
        try:
            for i in range(0, len(cmds), CHUNK):
                left = limit - (time.time() - t0)
                if left <= 1:
                    raise RuntimeError("not done in %d s (%d of %d commands)" % (limit, i, len(cmds)))
                cmd = ["ovs-vsctl", "--db=" + self.db, "--timeout=%d" % left]
                for args in cmds[i:i + CHUNK]:
                    cmd += ["--"] + list(args)
                r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                if r.returncode != 0:
                    raise RuntimeError("ovs-vsctl: %s (%d of %d commands done)" % (
                        r.stderr.strip()[:200] or "timed out", i, len(cmds)))
            result[self.index] = time.time() - t0
        except RuntimeError as e:
            result[self.index] = e

    def coverage(self, names=("netdev_received", "netdev_sent")):
        """OVS's own event counters, totals since this ovs-vswitchd started
        (0 for one it never hit)."""
        return dict(dict.fromkeys(names, 0), **coverage_totals(names, self.path("ovs-vswitchd.ctl")))

    def datapath_ports(self):
        r = sh(["ovs-appctl", "-t", self.path("ovs-vswitchd.ctl"), "dpif/show"], check=False)
        return sum(1 for line in r.stdout.splitlines() if "(system)" in line)


def stop_pids(pids, grace=30.0):
    """SIGTERM to our daemons, SIGKILL after `grace` seconds."""
    for p in pids:
        try:
            os.kill(p, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.time() + grace
    for p in pids:
        while time.time() < deadline and os.path.exists("/proc/%d" % p):
            time.sleep(0.05)
        if os.path.exists("/proc/%d" % p):
            os.kill(p, signal.SIGKILL)


def busy_fraction(interval):
    """Share of the box's CPU time spent busy over `interval` seconds."""
    t0, i0, _ = state.box_cpu_times()
    time.sleep(interval)
    t1, i1, _ = state.box_cpu_times()
    return 1.0 - (i1 - i0) / max(1, t1 - t0)


def wait_quiet(limit=180.0, below=0.2):
    """Deleting a namespace returns before the kernel has destroyed its
    interfaces; that work runs on afterwards and would slow the next run.
    Wait until the box is less than `below` busy over a second; seconds waited."""
    t0 = time.time()
    while time.time() - t0 < limit and busy_fraction(1.0) >= below:
        pass
    return round(time.time() - t0, 1)


def timed_coverage(inst):
    """(when, counters) of one instance, `when` the middle of the read."""
    t0 = time.time()
    c = inst.coverage()
    return (t0 + time.time()) / 2.0, c


def hello_load(insts, server_ifs, fanout, hello_ms, load_s):
    """The switches under a stand-in for the agents' hellos (module doc)."""
    rec = {"hello_ms": hello_ms}
    with tempfile.TemporaryFile("w+") as names:
        names.write("\n".join(server_ifs) + "\n")
        names.seek(0)
        gen = subprocess.Popen(["ip", "netns", "exec", SERVER_NS, sys.executable, HELLO_LOAD,
                                "--period-ms", str(hello_ms), "--seconds", str(load_s)],
                               stdin=names, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(WARMUP_S)
    pids = [i.vswitchd() for i in insts]
    cov0 = [timed_coverage(i) for i in insts]
    cpu0 = sum(state.proc_cpu_s(p) or 0.0 for p in pids)
    polls = SyscallCounter(pids, ("poll",)).start()   # the main thread's tid is the pid
    b0 = state.box_cpu_times()
    t0 = time.time()
    window = max(1.0, load_s - WARMUP_S - 2.0)
    time.sleep(window)
    elapsed = time.time() - t0
    b1 = state.box_cpu_times()
    passes = polls.stop().get("poll")
    cpu1 = sum(state.proc_cpu_s(p) or 0.0 for p in pids)
    cov1 = [timed_coverage(i) for i in insts]
    # each instance's counters over its own interval: with 16 instances the
    # reads take a second or more, so one common interval would be wrong
    rate = {k: sum((cb[k] - ca[k]) / max(1e-3, tb - ta) for (ta, ca), (tb, cb) in zip(cov0, cov1))
            for k in ("netdev_received", "netdev_sent")}
    rec["in_per_s"] = round(rate["netdev_received"], 1)
    rec["out_per_s"] = round(rate["netdev_sent"], 1)
    rec["out_per_in"] = round(rate["netdev_sent"] / rate["netdev_received"], 2) if rate["netdev_received"] else None
    rec["flood_fanout"] = round(fanout, 2)
    rec["vswitchd_cores"] = round((cpu1 - cpu0) / elapsed, 3)
    rec["box_busy"] = round(1.0 - (b1[1] - b0[1]) / max(1, b1[0] - b0[0]), 3)
    if passes:
        rec["loop_period_ms"] = round(elapsed * 1000.0 * len(insts) / passes, 1)
    try:
        out, err = gen.communicate(timeout=load_s + 60)
    except subprocess.TimeoutExpired:
        gen.kill()
        out, err = gen.communicate()
    try:
        rec["sender"] = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        rec["sender_error"] = "hello_load.py: " + (err.strip()[:200] or "no answer")
    return rec


def clean():
    """Everything a run of this script may have left: its daemons (pid files
    under RUN_ROOT), its namespaces, its files."""
    pids = []
    if os.path.isdir(RUN_ROOT):
        for d in sorted(os.listdir(RUN_ROOT)):
            if d.isdigit():
                pids += Instance(int(d)).pids()
    stop_pids([p for p in pids if os.path.exists("/proc/%d" % p)])
    for ns in our_namespaces():
        sh(["ip", "netns", "del", ns], check=False)
    subprocess.run(["rm", "-rf", RUN_ROOT])


def one_run(w, k, limit, idle_s, hello_ms=0, load_s=0):
    """The switch layer of wiring `w` on k instances; a dict of what was measured."""
    rec = {"instances": k}
    insts = [Instance(i) for i in range(k)]
    of_switch = {s["name"]: insts[j % k] for j, s in enumerate(w.switch_list)}
    bridge = {s["name"]: "dsb%d" % j for j, s in enumerate(w.switch_list)}
    ports = {}
    links = []
    for l in w.links:
        srv_if = sw_if = sw = None
        for end, ifn in ((l["a"], l["a_if"]), (l["b"], l["b_if"])):
            if w.is_server(end):
                srv_if = ifn
            else:
                sw, sw_if = end, ifn
        if srv_if is None or sw is None:
            raise RuntimeError("this bench takes server-switch links only (%s-%s)" % (l["a"], l["b"]))
        links.append((srv_if, sw_if, of_switch[sw]))
        ports.setdefault(sw, []).append(sw_if)
    rec["ports"] = len(links)
    try:
        t0 = time.time()
        for ns in [SERVER_NS] + [i.ns for i in insts]:
            sh(["ip", "netns", "add", ns])
            sh(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                "net.ipv6.conf.default.disable_ipv6=1"])
        ip_batch(SERVER_NS, ["link add %s type veth peer name %s netns %s" % (a, b, i.ns) for a, b, i in links])
        ip_batch(SERVER_NS, ["link set %s up" % a for a, _, _ in links])
        for i in insts:
            ip_batch(i.ns, ["link set %s up" % b for _, b, j in links if j is i])
        rec["veths_s"] = round(time.time() - t0, 2)
        t0 = time.time()
        for i in insts:
            i.start()
        rec["daemons_start_s"] = round(time.time() - t0, 2)
        cpu0 = {i.index: state.proc_cpu_s(i.vswitchd()) or 0.0 for i in insts}
        cmds = {i.index: [] for i in insts}
        for s in w.switch_list:
            cmds[of_switch[s["name"]].index] += ovs.add_bridge_cmds(bridge[s["name"]], "netdev",
                                                                    sorted(ports.get(s["name"], [])))
        result = {}
        threads = [threading.Thread(target=i.add, args=(cmds[i.index], limit, result)) for i in insts]
        t0 = time.time()
        for t in threads:
            t.start()
        last = time.time()
        while any(t.is_alive() for t in threads):
            time.sleep(0.05)
            if time.time() - last >= 30:
                log("  k=%d: adding ports, %d of %d instances done (%.0f s)" % (
                    k, len(result), k, time.time() - t0))
                last = time.time()
        for t in threads:
            t.join()
        rec["ports_add_s"] = round(time.time() - t0, 2)
        errors = ["instance %d: %s" % (n, v) for n, v in sorted(result.items()) if isinstance(v, Exception)]
        rec["per_instance_add_s"] = [round(result[i.index], 2) if not isinstance(result[i.index], Exception)
                                     else None for i in insts]
        rec["datapath_ports"] = sum(i.datapath_ports() for i in insts)
        rec["vswitchd_cpu_s"] = round(sum((state.proc_cpu_s(i.vswitchd()) or 0.0) - cpu0[i.index] for i in insts), 1)
        rec["vswitchd_rss_mib"] = round(sum(rss_mib(i.vswitchd()) for i in insts), 1)
        rec["ok"] = not errors and rec["datapath_ports"] == len(links)
        if errors:
            rec["errors"] = errors
        if idle_s:
            c0 = sum(state.proc_cpu_s(i.vswitchd()) or 0.0 for i in insts)
            time.sleep(idle_s)
            rec["idle_cores"] = round((sum(state.proc_cpu_s(i.vswitchd()) or 0.0 for i in insts) - c0) / idle_s, 3)
        if hello_ms and rec["ok"]:
            log("  k=%d: hellos every %d ms from %d ports for %d s" % (k, hello_ms, len(links), load_s))
            # a flooded hello goes out of every other port of its switch and
            # of the bridge's own (internal) port: p copies
            fanout = sum(len(p) * len(p) for p in ports.values()) / float(len(links))
            rec["load"] = hello_load(insts, [a for a, _, _ in links], fanout, hello_ms, load_s)
    finally:
        t0 = time.time()
        clean()
        rec["teardown_s"] = round(time.time() - t0, 2)
        rec["settle_s"] = wait_quiet()
    return rec


COLS = [("round", "round"), ("instances", "K"), ("ports", "ports"), ("veths_s", "veths s"),
        ("daemons_start_s", "daemons s"), ("ports_add_s", "ports added s"), ("datapath_ports", "in datapaths"),
        ("vswitchd_cpu_s", "vswitchd CPU s"),
        ("vswitchd_rss_mib", "RSS MiB"), ("idle_cores", "idle cores"), ("teardown_s", "teardown s"),
        ("settle_s", "settle s"), ("ok", "ok")]
LOAD_COLS = [("in_per_s", "frames in /s"), ("out_per_s", "frames out /s"), ("out_per_in", "out per in"),
             ("flood_fanout", "copies per hello, expected"), ("vswitchd_cores", "vswitchd cores"),
             ("loop_period_ms", "main-loop period ms"), ("box_busy", "box busy")]


def table(recs):
    out = ["| " + " | ".join(h for _, h in COLS) + " |", "|" + "---:|" * len(COLS)]
    for r in recs:
        out.append("| " + " | ".join("-" if r.get(c) is None else str(r[c]) for c, _ in COLS) + " |")
    return out


def load_table(recs):
    """Per run, the switches under the stand-in hellos."""
    out = ["| round | K | hello ms | hellos sent /s | " + " | ".join(h for _, h in LOAD_COLS) + " |",
           "|" + "---:|" * (4 + len(LOAD_COLS))]
    for r in recs:
        ld = r.get("load")
        if not ld:
            continue
        sent = ld.get("sender", {}).get("per_s", "-")
        out.append("| %s | %s | %s | %s | " % (r["round"], r["instances"], ld["hello_ms"], sent) +
                   " | ".join("-" if ld.get(c) is None else str(ld[c]) for c, _ in LOAD_COLS) + " |")
    return out


def medians(recs, ks):
    """Per K: the median (min-max) seconds to add the ports, over the runs that added them all."""
    out = ["| K | runs ok | ports added s, median (min-max) | vswitchd CPU s, median |", "|---:|---:|---:|---:|"]
    for k in sorted(set(ks)):
        ok = sorted([r for r in recs if r["instances"] == k and r.get("ok")], key=lambda r: r["ports_add_s"])
        if not ok:
            out.append("| %d | 0 | - | - |" % k)
            continue
        add = [r["ports_add_s"] for r in ok]
        cpu = sorted(r["vswitchd_cpu_s"] for r in ok)
        out.append("| %d | %d | %.1f (%.1f-%.1f) | %.1f |" % (k, len(ok), statistics.median(add), add[0], add[-1],
                                                              statistics.median(cpu)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build_dir")
    ap.add_argument("--topo", default="bcube n=8 k=3 parts=4", help="default: the 2048-server container")
    ap.add_argument("--instances", default="1,4,16", help="the K to run, in this order")
    ap.add_argument("--rounds", type=int, default=2, help="the K list is run this many times, every other "
                    "round in reverse order (1 4 16 16 4 1 ...)")
    ap.add_argument("--limit", type=int, default=900, help="seconds allowed for adding the ports, per run")
    ap.add_argument("--idle", type=int, default=10, help="seconds of idle CPU sampling after the ports are in")
    ap.add_argument("--hello-ms", type=int, default=1000, help="then load the switches with a broadcast frame "
                    "per server port per this many ms, like the agents' hellos (0: no load)")
    ap.add_argument("--load", type=int, default=60, help="seconds of that load, the first 5 a warm-up")
    ap.add_argument("--out", default=os.path.join(REPO, "results", "bench", "ovs_split.txt"))
    ap.add_argument("--clean", action="store_true", help="remove what a killed run left, and exit")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("ovs_split.py: needs root")
    for tool in ("ip", "ovs-vsctl", "ovsdb-tool", "ovsdb-server", "ovs-vswitchd", "ovs-appctl"):
        if not subprocess.run(["which", tool], stdout=subprocess.DEVNULL).returncode == 0:
            sys.exit("ovs_split.py: %s is not installed (sudo make deps)" % tool)
    try:
        ks = [int(x) for x in a.instances.split(",")]
        if not ks or min(ks) < 1:
            raise ValueError
    except ValueError:
        sys.exit("ovs_split.py: --instances takes positive integers, e.g. 8,4,2,1")
    if a.rounds < 1:
        sys.exit("ovs_split.py: --rounds must be at least 1")
    if a.hello_ms < 0 or (a.hello_ms and a.load < WARMUP_S + 3):
        sys.exit("ovs_split.py: --hello-ms must be 0 or more, and --load at least %d s" % (WARMUP_S + 3))
    try:
        w = export(a.build_dir, a.topo)
    except TopoError as e:
        sys.exit("ovs_split.py: %s" % e)
    global _LOCK  # held until the process exits
    _LOCK = state.take_netns_lock(log)
    if a.clean:
        clean()
        return 0
    if our_namespaces() or os.path.exists(RUN_ROOT):
        sys.exit("ovs_split.py: a run left %s behind; remove it with --clean" % (
            " ".join(our_namespaces()) or RUN_ROOT))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("ovs_split.py: terminated"))
    commit = sh(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], check=False).stdout.strip() or "unknown"
    head = ["# tests/bench/ovs_split.py: %s (%d servers, %d switches, %d links) on the userspace datapath, "
            "split over K ovs-vswitchd instances, each in its own namespace with its own database; no agents"
            % (w.spec, len(w.server_list), len(w.switch_list), len(w.links)),
            "# %s, %d cores, commit %s, %s" % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count(),
                                              commit, sh(["ovs-vswitchd", "--version"]).stdout.split("\n")[0]),
            "# %d round(s), every other one in reverse order; limit for adding the ports: %d s per run; idle CPU "
            "sampled over %d s; after each teardown the run waits for a quiet box (settle s)" % (
                a.rounds, a.limit, a.idle)]
    recs = []
    settle = wait_quiet()
    if settle:
        log("waited %.0f s for a quiet box" % settle)
    for rnd in range(a.rounds):
        for k in (ks if rnd % 2 == 0 else ks[::-1]):
            log("round %d, k=%d: %d ports over %d instance(s)" % (rnd + 1, k, len(w.links), k))
            rec = one_run(w, k, a.limit, a.idle, a.hello_ms, a.load)
            rec["round"] = rnd + 1
            recs.append(rec)
            log("k=%d: %s" % (k, ", ".join("%s %s" % (c, rec.get(c)) for c, _ in COLS[2:])))
            if rec.get("load"):
                log("k=%d under hellos: %s" % (k, json.dumps(rec["load"])))
    lines = head + [""] + table(recs) + [""] + medians(recs, ks)
    if any(r.get("load") for r in recs):
        lines += ["", "Under the stand-in hellos (%d s, the first %d a warm-up; IPv6 off, nothing else sent):" % (
            a.load, WARMUP_S), ""] + load_table(recs)
    for r in recs:
        for e in r.get("errors", []):
            lines.append("# K=%d %s" % (r["instances"], e))
        if r.get("per_instance_add_s"):
            lines.append("# K=%d: seconds per instance: %s" % (r["instances"], " ".join(
                "-" if s is None else str(s) for s in r["per_instance_add_s"])))
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(r["ok"] for r in recs) else 1


if __name__ == "__main__":
    sys.exit(main())
