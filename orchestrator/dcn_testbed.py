#!/usr/bin/python3
"""Entry point of `sudo make testbed` / `make clean-testbed`.

  dcn_testbed.py --build-dir build --topo "bcube n=4 k=1" [options]
  dcn_testbed.py --clean
"""
import json
import os
import signal
import sys
import time



def _std_fds_open():
    """A closed stdin/stdout/stderr (`<&-`) gets /dev/null, before anything
    else opens a file: otherwise the next socket or file takes fd 0, 1 or 2,
    and every child (ip, tc, the host shells) inherits it as its stdin or
    output (`ip -batch` then fails with "Socket operation on non-socket")."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            nfd = os.open(os.devnull, os.O_RDWR)
            if nfd != fd:
                os.dup2(nfd, fd)  # inheritable
                os.close(nfd)
            else:
                os.set_inheritable(fd, True)  # os.open sets close-on-exec


_std_fds_open()
if not __package__:
    # Run as a file (python3 orchestrator/dcn_testbed.py): Python put this
    # folder on sys.path, not the repository, so the package is loaded from
    # it by location (docs/contributing.md, "Python").
    import importlib.util
    _spec = importlib.util.spec_from_file_location(
        "orchestrator", os.path.join(os.path.dirname(os.path.realpath(__file__)), "__init__.py"))
    sys.modules["orchestrator"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["orchestrator"])

from orchestrator.errors import OneLineParser, missing_module  # noqa: E402

try:
    from orchestrator import capture, cluster, linkclass, smoke, state  # noqa: E402
    from orchestrator.agents import DATA_PATHS, DEFAULT_DATA_PATH, data_path_args  # noqa: E402
    from orchestrator.cli import run_cli, terminal_stdin  # noqa: E402
    from orchestrator.testbed import SWITCH_KINDS, Testbed, TestbedError  # noqa: E402
    from orchestrator.view import View, ViewError  # noqa: E402
except ImportError as _e:  # Mininet (or another Debian package) missing
    print(missing_module("dcn_testbed", _e), file=sys.stderr)
    sys.exit(1)


def _silence(name):
    try:
        setattr(sys, name, open(os.devnull, "w"))
    except OSError:
        pass


def say(msg):
    """print() that never raises: with `make testbed | tee log`, Ctrl-C kills
    tee as well, and a write to the dead pipe (EPIPE) or to a terminal that
    went away (EIO) must not stop the teardown. The stream is then replaced by
    /dev/null, so that nothing complains at exit either."""
    try:
        print(msg, flush=True)
    except (OSError, ValueError):
        _silence("stdout")


def say_err(msg):
    try:
        print(msg, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        _silence("stderr")


class Terminated(Exception):
    pass


def _on_signal(signum, _frame):
    raise Terminated(f"signal {signum:d}")


TOPOLOGY_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "topologies")


def resolve_topo(spec):
    """A named topology (topologies/NAME.topo) becomes the spec it holds;
    anything else is passed through as a dcn-topo spec."""
    path = os.path.join(TOPOLOGY_DIR, spec.strip() + ".topo")
    if "/" in spec or not os.path.isfile(path):
        return spec
    with open(path) as f:
        lines = [l.strip() for l in f if l.strip() and not l.lstrip().startswith("#")]
    if len(lines) != 1:
        raise ValueError(f"{path} must hold exactly one spec line")
    return lines[0]


def parse_args(argv):
    ap = OneLineParser(prog="dcn_testbed", description="DCN testbed on Mininet")
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--topo", default="bcube n=4 k=1",
                    help='family and parameters, e.g. "bcube n=4 k=1", or a name from topologies/ '
                         '(e.g. mdcube-testbed)')
    ap.add_argument("--clean", action="store_true", help="remove what a killed run left (state file)")
    ap.add_argument("--switch", choices=SWITCH_KINDS, default="ovs",
                    help="ovs (kernel datapath if available, else userspace), ovs-afxdp (userspace datapath, "
                         "afxdp-nonpmd ports), lxbr (Linux bridges)")
    ap.add_argument("--datapath", choices=("system", "netdev"), default=None,
                    help="OVS datapath (default: kernel if the module is available, else netdev)")
    ap.add_argument("--ovs-forwarder", choices=("rt", "normal"), default="rt",
                    help="OVS userspace datapath: its forwarding thread (ovs-vswitchd's main thread) at real-time "
                         "priority while the run lasts (rt, the default), or left as it is (normal)")
    ap.add_argument("--server-link", default="", help="TCLink options for server links, e.g. bw=100,delay=1ms")
    ap.add_argument("--highspeed-link", default="", help="TCLink options for MDCube inter-container links (default: twice the server link rate)")
    ap.add_argument("--mtu", type=int, default=linkclass.DEFAULT_MTU)
    ap.add_argument("--hello-ms", type=int, default=100, help="agent hello period (default %(default)s; the papers': 1000)")
    ap.add_argument("--dead-misses", type=int, default=3)
    ap.add_argument("--data-path", choices=DATA_PATHS, default=DEFAULT_DATA_PATH,
                    help="the agents' data path: kernel (the default) relays, sends and delivers plain data frames "
                         "in the kernel; agent takes every frame through the agents in user space (what their "
                         "--pcap sees): dcn-agent --data-path; docs/protocol.md, \"Data paths\"")
    ap.add_argument("--no-agent", action="store_true", help="plain L2 bring-up without agents")
    ap.add_argument("--ready-timeout", type=float, default=None)
    ap.add_argument("--ping-pairs", type=int, default=1100, help="all pairs up to this many, else a sample")
    ap.add_argument("--no-smoke", action="store_true")
    ap.add_argument("--no-cli", action="store_true", help="exit after the smoke check even on a TTY")
    ap.add_argument("--capture", metavar="PORTS", action="append", default=[],
                    help="capture with tcpdump on these ports from the start, one pcap each: comma-separated "
                         "NODE-ethP names (h01-eth0, s0_0-eth1) or node names for all their ports (h01); "
                         "repeatable (docs/inspection.md)")
    ap.add_argument("--capture-dir", metavar="DIR", default=None,
                    help="folder of the pcap files of --capture and the CLI's capture command "
                         "(default: results/captures/<UTC date-time>/)")
    cluster.add_options(ap)
    ap.add_argument("--view", type=int, metavar="PORT", default=None,
                    help="serve the live view of the network on http://127.0.0.1:PORT/ while it is up "
                         "(docs/view.md)")
    ap.add_argument("--json", metavar="FILE", help="write timings and smoke results here")
    ap.add_argument("--hold", action="store_true",
                    help="without a TTY, keep the testbed up until SIGTERM/SIGINT instead of exiting")
    a = ap.parse_args(argv)
    a.capture = capture.split_ports(a.capture)
    try:
        a.topo = resolve_topo(a.topo)
    except ValueError as e:
        ap.error(str(e))
    if not 576 <= a.mtu <= 9000:
        ap.error("--mtu must be 576..9000")
    if not 10 <= a.hello_ms <= 60000 or not 1 <= a.dead_misses <= 100:  # the agent's own bounds
        ap.error("--hello-ms must be 10..60000 and --dead-misses 1..100")
    if a.view is not None and not 1 <= a.view <= 65535:
        ap.error("--view must be a TCP port, 1..65535")
    try:
        a.server_params = linkclass.parse_override(a.server_link, linkclass.DEFAULT_SERVER)
        a.hs_params = (linkclass.parse_override(a.highspeed_link, linkclass.highspeed_default(a.server_params))
                       if a.highspeed_link else None)
    except ValueError as e:
        ap.error(str(e))
    a.cluster_obj = cluster.from_options(a, ap.error, log=say)
    return a


_LOCK = None


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    if os.geteuid() != 0:
        target = "clean-testbed" if a.clean else "testbed"
        print(f"dcn_testbed: needs root (network namespaces, bridges): sudo make {target}", file=sys.stderr)
        return 1
    if a.clean:
        return state.clean_stale()
    # everything that needs nothing built (spec, agent check, tools) before
    # the lock: a mistake is one line at once, not after a wait
    try:
        tb = Testbed(a.build_dir, a.topo, switch=a.switch, datapath=a.datapath,
                     server_link=a.server_params, highspeed_link=a.hs_params, mtu=a.mtu,
                     hello_ms=a.hello_ms, dead_misses=a.dead_misses,
                     agent_args=data_path_args(a.data_path),
                     agent=False if a.no_agent else None, ready_timeout=a.ready_timeout, log=say,
                     capture=a.capture, capture_dir=a.capture_dir, ovs_rt=a.ovs_forwarder == "rt",
                     cluster=a.cluster_obj)
        tb.preflight()
        # the port taken before anything is built: one line if it is busy
        view = View(a.view, log=say) if a.view is not None else None
    except (TestbedError, ViewError) as e:
        say_err(f'dcn_testbed: {" ".join(str(e).split())}')
        return 2
    global _LOCK  # held until the process exits
    _LOCK = state.take_netns_lock(lambda m: say("*** " + m))
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _on_signal)
    rc = 0
    report = {}
    try:
        tb.start()
        if view:
            view.attach(tb)
        report["timings"] = tb.timings
        if not a.no_smoke:
            res = smoke.smoke(tb, max_pairs=a.ping_pairs, log=say)
            report["smoke"] = res
            if not res["passed"]:
                rc = 3
        if terminal_stdin(sys.stdin) and not a.no_cli:
            tb.log("*** CLI: Mininet commands plus link_down/link_up A B, server_down/server_up H, "
                   "switch_down/switch_up S, ctl H CMD, switches, wiring [NODE], agents, events, "
                   "capture start PORT.../stop [PORT...]; exit to tear down")
            why = run_cli(tb)
            if why:
                say_err(f"dcn_testbed: {why}; tearing down")
        elif a.hold:
            # the handler first: a caller that waits for this line and then
            # sends SIGINT must find it installed (a process started in the
            # background inherits SIGINT ignored, and the signal was lost:
            # the teardown waited forever, seen in CI)
            signal.signal(signal.SIGINT, _on_signal)
            tb.log(f"*** holding the testbed up (pid {os.getpid():d}); SIGTERM or Ctrl-C tears it down")
            # Not signal.pause(): a signal that lands after Python's last
            # check and before the pause() call is handled only at the next
            # signal, so the teardown waited forever (seen once in CI). A
            # sleep returns within a second and the handler then runs.
            while True:
                time.sleep(1)
    except TestbedError as e:
        say_err(f'dcn_testbed: {" ".join(str(e).split())}')
        rc = 2
    except (RuntimeError, OSError) as e:  # a tool (ip, tc, ovs-vsctl) failed mid-way
        say_err(f'dcn_testbed: error: {" ".join(str(e).split())}')
        rc = 2
    except (KeyboardInterrupt, Terminated) as e:
        say_err(f'\ndcn_testbed: interrupted ({e or "Ctrl-C"})')
        rc = 130
    finally:
        if view:
            view.detach(tb)
            view.close()
        tb.stop()
        if a.json and report:
            report["events"] = tb.events
            with open(a.json, "w") as f:
                json.dump(report, f, indent=2)
    return rc


if __name__ == "__main__":
    sys.exit(main())
