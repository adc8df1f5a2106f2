"""One experiment run: options, the testbed lock, progress, the results
folder, samplers around every network it brings up, and the summary with
its fidelity verdict.

Results are written to results/<name>.partial/ and moved to
results/<name>/ only when the run finishes, so an interrupted run loses
nothing that was there before."""
import argparse
import contextlib
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from orchestrator import linkclass, state  # noqa: E402
from orchestrator.agents import DEFAULT_KERNEL_RELAY, KERNEL_RELAY_MODES, kernel_relay_args  # noqa: E402
from orchestrator.errors import OneLineParser  # noqa: E402
from orchestrator.testbed import SWITCH_KINDS, Testbed, TestbedError  # noqa: E402

from .samplers import CpuSampler, LinkSampler, QueueSampler  # noqa: E402

RESULTS = os.path.join(REPO, "results")
CPU_LIMIT = 0.90          # a run above this is not a result
SATURATION_TOLERANCE = 0.05
BUSY_CHECK_MIN_S = 5.0  # seconds of backlogged periods a link needs before its invariant can pass it
PAPER_LINK_MBPS = 1000.0  # the papers' testbeds: GbE server links
PAPER_HELLO_MS = 1000     # the papers' timers: 1 s hellos, 3 misses
FAST_HELLO_MS = 50        # the fast setting, as BFD's common 50 ms x 3: dead after 3 x 50 + 50 / 4 = 162 ms
CAPACITY_SUMMARY = os.path.join(RESULTS, "capacity", "summary.json")
FALLBACK_CHOICE = {"switch": "lxbr", "mtu": 9000, "link_mbps": 20, "light_switch": "lxbr"}


# where a run writes, by the agents' mode: every mode has its own folders, so a
# run in one mode never overwrites another's results (the folders without a
# suffix are the agent's own data path, the default until the kernel's became it)
KERNEL_FOLDER_SUFFIX = {"off": "", "on": "-kernel-relay", "full": "-kernel-full"}

class ExperimentError(RuntimeError):
    pass


class BringUpError(ExperimentError):
    """A network of the experiment did not come up (Testbed.start failed);
    everything it had built is already torn down."""


