"""One experiment run: options, the testbed lock, progress, the results
folder, samplers around every network it brings up, and the summary with
its fidelity verdict.

Results are written to results/<name>.partial/ and moved to
results/<name>/ only when the run finishes, so an interrupted run loses
nothing that was there before."""
from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from orchestrator import cluster, linkclass, netops, state
from orchestrator.agents import DATA_PATHS, DEFAULT_DATA_PATH, data_path_args
from orchestrator.errors import OneLineParser
from orchestrator.testbed import SWITCH_KINDS, Testbed, TestbedError
from orchestrator.view import View, ViewError

from . import repeat
from .samplers import CpuSampler, LinkSampler, QueueSampler, StallWatch
from .tcpstats import SsSampler, TcpCounters, diff_qdisc, qdisc_totals

if TYPE_CHECKING:
    from orchestrator.topology import Wiring

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(REPO, "results")
CPU_LIMIT = 0.90          # a run above this is not a result
RUNS_DEFAULT = 5          # valid runs of a paper's figure (repeat.py)
SATURATION_TOLERANCE = 0.05
OVER_RATE_LIMIT = 1.01    # a link carrying more than this of its rate is not the papers' link
BUSY_CHECK_MIN_S = 5.0  # seconds of backlogged periods a link needs before its invariant can pass it
PAPER_LINK_MBPS = 1000.0  # the papers' testbeds: GbE server links
PAPER_HELLO_MS = 1000     # the papers' timers: 1 s hellos, 3 misses
FAST_HELLO_MS = 50        # the fast setting, as BFD's common 50 ms x 3: dead after 3 x 50 + 50 / 4 = 162 ms
SS_MAX_HOSTS = 64         # ss snapshots (one nsenter per host per period) only on small networks
# The rate that the capacity table of the agents' own data path chose (results/capacity-agent/, aa263ee).
# MDCube's experiments (whose frames still go through the agents in user space) and the HCN/BCN/BCDC
# ones keep it, so that their defaults stay those of their committed runs, until issue 38 reruns
# them on the faithful method and the kernel's table.
AGENT_TABLE_MBPS = 20.0
FALLBACK_CHOICE = {"switch": "lxbr", "mtu": 9000, "link_mbps": 20, "light_switch": "lxbr", "light_link_mbps": 20}


# where a run writes, by the agents' data path: each has its own folders, so a
# run on one never overwrites the other's results; the default data path's
# have no suffix (results/<name>), the other's end in its name
# (results/<name>-agent)
DATA_PATH_SUFFIX = {p: "" if p == DEFAULT_DATA_PATH else "-" + p for p in DATA_PATHS}
# the capacity table measured with the default data path: the experiments' defaults
CAPACITY_FOLDER = "capacity" + DATA_PATH_SUFFIX[DEFAULT_DATA_PATH]
CAPACITY_SUMMARY = os.path.join(RESULTS, CAPACITY_FOLDER, "summary.json")

TCP_CC = ("reno", "cubic", "bbr")
KERNEL_RTO_MIN_MS = 200.0   # Linux's TCP_RTO_MIN, which the papers' servers had at 1 Gb/s too
PAPER_QUEUE_BYTES = 131072  # a DGS-1008D port's share of its buffer: docs/switches.md


def tcp_rto_min_ms(timers: str, link_mbps: float) -> float:
    """The servers' minimum RTO: the kernel's, or scaled with the link rate
    (time dilation: as many packet times as at the papers' 1 Gb/s), at most
    the kernel's 120 s maximum RTO."""
    if timers == "kernel":
        return KERNEL_RTO_MIN_MS
    return round(min(120000.0, KERNEL_RTO_MIN_MS * PAPER_LINK_MBPS / link_mbps), 1)


class ExperimentError(RuntimeError):
    pass


def check_tcp_settings(pid: int, a: argparse.Namespace) -> None:
    """The TCP settings read back from a server's namespace: a kernel that
    ignored one would make every figure of the run something else."""
    with netops.in_netns(pid):
        with open("/proc/sys/net/ipv4/tcp_congestion_control") as f:
            cc = f.read().strip()
        with open("/proc/sys/net/ipv4/tcp_rto_min_us") as f:
            rto_us = int(f.read())
    if cc != a.tcp_cc or rto_us != int(a.tcp_rto_min_ms * 1000):
        raise ExperimentError(f"the servers' TCP did not take the settings: congestion control {cc} (wanted "
                              f"{a.tcp_cc}), "
                              f"minimum RTO {rto_us:d} us (wanted {int(a.tcp_rto_min_ms * 1000)})")


class BringUpError(ExperimentError):
    """A network of the experiment did not come up (Testbed.start failed);
    everything it had built is already torn down."""


def shaper_dirs(wiring: Wiring, pid_of: Callable[[str], int],
                switch_pid: Callable[[str], int | None] | None = None) -> dict:
    """{link direction "A>B": the interface whose egress shapes it}: a
    switch port by its name (the root namespace), a server port as (the
    server's host pid, its name). Every direction of every link.
    switch_pid(switch): the pid of the namespace of a switch's ports when
    not this one (--cluster: another machine's, seen from one box), else None."""
    out = {}
    for l in wiring.links:
        for src, dst, ifn in ((l["a"], l["b"], l["a_if"]), (l["b"], l["a"], l["b_if"])):
            if wiring.is_server(src):
                out[f"{src}>{dst}"] = (pid_of(src), ifn)
            else:
                spid = switch_pid(src) if switch_pid else None
                out[f"{src}>{dst}"] = (spid, ifn) if spid is not None else ifn
    return out