def git_commit():
    def git(*args):
        r = subprocess.run(["git", "-C", REPO] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        return r.stdout.strip() if r.returncode == 0 else None
    head = git("rev-parse", "HEAD")
    # Only code can move a result: results, docs and Markdown pages are left out.
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!results", ":!docs", ":!*.md")
    return (head or "unknown") + ("-dirty" if dirty else "")


def default_choice():
    """The switch, MTU and link rate the capacity table picked (see
    experiments/capacity); the fallback when it was never run."""
    try:
        with open(CAPACITY_SUMMARY) as f:
            c = json.load(f)["choice"]
        return {"switch": c["switch"], "mtu": int(c["mtu"]), "link_mbps": float(c["link_mbps"]),
                "light_switch": c.get("light_switch", c["switch"]), "source": "results/capacity/summary.json"}
    except (OSError, ValueError, KeyError):
        return dict(FALLBACK_CHOICE, source="fallback (no capacity table yet)")


def _first_server(build_dir, spec):
    from orchestrator.topology import tool_path
    r = subprocess.run([tool_path(build_dir, "dcn-topo"), "export"] + spec.split(), stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    try:
        return json.loads(r.stdout)["servers"][0]["name"]
    except (ValueError, KeyError, IndexError):
        raise ExperimentError("dcn-topo export %s failed" % spec) from None


class Net:
    """A testbed up, with its CPU and link samplers running."""

    def __init__(self, ex, label, tb, cpu, links, queues=None):
        self.ex, self.label, self.tb, self.cpu, self.links = ex, label, tb, cpu, links
        self.queues = queues    # QueueSampler of the uplinks' switch ports (tree baselines), or None
        self.t0 = time.time()
        self.windows = []       # (t0, t1) of traffic, for the CPU verdict
        self.saturation = []    # link checks

    def name(self, server_id):
        """The host name of server `server_id` (the library's numbering)."""
        return self.tb.wiring.server_list[server_id]["name"]

    def traffic_window(self, t0, t1):
        self.windows.append((t0, t1))

    def uplink_dirs(self):
        """Both directions ("A>B") of every switch-switch link: the tree's
        uplinks, which an all-to-all must fill."""
        up = [l for l in self.tb.wiring.links if l["kind"] == "switch-switch"]
        return ["%s>%s" % (l["a"], l["b"]) for l in up] + ["%s>%s" % (l["b"], l["a"]) for l in up]

    def expect_saturated(self, dirs, t0, t1):
        """The pattern should fill these link directions ("A>B") from t0 to
        t1: each must carry within 5 % of its configured rate, or, where its
        queue is sampled, within 5 % of it in every stretch that began with
        enough data queued to keep it busy (at least BUSY_CHECK_MIN_S of
        them): the link then sent whenever it had data, so a shortfall came
        from the traffic (its queue ran short), not from the emulator."""
        util = self.links.utilisation(t0, t1)
        for d in dirs:
            u = util.get(d)
            c = {"run": self.label, "link": d, "utilisation": None if u is None else round(u, 4),
                 "ok": u is not None and abs(u - 1.0) <= SATURATION_TOLERANCE}
            if self.queues is not None and d in self.queues.devs and self.links.capacity.get(d):
                c["busy_s"], c["utilisation_when_busy"] = self.queues.busy(d, self.links.capacity[d], t0, t1)
                c["window_s"] = round(t1 - t0, 2)
                if not c["ok"] and c["busy_s"] >= BUSY_CHECK_MIN_S and \
                        c["utilisation_when_busy"] >= 1.0 - SATURATION_TOLERANCE:
                    c["ok"], c["short_of_traffic"] = True, True
            self.saturation.append(c)

    def report(self):
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
        return {"spec": self.tb.wiring.spec, "cpu_busy_max": max(cpu_max) if cpu_max else None,
                "cpu_busy_mean": round(sum(cpu_mean) / len(cpu_mean), 4) if cpu_mean else None,
                "cpu_busy_max_incl_nice": max(cpu_nice) if cpu_nice else None,
                "link_utilisation": util, "saturation_checks": self.saturation}


class Experiment:
    def __init__(self, name, description, light=False, small_first=False):
        """light: the experiment opens a few connections only, so it runs on
        the capacity table's choice for light patterns (OVS where it
        carries them). small_first: the default of --small-first (on for
        the all-to-all patterns, whose links carry tens of connections each)."""
        self.name = name
        self.ap = OneLineParser(prog="experiments/" + name, description=description,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
        ch = default_choice()
        self.choice = ch
        g = self.ap.add_argument_group("emulation (defaults from the capacity table: %s)" % ch["source"])
        g.add_argument("--switch", choices=SWITCH_KINDS, default=ch["light_switch"] if light else ch["switch"],
                       help="switch emulation (default %(default)s)")
        g.add_argument("--mtu", type=int, default=ch["mtu"], help="link MTU (default %(default)s, the papers' 9 KB)")
        g.add_argument("--link-mbps", type=float, default=ch["link_mbps"],
                       help="server link rate, Mb/s (default %(default)s; the papers: 1000)")
        g.add_argument("--queue-pkts", type=int, default=None,
                       help="every link's queue, in packets (a pfifo under the shaper; default: the "
                            "kernel's 1000). The papers' mini-switches had small buffers")
        g.add_argument("--small-first", choices=("on", "off"), default="on" if small_first else "off",
                       help="frames under %d bytes (TCP ACKs, the agents' control packets) ahead of the data "
                            "in every shaped link (default %%(default)s; docs/experiments.md, "
                            "'Small frames first')" % linkclass.SMALL_BYTES)
        g.add_argument("--hello-ms", type=int, default=PAPER_HELLO_MS,
                       help="agent hello period (default %(default)s, the papers')")
        g.add_argument("--fast-hello-ms", type=int, default=FAST_HELLO_MS,
                       help="hello period of the fast setting, in the failure experiments' second run "
                            "(default %(default)s: with 3 misses, detection in 150-200 ms, as BFD's "
                            "common 50 ms x 3; docs/experiments.md, 'The fast setting')")
        g.add_argument("--size-scale", type=float, default=1.0,
                       help="transfer sizes as a fraction of the paper's scaled to the link rate "
                            "(1: the paper's bytes x link-mbps/1000, so durations match the paper's)")
        g.add_argument("--kernel-relay", choices=KERNEL_RELAY_MODES, default=DEFAULT_KERNEL_RELAY,
                       help="the agents send, relay and deliver plain data frames in the kernel (full, the "
                            "default), only relay them there (on), or handle every frame themselves (off): "
                            "dcn-agent --kernel-relay. Each mode writes its own folders")
        g.add_argument("--seed", type=int, default=1)
        g.add_argument("--build-dir", default=os.path.join(REPO, "build"))
        g.add_argument("--out", default=None,
                       help="results folder (default results/%s%s: each --kernel-relay mode has its own, "
                            "-kernel-full for full, -kernel-relay for on, no suffix for off)"
                            % (name, KERNEL_FOLDER_SUFFIX[DEFAULT_KERNEL_RELAY]))
        g.add_argument("--tiny", action="store_true",
                       help="a seconds-long run for the test suite (size-scale at most 0.01)")
        self.a = None
        self.t_start = time.time()
        self._lock = None
        self.nets = []
        self.files = {}

    def add_argument(self, *args, **kw):
        return self.ap.add_argument(*args, **kw)

    def set_defaults(self, **kw):
        self.ap.set_defaults(**kw)

    # --------------------------------------------------------------- setup
    def parse(self, argv=None):
        a = self.ap.parse_args(argv)
        if not 576 <= a.mtu <= 9000:
            self.ap.error("--mtu must be 576..9000")
        if not 1 <= a.link_mbps <= 10000:
            self.ap.error("--link-mbps must be 1..10000")
        if not 0 < a.size_scale <= 10:
            self.ap.error("--size-scale must be in (0, 10]")
        if a.hello_ms < 10 or a.fast_hello_ms < 10:
            self.ap.error("--hello-ms and --fast-hello-ms must be >= 10")
        if a.queue_pkts is not None and not 1 <= a.queue_pkts <= 100000:
            self.ap.error("--queue-pkts must be 1..100000")
        if a.tiny:
            a.size_scale = min(a.size_scale, 0.01)
        self._check_values(a)
        if os.geteuid() != 0:
            self.fail("needs root (network namespaces, bridges): sudo experiments/%s" % self.name)
        for tool in ("dcn-topo", "dcn-agent", "dcn-ctl"):
            from orchestrator.topology import tool_path
            if not tool_path(a.build_dir, tool):
                self.fail("%s not found in %s: run make build first" % (tool, a.build_dir))
        if shutil.which("iperf3") is None:
            self.fail("missing on PATH: iperf3 (sudo make deps)")
        self._servers = []
        self._check_specs(a)
        self.a = a
        # each mode has its own folders (KERNEL_FOLDER_SUFFIX)
        self.out = a.out or os.path.join(RESULTS, self.name + KERNEL_FOLDER_SUFFIX[a.kernel_relay])
        self.work = self.out.rstrip("/") + ".partial"
        parent = os.path.dirname(os.path.abspath(self.work))
        if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
            self.fail("--out %s: cannot create %s: %s is not a writable folder" % (self.out, self.work, parent))
        self._take_lock()
        # under the lock (another run's live agents are not ours to judge):
        # the agents' control sockets must be free, unless a dead run's
        # state file is there (the bring-up cleans that run's agents first)
        for name in self._servers if state.load() is None else ():
            path = os.path.join(state.AGENT_SOCK_DIR, name + ".sock")
            why = state.socket_occupant(path)
            if why:
                self.fail("control socket %s is occupied (%s); stop that agent or remove the file "
                          "(make clean-testbed if a killed run left it)" % (path, why))
        shutil.rmtree(self.work, ignore_errors=True)
        try:
            os.makedirs(os.path.join(self.work, "raw"))
        except OSError as e:
            self.fail("--out %s: cannot create %s: %s" % (self.out, self.work, e.strerror))
        self.log("%s: switch %s, MTU %d, server links %g Mb/s, queues %s%s, hello %d ms, size scale %g, seed %d" % (
            self.name, a.switch, a.mtu, a.link_mbps,
            "%d packets" % a.queue_pkts if a.queue_pkts else "the kernel's (1000 packets)",
            ", small frames first" if a.small_first == "on" else "",
            a.hello_ms, a.size_scale, a.seed))
        return a

    def fail(self, msg):
        """One line, exit status 2: for what is wrong with the box or the
        options' values, before anything is created."""
        self.ap.exit(2, "%s: error: %s\n" % (self.ap.prog, msg))

    # option dest -> (check, what it must be); every script's options of
    # these names are checked here, before anything is built
    FRACTIONS = ("failure_at", "inner_at", "fibre_at")
    POSITIVE = ("seconds", "rounds", "count", "duration")

    def _check_values(self, a):
        v = vars(a)
        for k in self.FRACTIONS:
            if v.get(k) is not None and not 0 < v[k] < 1:
                self.ap.error("--%s must be a fraction between 0 and 1 (exclusive)" % k.replace("_", "-"))
        for k in self.POSITIVE:  # numbers only: a script may take e.g. --duration 30m and check it itself
            if isinstance(v.get(k), (int, float)) and not v[k] > 0:
                self.ap.error("--%s must be positive" % k.replace("_", "-"))
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
                self.ap.error("--%s must be a comma-separated list of %s, not '%s'" % (k, what, v[k]))

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
                self.fail("--%s %s: %s" % (k, v[k], " ".join(str(e).split())))
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
                self.fail("--%s %s: %s" % (k.replace("_", "-"), val, "not in %s: %s" % (a.topo, " ".join(bad))
                                           if bad else "must be two nodes A,B"))

    def _take_lock(self):
        self._lock = state.take_netns_lock(self.log)

    def log(self, msg):
        print("[%6.1f s] %s" % (time.time() - self.t_start, msg), flush=True)

    def agent_accepts(self, spec, args):
        """Whether this build's dcn-agent takes the options `args` for `spec`
        (asked with `dcn-agent --check`, which parses every option)."""
        from orchestrator.topology import tool_path
        exe = tool_path(self.a.build_dir, "dcn-agent")
        name = _first_server(self.a.build_dir, spec)
        r = subprocess.run([exe, "--check", "--topo", spec, "--name", name] + list(args),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return r.returncode == 0

    def scaled_bytes(self, paper_bytes):
        """The paper's transfer size scaled to this run's link rate and --size-scale."""
        return max(1 << 20, int(paper_bytes * self.a.link_mbps / PAPER_LINK_MBPS * self.a.size_scale))

    # ------------------------------------------------------------- networks
    @contextlib.contextmanager
    def testbed(self, spec, label, hello_ms=None, agent=None, link_period=1.0, switch=None, mtu=None,
                link_mbps=None, agent_args=None):
        """agent_args: extra dcn-agent options for this network's agents (for
        example ["--mdcube-routing", "source"]; see agent_accepts())."""
        a = self.a
        server = dict(linkclass.DEFAULT_SERVER, bw=link_mbps or a.link_mbps, max_queue_size=a.queue_pkts,
                      small_first=a.small_first == "on")
        tb = Testbed(a.build_dir, spec, switch=switch or a.switch, server_link=server, mtu=mtu or a.mtu,
                     hello_ms=hello_ms or a.hello_ms, agent=agent,
                     agent_args=list(agent_args or ()) + list(kernel_relay_args(a.kernel_relay)),
                     log=lambda m: self.log("  " + m.replace("*** ", "")))
        cpu = links = queues = None
        try:
            self.log("%s: bringing up %s" % (label, spec))
            try:
                tb.start()
            except TestbedError as e:
                raise BringUpError("%s: %s" % (label, e)) from None
            cpu = CpuSampler(0.5)
            if tb.wiring.family == "tree":  # its uplinks are checked (expect_saturated): sample their queues
                up = [l for l in tb.wiring.links if l["kind"] == "switch-switch"]
                queues = QueueSampler({**{"%s>%s" % (l["a"], l["b"]): l["a_if"] for l in up},
                                       **{"%s>%s" % (l["b"], l["a"]): l["b_if"] for l in up}})
            links = LinkSampler(tb.wiring, lambda l: linkclass.params_for(
                tb.wiring.family, l["kind"], tb.server_link, tb.highspeed_link).get("bw"), link_period,
                host_pid=lambda n: tb.hosts[n].pid)
            cpu.start()
            links.start()
            if queues:
                queues.start()
            net = Net(self, label, tb, cpu, links, queues)
            self.nets.append(net)
            yield net
        finally:
            for s in (cpu, links, queues):
                if s:
                    s.stop()
            tb.stop()
        self.write_csv("%s_links.csv" % label, links.timeline_rows())
        if queues:
            self.write_csv("%s_queues.csv" % label, queues.timeline_rows())
        self.write_csv("%s_cpu.csv" % label, [["unix_time", "busy", "busy_incl_nice"]] +
                       [["%.3f" % t, "%.4f" % v[0], "%.4f" % v[1]] for t, v in cpu.samples])

    # -------------------------------------------------------------- output
    def path(self, name):
        return os.path.join(self.work, name)

    def write_json(self, name, obj):
        with open(self.path(name), "w") as f:
            json.dump(obj, f, indent=2, sort_keys=False)
            f.write("\n")

    def write_csv(self, name, rows):
        with open(self.path(name), "w", newline="") as f:
            csv.writer(f).writerows(rows)

    def save_flows(self, label, flows):
        """iperf3 JSON of every flow under raw/, and their summaries."""
        for i, fl in enumerate(flows):
            if fl.result is not None:
                with open(self.path("raw/%s_%03d_%s.json" % (label, i, fl.label.replace(">", "-"))), "w") as f:
                    json.dump(fl.result, f)
        return [fl.summary() for fl in flows]

    def finish(self, measured, baseline=None, paper=None, ratio_measured=None, ratio_paper=None,
               flows_failed=0, extra=None, notes=None, headline=None, reasons=None):
        """Writes summary.json with the fidelity verdict and moves the results
        into place. Returns the exit status: 0 valid, 3 invalid."""
        a = self.a
        runs = {n.label: n.report() for n in self.nets}
        judged = reasons is None  # a measurement of the box's limits passes its own reasons
        reasons = [] if judged else list(reasons)
        cpu_max = max([r["cpu_busy_max"] for r in runs.values() if r["cpu_busy_max"] is not None] or [0.0])
        if judged and cpu_max > CPU_LIMIT:
            reasons.append("box CPU %.0f %% busy (limit %.0f %%)" % (100 * cpu_max, 100 * CPU_LIMIT))
        if flows_failed:
            reasons.append("%d flows failed to finish" % flows_failed)
        for r in runs.values() if judged else ():
            for c in r["saturation_checks"]:
                if not c["ok"]:
                    reasons.append("%s: link %s carried %s of its rate (expected 1 +- %.2f)" % (
                        c["run"], c["link"], "?" if c["utilisation"] is None else "%.3f" % c["utilisation"],
                        SATURATION_TOLERANCE))
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
            "small_frames_first": a.small_first == "on",
            "hello_ms": a.hello_ms,
            # absent: off, as before the option; true: on (as the first runs with it recorded it); "full"
            **({"kernel_relay": {"on": True, "full": "full"}[a.kernel_relay]} if a.kernel_relay != "off" else {}),
            "size_scale": a.size_scale,
            "duration_s": round(time.time() - self.t_start, 1),
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
        if os.path.isdir(self.out):
            shutil.rmtree(self.out)
        os.rename(self.work, self.out)
        self.log("%s: %s; results in %s" % (self.name, "VALID" if not reasons else "NOT VALID: " + "; ".join(reasons),
                                            os.path.relpath(self.out, os.getcwd())))
        return 0 if not reasons else 3

    def _drop_empty_work(self):
        """A run that failed before writing any file leaves no .partial folder."""
        work = getattr(self, "work", None)
        if work and os.path.isdir(work) and not any(f for _, _, f in os.walk(work)):
            shutil.rmtree(work, ignore_errors=True)

    def main(self, body):
        """Runs body(self) with clean error handling: one line, no traceback,
        for the user's mistakes and the testbed's refusals. SIGTERM and SIGHUP
        end the run like Ctrl-C: the testbed is torn down."""
        def on_signal(signum, _frame):
            raise KeyboardInterrupt("signal %d" % signum)
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(s, on_signal)
        try:
            return body(self)
        except ExperimentError as e:
            self.log("error: %s" % e)
            self._drop_empty_work()
            return 2
        except KeyboardInterrupt:
            self.log("interrupted; previous results left as they were")
            return 130