def git_commit() -> str | None:
    def git(*args):
        r = subprocess.run(["git", "-C", REPO] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        return r.stdout.strip() if r.returncode == 0 else None
    head = git("rev-parse", "HEAD")
    # Only code can move a result: results, docs and Markdown pages are left out.
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!results", ":!docs", ":!*.md")
    return (head or "unknown") + ("-dirty" if dirty else "")


def default_choice() -> dict:
    """The switch, MTU and link rate the capacity table picked (see
    experiments/capacity); the fallback when it was never run."""
    try:
        with open(CAPACITY_SUMMARY) as f:
            c = json.load(f)["choice"]
        return {"switch": c["switch"], "mtu": int(c["mtu"]), "link_mbps": float(c["link_mbps"]),
                "light_switch": c.get("light_switch", c["switch"]),
                "light_link_mbps": float(c.get("light_link_mbps", c["link_mbps"])),
                "source": f"results/{CAPACITY_FOLDER}/summary.json"}
    except (OSError, ValueError, KeyError):
        return dict(FALLBACK_CHOICE, source="fallback (no capacity table yet)")


def _first_server(build_dir, spec):
    from orchestrator.topology import tool_path
    r = subprocess.run([tool_path(build_dir, "dcn-topo"), "export"] + spec.split(), stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    try:
        return json.loads(r.stdout)["servers"][0]["name"]
    except (ValueError, KeyError, IndexError):
        raise ExperimentError(f"dcn-topo export {spec} failed") from None


class Net:
    """A testbed up, with its CPU and link samplers running."""

    def __init__(self, ex: Experiment, label: str, tb: Testbed, cpu: CpuSampler, links: LinkSampler,
                 queues: QueueSampler | None = None, stalls: StallWatch | None = None) -> None:
        self.ex, self.label, self.tb, self.cpu, self.links = ex, label, tb, cpu, links
        self.queues = queues    # QueueSampler of every switch port, or None
        self.stalls = stalls    # StallWatch over the network's life, or None
        self.t0 = time.time()
        self.windows = []       # (t0, t1) of traffic, for the CPU verdict
        self.saturation = []    # link checks
        self.tcp = None         # what TCP did in the servers (TcpCounters.diff), set at teardown
        self.qdisc = None       # drops and overlimits of every qdisc, set at teardown
        self.ss = None          # SsSampler.summary(), set at teardown

    def name(self, server_id: int) -> str:
        """The host name of server `server_id` (the library's numbering)."""
        return self.tb.wiring.server_list[server_id]["name"]

    def traffic_window(self, t0: float, t1: float) -> None:
        self.windows.append((t0, t1))

    def server_names(self) -> list[str]:
        """The servers' names, in the wiring's order."""
        return [s["name"] for s in self.tb.wiring.server_list]

    def uplink_dirs(self) -> list[str]:
        """Both directions ("A>B") of every switch-switch link: the tree's
        uplinks, which an all-to-all must fill."""
        up = [l for l in self.tb.wiring.links if l["kind"] == "switch-switch"]
        return [f'{l["a"]}>{l["b"]}' for l in up] + [f'{l["b"]}>{l["a"]}' for l in up]

    def expect_saturated(self, dirs: Iterable[str], t0: float, t1: float, offered: float | None = None) -> None:
        """The pattern should fill these link directions ("A>B") from t0 to
        t1: each must carry within 5 % of its configured rate, or, where its
        queue is sampled, within 5 % of it in every stretch that began with
        enough data queued to keep it busy (at least BUSY_CHECK_MIN_S of
        them): the link then sent whenever it had data, so a shortfall came
        from the traffic (its queue ran short), not from the emulator.
        offered: the pattern's demand on these links over their rate; above
        1 the traffic cannot run short, so that excuse is not taken."""
        util = self.links.utilisation(t0, t1)
        for d in dirs:
            u = util.get(d)
            c = {"run": self.label, "link": d, "utilisation": None if u is None else round(u, 4),
                 "ok": u is not None and abs(u - 1.0) <= SATURATION_TOLERANCE, "offered": offered}
            if offered is not None and offered > 1:
                self.saturation.append(c)
                continue
            if self.queues is not None and d in self.queues.devs and self.links.capacity.get(d):
                c["busy_s"], c["utilisation_when_busy"] = self.queues.busy(d, self.links.capacity[d], t0, t1)
                c["window_s"] = round(t1 - t0, 2)
                if not c["ok"] and c["busy_s"] >= BUSY_CHECK_MIN_S and \
                        c["utilisation_when_busy"] >= 1.0 - SATURATION_TOLERANCE:
                    c["ok"], c["short_of_traffic"] = True, True
            self.saturation.append(c)

    def check_line_rate(self, t0: float, t1: float) -> None:
        """The emulator's own invariants on every sampled link direction
        (both directions of every link), whatever the pattern: a link never carries more
        than OVER_RATE_LIMIT of its rate, and one that began periods with
        data queued (BUSY_CHECK_MIN_S of them) sent at its rate through
        them (within SATURATION_TOLERANCE)."""
        util = self.links.utilisation(t0, t1)
        for d, u in sorted(util.items()):
            if u is not None and u > OVER_RATE_LIMIT:
                self.saturation.append({"run": self.label, "link": d, "check": "over_rate",
                                        "utilisation": round(u, 4), "ok": False})
        if self.queues is None:
            return
        for d in sorted(self.queues.devs):
            cap = self.links.capacity.get(d)
            if not cap:
                continue
            busy_s, when_busy = self.queues.busy(d, cap, t0, t1)
            if busy_s >= BUSY_CHECK_MIN_S and not (
                    1.0 - SATURATION_TOLERANCE <= when_busy <= OVER_RATE_LIMIT):
                self.saturation.append({"run": self.label, "link": d, "check": "line_rate_when_backlogged",
                                        "utilisation": when_busy, "busy_s": busy_s, "ok": False})

    def report(self) -> dict:
        wins = self.windows or [(self.t0, time.time())]
        cpu_max, cpu_mean, cpu_nice = [], [], []
        for a, b in wins:
            st = self.cpu.stats(a, b)
            if st["max"] is not None:
                cpu_max.append(st["max"])
                cpu_mean.append(st["mean"])
                cpu_nice.append(st["max_incl_nice"])
        util = {}
        for a, b in wins[:1]:
            util = {k: (None if v is None else round(v, 4)) for k, v in self.links.utilisation(a, b).items()}
        # a stall as long as the hellos' slack (dead_misses - 1 periods) can
        # make an agent declare a live neighbour dead: the box's doing, not
        # the protocol's, so finish() judges such a run not valid
        tb = self.tb
        stall_limit = (tb.dead_misses - 1) * tb.hello_ms if tb.agent_mode else None
        return {"spec": self.tb.wiring.spec, "cpu_busy_max": max(cpu_max) if cpu_max else None,
                "stall_max_ms": None if self.stalls is None else round(1000 * self.stalls.longest(self.t0)),
                "stall_limit_ms": stall_limit,
                "cpu_busy_mean": round(sum(cpu_mean) / len(cpu_mean), 4) if cpu_mean else None,
                "cpu_busy_max_incl_nice": max(cpu_nice) if cpu_nice else None,
                "link_utilisation": util, "saturation_checks": self.saturation,
                "tcp": self.tcp, "qdisc": self.qdisc, "ss": self.ss,
                "agent_args": self.tb.agent_args if self.tb.agent_mode else None}


class Experiment:
    def __init__(self, name: str, description: str, light: bool = False, repeat: bool = True,
                 one_data_path: bool = True) -> None:
        """light: the experiment opens a few connections only, so it runs on
        the capacity table's choice for light patterns: its switch and the
        highest link rate that switch carried two connections at. repeat:
        a figure of a paper, measured --runs times
        (each run the structure, then its baseline) and summarized with
        intervals (repeat.py); a measurement of the box (capacity, soak)
        runs once. one_data_path: the run's agents use the data path of
        --data-path, and its folder is that data path's; False: the
        experiment runs both data paths itself (each network's agent_args
        name one), has no --data-path, and writes results/<name>."""
        self.name = name
        self.repeat = repeat
        self.ap = OneLineParser(prog="experiments/" + name, description=description,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
        ch = default_choice()
        self.choice = ch
        g = self.ap.add_argument_group(f'emulation (defaults from the capacity table: {ch["source"]})')
        g.add_argument("--switch", choices=SWITCH_KINDS, default=ch["light_switch"] if light else ch["switch"],
                       help="switch emulation (default %(default)s)")
        g.add_argument("--mtu", type=int, default=ch["mtu"], help="link MTU (default %(default)s, the papers' 9 KB)")
        g.add_argument("--link-mbps", type=float, default=ch["light_link_mbps"] if light else ch["link_mbps"],
                       help="server link rate, Mb/s (default %(default)s; the papers: 1000)")
        g.add_argument("--queue-bytes", type=int, default=PAPER_QUEUE_BYTES,
                       help="every link's FIFO, in bytes (a bfifo under the shaper), as the papers' switch "
                            "ports buffered (default %(default)s; docs/switches.md); 0: the kernel's pfifo of "
                            "1000 packets")
        g.add_argument("--queue-pkts", type=int, default=None,
                       help="every link's FIFO in packets instead (a pfifo; overrides --queue-bytes)")
        g.add_argument("--tcp-cc", choices=TCP_CC, default="reno",
                       help="the servers' TCP congestion control, set in every server's namespace, whatever the "
                            "machine's default (default %(default)s: NewReno with SACK, as the papers' Windows "
                            "Server 2003; docs/fidelity.md)")
        g.add_argument("--tcp-timers", choices=("kernel", "scaled"), default="kernel",
                       help="kernel: the servers' minimum TCP RTO is Linux's 200 ms, and the RTO follows the RTTs, "
                            "which grow as the rates shrink; scaled: 200 ms x 1000 / link-mbps, so a timeout lasts "
                            "as many packet times as the floor at the papers' 1 Gb/s (time dilation; for ablation) "
                            "(default %(default)s; docs/fidelity.md)")
        g.add_argument("--small-first", choices=("on", "off"), default="off",
                       help=f"frames under {linkclass.SMALL_BYTES:d} bytes (TCP ACKs, the agents' control packets) "
                            "ahead of the data "
                            "in every shaped link: a priority the papers' FIFO switches did not have, for "
                            "ablation only (default %(default)s; docs/fidelity.md)")
        g.add_argument("--hello-ms", type=int, default=PAPER_HELLO_MS,
                       help="agent hello period (default %(default)s, the papers')")
        g.add_argument("--fast-hello-ms", type=int, default=FAST_HELLO_MS,
                       help="hello period of the fast setting, in the failure experiments' second run "
                            "(default %(default)s: with 3 misses, detection in 150-200 ms, as BFD's "
                            "common 50 ms x 3; docs/experiments.md, 'The fast setting')")
        g.add_argument("--size-scale", type=float, default=1.0,
                       help="transfer sizes as a fraction of the paper's scaled to the link rate "
                            "(1: the paper's bytes x link-mbps/1000, so durations match the paper's)")
        if one_data_path:
            g.add_argument("--data-path", choices=DATA_PATHS, default=DEFAULT_DATA_PATH,
                           help="the agents' data path: kernel (the default) relays, sends and delivers plain data "
                                "frames in the kernel, agent takes every frame through the agents in user space: "
                                "dcn-agent --data-path. Each data path writes its own folders (--out)")
        else:
            self.ap.set_defaults(data_path=None)
        g.add_argument("--seed", type=int, default=1,
                       help="seed of the first run, passed to every agent (--seed) and to the traffic's random "
                            "choices; run i uses seed + i - 1 (default %(default)s)")
        if repeat:
            g.add_argument("--runs", type=int, default=None,
                           help="valid runs wanted, each the structure then its baseline; invalid runs are kept "
                                f"in raw/ and replaced, up to twice as many runs in all (default {RUNS_DEFAULT:d}; "
                                "--tiny: 1, and no run replaced)")
        g.add_argument("--ss-every", type=float, default=5.0,
                       help="seconds between `ss -tin` snapshots of every server's connections (RTO, RTT, cwnd, "
                            f"retransmissions) into raw/, on networks of up to {SS_MAX_HOSTS:d} servers; 0: none "
                            "(default %(default)s)")
        g.add_argument("--build-dir", default=os.path.join(REPO, "build"))
        cluster.add_options(g)
        out_default = name if not one_data_path else (
            f'{name}{DATA_PATH_SUFFIX["kernel"]}; with --data-path agent: results/{name}{DATA_PATH_SUFFIX["agent"]}')
        g.add_argument("--out", default=None, help=f"results folder (default results/{out_default})")
        g.add_argument("--tiny", action="store_true",
                       help="a seconds-long run for the test suite (size-scale at most 0.01)")
        g.add_argument("--view", type=int, metavar="PORT", default=None,
                       help="serve the live view of each network on http://127.0.0.1:PORT/ while the run lasts, "
                            "with the experiment's phase and progress (docs/view.md)")
        self.a = None
        self.view = None
        self.t_start = self.t_run = time.time()
        self.run_index = 0        # 0-based; run i's files go to raw/run-(i+1)/ when repeated
        self.run_summaries = []
        self.run_dir = None
        self._lock = None
        self.nets = []
        self.files = {}

    # a repeated run's body declares its options again: after parse() that is a no-op
    def add_argument(self, *args: str, **kw: Any) -> argparse.Action | None:
        return None if self.a is not None else self.ap.add_argument(*args, **kw)

    def set_defaults(self, **kw: Any) -> None:
        if self.a is None:
            self.ap.set_defaults(**kw)

    # --------------------------------------------------------------- setup
    def parse(self, argv: list[str] | None = None) -> argparse.Namespace:
        """The options, checked; on the first call also the lock and the
        results folder. A repeated run's body calls it again: it then
        returns the same options, with that run's seed."""
        if self.a is not None:
            return self.a
        a = self.ap.parse_args(argv)
        if self.repeat:
            if a.runs is None:
                a.runs = 1 if a.tiny else RUNS_DEFAULT
            if not 1 <= a.runs <= 50:
                self.ap.error("--runs must be 1..50")
        else:
            a.runs = 1
        if not 576 <= a.mtu <= 9000:
            self.ap.error("--mtu must be 576..9000")
        if not 1 <= a.link_mbps <= 10000:
            self.ap.error("--link-mbps must be 1..10000")
        if not 0 < a.size_scale <= 10:
            self.ap.error("--size-scale must be in (0, 10]")
        if not 10 <= a.hello_ms <= 60000 or not 10 <= a.fast_hello_ms <= 60000:  # the agent's bounds
            self.ap.error("--hello-ms and --fast-hello-ms must be 10..60000")
        if a.view is not None and not 1 <= a.view <= 65535:
            self.ap.error("--view must be a TCP port, 1..65535")
        if a.queue_pkts is not None and not 1 <= a.queue_pkts <= 100000:
            self.ap.error("--queue-pkts must be 1..100000")
        if a.queue_bytes and not linkclass.QUEUE_BYTES_MIN <= a.queue_bytes <= linkclass.QUEUE_BYTES_MAX:
            self.ap.error(f"--queue-bytes must be 0 or {linkclass.QUEUE_BYTES_MIN:d}..{linkclass.QUEUE_BYTES_MAX:d}")
        if a.queue_pkts is not None or not a.queue_bytes:
            a.queue_bytes = None
        a.tcp_rto_min_ms = tcp_rto_min_ms(a.tcp_timers, a.link_mbps)
        a.cluster_obj = cluster.from_options(a, self.ap.error, log=self.log)
        if a.tiny:
            a.size_scale = min(a.size_scale, 0.01)
        self._check_values(a)
        if os.geteuid() != 0:
            self.fail(f"needs root (network namespaces, bridges): sudo experiments/{self.name}")
        for tool in ("dcn-topo", "dcn-agent", "dcn-ctl"):
            from orchestrator.topology import tool_path
            if not tool_path(a.build_dir, tool):
                self.fail(f"{tool} not found in {a.build_dir}: run make build first")
        if shutil.which("iperf3") is None:
            self.fail("missing on PATH: iperf3 (sudo make deps)")
        self._servers = []
        self._check_specs(a)
        if a.view is not None:  # the port taken before anything is built
            try:
                self.view = View(a.view, log=self.log)
            except ViewError as e:
                self.fail(str(e))
            self.view.set_experiment(self.name, run=1, runs=a.runs if self.repeat else None)
        self.a = a
        # each data path has its own folders (DATA_PATH_SUFFIX)
        self.out = a.out or os.path.join(RESULTS, self.name + (DATA_PATH_SUFFIX[a.data_path] if a.data_path else ""))
        self.work = self.out.rstrip("/") + ".partial"
        parent = os.path.dirname(os.path.abspath(self.work))
        if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
            self.fail(f"--out {self.out}: cannot create {self.work}: {parent} is not a writable folder")
        self._take_lock()
        # under the lock (another run's live agents are not ours to judge):
        # the agents' control sockets must be free, unless a dead run's
        # state file is there (the bring-up cleans that run's agents first)
        for name in self._servers if state.load() is None else ():
            path = os.path.join(state.AGENT_SOCK_DIR, name + ".sock")
            why = state.socket_occupant(path)
            if why:
                self.fail(f"control socket {path} is occupied ({why}); stop that agent or remove the file "
                          "(make clean-testbed if a killed run left it)")
        shutil.rmtree(self.work, ignore_errors=True)
        self.base_seed = a.seed
        self.run_dir = os.path.join(self.work, "raw", "run-01") if self.repeat else self.work
        try:
            os.makedirs(os.path.join(self.run_dir, "raw"))
        except OSError as e:
            self.fail(f"--out {self.out}: cannot create {self.work}: {e.strerror}")
        self.log("%s: switch %s, MTU %d, server links %g Mb/s, FIFO queues of %s, TCP %s, minimum RTO %g ms%s, hello %d ms, "
                 "size scale %g, seed %d" % (
            self.name, a.switch, a.mtu, a.link_mbps,
            f"{a.queue_bytes:d} bytes" if a.queue_bytes else f"{a.queue_pkts:d} packets" if a.queue_pkts
            else "the kernel's 1000 packets", a.tcp_cc, a.tcp_rto_min_ms,
            ", small frames first" if a.small_first == "on" else "",
            a.hello_ms, a.size_scale, a.seed))
        if self.repeat:
            self.log(f"{a.runs:d} valid runs wanted, each the structure then its baseline; run 1 (seed {a.seed:d})")
        return a

    def fail(self, msg: str) -> None:
        """One line, exit status 2: for what is wrong with the box or the
        options' values, before anything is created."""
        self.ap.exit(2, f"{self.ap.prog}: error: {msg}\n")

    # option dest -> (check, what it must be); every script's options of
    # these names are checked here, before anything is built
    FRACTIONS = ("failure_at", "inner_at", "fibre_at")
    POSITIVE = ("seconds", "rounds", "count", "duration")

    def _check_values(self, a):
        v = vars(a)
        for k in self.FRACTIONS:
            if v.get(k) is not None and not 0 < v[k] < 1:
                self.ap.error(f'--{k.replace("_", "-")} must be a fraction between 0 and 1 (exclusive)')
        for k in self.POSITIVE:  # numbers only: a script may take e.g. --duration 30m and check it itself
            if isinstance(v.get(k), (int, float)) and not v[k] > 0:
                self.ap.error(f'--{k.replace("_", "-")} must be positive')
        lists = {"mtus": (int, lambda x: 576 <= x <= 9000, "MTUs 576..9000"),
                 "rates": (float, lambda x: 0 < x <= 10000, "rates in Mb/s, 0 < rate <= 10000"),
                 "switches": (str, lambda x: x in SWITCH_KINDS, "switch kinds of " + ", ".join(SWITCH_KINDS))}
        for k, (conv, ok, what) in lists.items():
            if not isinstance(v.get(k), str):
                continue
            try:
                items = [conv(x) for x in v[k].split(",")]
            except ValueError:
                items = None
            if not items or not all(ok(x) for x in items):
                self.ap.error(f"--{k} must be a comma-separated list of {what}, not '{v[k]}'")

    def _check_specs(self, a):
        """--topo/--tree must be specs dcn-topo builds; server names given as
        options (--src, --dst, --replicas, --targets, --inner-link, --fibre)
        must be servers of --topo."""
        from orchestrator.topology import TopoError, export
        v = vars(a)
        servers = None
        for k in ("topo", "tree"):
            if not isinstance(v.get(k), str):
                continue
            try:
                w = export(a.build_dir, v[k])
            except TopoError as e:
                self.fail(f'--{k} {v[k]}: {" ".join(str(e).split())}')
            if k == "topo":
                servers = set(w.servers)
                nodes = servers | set(w.switches)
        if servers is None:
            return
        self._servers = sorted(servers)
        for k, sep in (("src", None), ("dst", None), ("replicas", ","), ("targets", ","),
                       ("inner_link", ","), ("fibre", ",")):
            val = v.get(k)
            if not isinstance(val, str) or val == "auto":
                continue
            names = [x.strip() for x in val.split(sep)] if sep else [val]
            allowed = nodes if k in ("inner_link", "fibre") else servers
            bad = [n for n in names if n not in allowed]
            if bad or (k in ("inner_link", "fibre") and len(names) != 2):
                self.fail("--%s %s: %s" % (k.replace("_", "-"), val, f'not in {a.topo}: {" ".join(bad)}'
                                           if bad else "must be two nodes A,B"))

    def _take_lock(self):
        self._lock = state.take_netns_lock(self.log)

    def log(self, msg: str) -> None:
        print(f"[{time.time() - self.t_start:6.1f} s] {msg}", flush=True)
        if self.view:
            self.view.set_experiment(self.name, phase=msg.strip())

    def progress(self, fraction: float | None) -> None:
        """How far the current phase is (0..1), for the view."""
        if self.view:
            self.view.set_experiment(self.name, progress=fraction)

    def agent_accepts(self, spec: str, args: list[str]) -> bool:
        """Whether this build's dcn-agent takes the options `args` for `spec`
        (asked with `dcn-agent --check`, which parses every option)."""
        from orchestrator.topology import tool_path
        exe = tool_path(self.a.build_dir, "dcn-agent")
        name = _first_server(self.a.build_dir, spec)
        r = subprocess.run([exe, "--check", "--topo", spec, "--name", name] + list(args),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return r.returncode == 0

    def scaled_bytes(self, paper_bytes: int) -> int:
        """The paper's transfer size scaled to this run's link rate and --size-scale."""
        return max(1 << 20, int(paper_bytes * self.a.link_mbps / PAPER_LINK_MBPS * self.a.size_scale))

    # ------------------------------------------------------------- networks
    @contextlib.contextmanager
    def testbed(self, spec: str, label: str, hello_ms: int | None = None, agent: bool | None = None,
                link_period: float = 1.0, switch: str | None = None, mtu: int | None = None,
                link_mbps: float | None = None, agent_args: Sequence[str] | None = None) -> Iterator[Net]:
        """agent_args: extra dcn-agent options for this network's agents (for
        example ["--mdcube-routing", "source"]; see agent_accepts()), after
        the run's --data-path: the agent takes the last value of an option."""
        a = self.a
        server = dict(linkclass.DEFAULT_SERVER, bw=link_mbps or a.link_mbps, max_queue_size=a.queue_pkts,
                      queue_bytes=a.queue_bytes, small_first=a.small_first == "on")
        tb = Testbed(a.build_dir, spec, switch=switch or a.switch, server_link=server, mtu=mtu or a.mtu,
                     hello_ms=hello_ms or a.hello_ms, agent=agent,
                     agent_args=list(data_path_args(a.data_path) if a.data_path else ()) + list(agent_args or ()) +
                     ["--seed", str(a.seed)],
                     log=lambda m: self.log("  " + m.replace("*** ", "")),
                     cluster=a.cluster_obj, local_pids_needed=True)
        cpu = links = queues = ss = net = stalls = None
        tcp0 = q0 = None
        try:
            self.log(f"{label}: bringing up {spec}")
            try:
                tb.start()
            except TestbedError as e:
                raise BringUpError(f"{label}: {e}") from None
            if self.view:
                self.view.attach(tb, label)
            if tb.mtu < (mtu or a.mtu):  # --cluster: what the tunnels carry (docs/cluster.md)
                self.log(f"{label}: links at MTU {tb.mtu:d}, not {mtu or a.mtu:d} (--cluster)")
                if mtu is None:  # the run's MTU: the summary gives the one the links had
                    a.mtu = tb.mtu
            cpu, stalls = CpuSampler(0.5), StallWatch()
            # every shaper's queue, switch and server ports (one rtnetlink
            # dump per namespace and period): the line-rate checks of every
            # link direction and the tree's saturation check
            queues = QueueSampler(shaper_dirs(tb.wiring, lambda n: tb.hosts[n].pid, tb.ns_pid_here))
            links = LinkSampler(tb.wiring, lambda l: linkclass.params_for(
                tb.wiring.family, l["kind"], tb.server_link, tb.highspeed_link).get("bw"), link_period,
                host_pid=lambda n: tb.hosts[n].pid, switch_pid=tb.ns_pid_here)
            pids = {n: h.pid for n, h in tb.hosts.items()}
            for pid in pids.values():
                netops.write_sysctls([("/proc/sys/net/ipv4/tcp_rto_min_us", str(int(a.tcp_rto_min_ms * 1000))),
                                      ("/proc/sys/net/ipv4/tcp_congestion_control", a.tcp_cc)], pid)
                check_tcp_settings(pid, a)
            counters = TcpCounters(pids)
            tcp0, q0 = counters.snapshot(), qdisc_totals(pids)
            if a.ss_every and len(pids) <= SS_MAX_HOSTS:
                ss = SsSampler(pids, a.ss_every)
            cpu.start()
            stalls.start()
            links.start()
            for s in (queues, ss):
                if s:
                    s.start()
            net = Net(self, label, tb, cpu, links, queues, stalls)
            self.nets.append(net)
            yield net
        finally:
            if self.view:
                self.view.detach(tb)
            for s in (cpu, stalls, links, queues, ss):
                if s:
                    s.stop()
            if net is not None and tcp0 is not None:
                net.tcp = counters.diff(tcp0, counters.snapshot())
                net.qdisc = diff_qdisc(q0, qdisc_totals(pids))
                net.ss = ss.summary() if ss else None
            tb.stop()
        self.write_csv(f"{label}_links.csv", links.timeline_rows())
        if queues:
            self.write_csv(f"{label}_queues.csv", queues.timeline_rows())
        if ss:
            self.write_csv(f"raw/{label}_ss.csv", ss.csv_rows())
        self.write_csv(f"{label}_cpu.csv", [["unix_time", "busy", "busy_incl_nice"]] +
                       [[f"{t:.3f}", f"{v[0]:.4f}", f"{v[1]:.4f}"] for t, v in cpu.samples])
        self.write_csv(f"raw/{label}_stalls.csv", [["unix_time", "late_s"]] +
                       [[f"{t:.3f}", f"{x:.3f}"] for t, x in stalls.samples])

    # -------------------------------------------------------------- output
    def path(self, name: str) -> str:
        """Where this run writes `name` (raw/run-NN/ of a repeated experiment)."""
        return os.path.join(self.run_dir or self.work, name)

    def write_json(self, name: str, obj: object) -> None:
        with open(self.path(name), "w") as f:
            json.dump(obj, f, indent=2, sort_keys=False)
            f.write("\n")

    def write_csv(self, name: str, rows: Iterable[Sequence]) -> None:
        with open(self.path(name), "w", newline="") as f:
            csv.writer(f).writerows(rows)

    def save_flows(self, label: str, flows: list) -> list:
        """iperf3 JSON of every flow under raw/, and their summaries."""
        for i, fl in enumerate(flows):
            if fl.result is not None:
                with open(self.path(f'raw/{label}_{i:03d}_{fl.label.replace(">", "-")}.json'), "w") as f:
                    json.dump(fl.result, f)
        return [fl.summary() for fl in flows]

    def finish(self, measured: dict, baseline: dict | None = None, paper: dict | None = None,
               ratio_measured: float | None = None, ratio_paper: float | None = None, flows_failed: int = 0,
               extra: dict | None = None, notes: list[str] | None = None, headline: dict | None = None,
               reasons: list[str] | None = None) -> int:
        """Writes summary.json with the fidelity verdict and moves the results
        into place. Returns the exit status: 0 valid, 3 invalid."""
        a = self.a
        for n in self.nets:   # the emulator's invariants over each network's (first) traffic window
            for w0, w1 in n.windows[:1]:
                n.check_line_rate(w0, w1)
        runs = {n.label: n.report() for n in self.nets}
        judged = reasons is None  # a measurement of the box's limits passes its own reasons
        reasons = [] if judged else list(reasons)
        cpu_max = max([r["cpu_busy_max"] for r in runs.values() if r["cpu_busy_max"] is not None] or [0.0])
        if judged and cpu_max > CPU_LIMIT:
            reasons.append(f"box CPU {100 * cpu_max:.0f} % busy (limit {100 * CPU_LIMIT:.0f} %)")
        if flows_failed:
            reasons.append(f"{flows_failed:d} flows failed to finish")
        for label, r in runs.items() if judged else ():
            if r["stall_limit_ms"] is not None and (r["stall_max_ms"] or 0) >= r["stall_limit_ms"]:
                reasons.append(f'{label}: the box stalled for {r["stall_max_ms"]:d} ms, as long as the agents\' '
                               'hellos may be late '
                               f'({r["stall_limit_ms"]:d} ms) before a neighbour is declared dead')
        for r in runs.values() if judged else ():
            for c in r["saturation_checks"]:
                if c["ok"]:
                    continue
                u = "?" if c["utilisation"] is None else f'{c["utilisation"]:.3f}'
                if c.get("check") == "over_rate":
                    reasons.append(f'{c["run"]}: link {c["link"]} carried {u} of its rate (at most '
                                   f'{OVER_RATE_LIMIT:.2f})')
                elif c.get("check") == "line_rate_when_backlogged":
                    reasons.append(f'{c["run"]}: link {c["link"]} sent {u} of its rate while data waited in its '
                                   f'queue ({c["busy_s"]:.1f} s)')
                else:
                    reasons.append(f'{c["run"]}: link {c["link"]} carried {u} of its rate (expected 1 +- '
                                   f'{SATURATION_TOLERANCE:.2f})')
        summary = {
            "experiment": self.name,
            "valid": not reasons,
            "invalid_reasons": reasons,
            "measured": measured,
            "baseline": baseline,
            "ratio_measured": ratio_measured,
            "paper": paper,
            "ratio_paper": ratio_paper,
            "switch": a.switch,
            "link_mbps": a.link_mbps,
            "mtu": a.mtu,
            "queue_pkts": a.queue_pkts,
            "queue_bytes": a.queue_bytes,
            "small_first": a.small_first == "on",
            "tcp_timers": a.tcp_timers,
            "tcp_cc": a.tcp_cc,
            "tcp_rto_min_ms": a.tcp_rto_min_ms,
            "hello_ms": a.hello_ms,
            # agent or kernel; both: the experiment ran both (one_data_path=False). Summaries written
            # before the option have "kernel_relay": "full" for the kernel's, nothing for the agent's
            "data_path": a.data_path or "both",
            "size_scale": a.size_scale,
            "duration_s": round(time.time() - self.t_run, 1),
            "seed": a.seed,
            "cpu_busy_max": round(cpu_max, 4),
            "cpu_busy_max_incl_nice": max([r["cpu_busy_max_incl_nice"] for r in runs.values()
                                           if r["cpu_busy_max_incl_nice"] is not None] or [0.0]),
            "git_commit": git_commit(),
            "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "runs": runs,
        }
        if extra:
            summary.update(extra)
        if notes:
            summary["method"] = notes
        if headline:  # one line each for results/README.md: {"measured": "...", "paper": "..."}
            summary["headline"] = headline
        self.write_json("summary.json", summary)
        if self.repeat:
            self.run_summaries.append(summary)
            verdict = "valid" if not reasons else "NOT VALID: " + "; ".join(reasons)
            self.log(f"{self.name} run {self.run_index + 1:d} (seed {a.seed:d}): {verdict}, ratio {ratio_measured}")
            return 0 if not reasons else 3
        self._move_into_place()
        self.log(f'{self.name}: {"VALID" if not reasons else "NOT VALID: " + "; ".join(reasons)}; results in '
                 f'{os.path.relpath(self.out, os.getcwd())}')
        return 0 if not reasons else 3

    def _move_into_place(self):
        if os.path.isdir(self.out):
            shutil.rmtree(self.out)
        os.rename(self.work, self.out)

    def _more_runs(self):
        """Whether another run is due: fewer valid runs than --runs, and
        fewer than twice --runs in all. A --tiny run (the test suite's,
        whose figures mean nothing and which is too short for the link
        checks) makes exactly --runs runs: none is replaced."""
        valid = sum(1 for r in self.run_summaries if r["valid"])
        if self.a.tiny:
            return len(self.run_summaries) < self.a.runs
        return valid < self.a.runs and len(self.run_summaries) < 2 * self.a.runs

    def _next_run(self):
        self.run_index += 1
        self.a.seed = self.base_seed + self.run_index
        self.nets = []
        self.t_run = time.time()
        self.run_dir = os.path.join(self.work, "raw", f"run-{self.run_index + 1:02d}")
        if self.view:
            self.view.set_experiment(self.name, run=self.run_index + 1, progress=None)
        os.makedirs(os.path.join(self.run_dir, "raw"))
        valid = sum(1 for r in self.run_summaries if r["valid"])
        self.log(f"run {self.run_index + 1:d} (seed {self.a.seed:d}); {valid:d} of {self.a.runs:d} valid runs so far")

    def _finish_runs(self):
        """The experiment's summary over its runs (repeat.combine), with the
        plots of the median run and runs.png; moved into place."""
        from . import plots
        runs = self.run_summaries
        summary = repeat.combine(runs, self.a.runs)
        summary["duration_s"] = round(time.time() - self.t_start, 1)
        summary["date_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        summary["seed"] = self.base_seed
        med = repeat.median_run(runs)
        summary["plots_from_run"] = med + 1
        if (runs[med].get("headline") or {}).get("measured"):  # one run's numbers: the median run's, so labelled
            summary["headline"] = dict(runs[med]["headline"], measured=f'run {med + 1:d} of {len(runs)} (median '
                                                                       f'ratio): {runs[med]["headline"]["measured"]}')
        src = os.path.join(self.work, "raw", f"run-{med + 1:02d}")
        for f in sorted(os.listdir(src)):
            if f.endswith(".png"):
                shutil.copy(os.path.join(src, f), os.path.join(self.work, f))
        if any(isinstance(r.get("ratio_measured"), (int, float)) for r in runs):
            plots.runs(os.path.join(self.work, "runs.png"), f"{self.name}: every run", summary)
        self.run_dir = self.work
        self.write_json("summary.json", summary)
        self._move_into_place()
        ci = summary["ratio_ci95"]
        self.log(f'{self.name}: {"VALID" if summary["valid"] else "NOT VALID: " + "; ".join(summary["invalid_reasons"])}; '
                 f'ratio {summary["ratio_mean"]} (95 % CI {"-" if ci is None else f"{ci[0]}-{ci[1]}"}, min-max '
                 f'{summary["ratio_min"]}-{summary["ratio_max"]}) over {summary["runs_n"]:d} valid runs, '
                 f'{summary["runs_invalid"]:d} invalid; results in {os.path.relpath(self.out, os.getcwd())}')
        return 0 if summary["valid"] else 3

    def _drop_empty_work(self):
        """A run that failed before writing any file leaves no .partial folder."""
        work = getattr(self, "work", None)
        if work and os.path.isdir(work) and not any(f for _, _, f in os.walk(work)):
            shutil.rmtree(work, ignore_errors=True)

    def main(self, body: Callable[[Experiment], int | None]) -> int:
        """Runs body(self) with clean error handling: one line, no traceback,
        for the user's mistakes and the testbed's refusals. SIGTERM and SIGHUP
        end the run like Ctrl-C: the testbed is torn down."""
        def on_signal(signum, _frame):
            raise KeyboardInterrupt(f"signal {signum:d}")
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(s, on_signal)
        try:
            rc = body(self)
            if not self.repeat or self.a is None or not self.run_summaries:
                return rc
            while self._more_runs():
                self._next_run()
                body(self)
            return self._finish_runs()
        except ExperimentError as e:
            self.log(f"error: {e}")
            self._drop_empty_work()
            return 2
        except KeyboardInterrupt:
            self.log("interrupted; previous results left as they were")
            return 130
        finally:
            if self.view:
                self.view.close()
