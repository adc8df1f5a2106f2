"""Helpers shared by the integration tests and the benchmarks (moved here
from orchestrator/: nothing outside tests/ imports them)."""
import os
import re
import shlex
import subprocess

from orchestrator import netops, ovs, rcu, state
from orchestrator.topology import BRIDGE_PREFIX, tool_path

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def repo_head():
    """(short commit of the checkout, whether tracked code differs from it),
    for a benchmark's summary. Only code can move a result: results/,
    docs/ and Markdown pages are left out, as in the experiments'
    git_commit()."""
    def git(*args):
        return subprocess.run(["git", "-C", REPO] + list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True).stdout.strip()
    return git("rev-parse", "--short", "HEAD"), bool(git("status", "--porcelain", "--untracked-files=no", "--",
                                                           ".", ":!results", ":!docs", ":!*.md"))


def build_dir():
    return os.environ.get("DCN_BUILD_DIR") or os.path.join(REPO, "build")


def families(bdir):
    exe = tool_path(bdir, "dcn-topo")
    if not exe:
        return set()
    r = subprocess.run([exe, "families"], stdout=subprocess.PIPE, text=True)
    return {line.split()[0] for line in r.stdout.splitlines() if line and not line[0].isspace()}


def spec_valid(bdir, spec):
    exe = tool_path(bdir, "dcn-topo")
    r = subprocess.run([exe, "stats"] + shlex.split(spec), stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    return r.returncode == 0, r.stderr.strip()


def agent_built(bdir):
    return bool(tool_path(bdir, "dcn-agent") and tool_path(bdir, "dcn-ctl"))


def leftovers_of_state(data):
    """What a run's state data still has on the machine."""
    out = {}
    out["procs"] = [p for p in data.get("procs", []) if state.same_process(p)]
    out["hosts"] = [h for h in data.get("hosts", []) if state.same_process(h)]
    brs = set(ovs.list_bridges())
    out["bridges"] = [b for b in data.get("bridges", []) if b in brs or netops.link_exists(b)]
    out["links"] = [n for n in data.get("root_links", []) if netops.link_exists(n)]
    out["sockets"] = [s for s in data.get("sockets", []) if os.path.exists(s)]
    # processes in a namespace of the run's hosts (a daemon keeps it alive)
    out["netns_procs"] = state.procs_in_netns([h.get("netns") for h in data.get("hosts", [])])
    return {k: v for k, v in out.items() if v}


def project_bridges():
    brs = ovs.list_bridges()
    lx = netops.root_links_with_prefix(BRIDGE_PREFIX)
    return sorted(set(b for b in brs if b.startswith(BRIDGE_PREFIX)) | set(lx))


# ------------------------------------------------- machine-wide inventory
# What a testbed run or a failed command could leave, found on the whole
# machine, not from a state file (tests/integration/test_cleanup_abuse.py
# and test_bad_config.py compare one taken before with one taken after).
WATCHED_CMDS = ("dcn-agent", "dcn-ctl", "iperf3", "mnexec", "dcn-relay", "mininet:")


def _cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _files(d, skip=()):
    try:
        return {os.path.join(d, n) for n in os.listdir(d) if n not in skip}
    except OSError:
        return set()


def inventory():
    """Interfaces and bridges of the root namespace, OVS bridges, named
    namespaces, every network namespace a process holds, the project's
    processes (agents, iperf3, Mininet shells; any process outside the root
    namespace), the files under /run/dcn (control sockets) and
    /run/dcn-testbed (state file, pidfiles; not the logs), and the ip/tc
    batch files the orchestrator once wrote to /tmp; /sys/kernel/rcu_expedited."""
    import socket
    home = tuple(state.netns_of(os.getpid()))
    nsmap = state.netns_map()
    procs = set()
    for ident, pids in nsmap.items():
        for pid in pids:
            cmd = _cmdline(pid)
            if ident != home or any(w in cmd for w in WATCHED_CMDS):
                st = state.proc_start_time(pid)  # None: gone or a zombie
                if st is not None:
                    procs.add((pid, st, cmd[:80]))
    return {
        "links": {n for _, n in socket.if_nameindex()},
        "ovs_bridges": set(ovs.list_bridges()),
        "named_netns": _files("/run/netns"),
        "netns": {i for i, pids in nsmap.items() if any(state.proc_start_time(p) for p in pids)} - {home},
        "procs": procs,
        # the kernel settings a run changes for a while (orchestrator/rcu.py)
        "kernel_knobs": {("rcu_expedited", rcu.read())},
        "files": (_files(state.AGENT_SOCK_DIR) | _files(state.STATE_DIR, skip=("logs", "events.log"))
                  | {p for p in _files("/tmp") if os.path.basename(p).startswith(("dcn-ip-", "dcn-tc-"))}),
    }


def new_since(before, after):
    """What after has that before had not, by kind (empty: nothing new)."""
    return {k: sorted(map(str, after[k] - before[k])) for k in after if after[k] - before[k]}


def settled_inventory(before, timeout=5.0):
    """The inventory once nothing new is still going away (a namespace dies
    asynchronously after its last process), or after timeout seconds."""
    import time
    deadline = time.time() + timeout
    while True:
        now = inventory()
        if not new_since(before, now) or time.time() > deadline:
            return now
        time.sleep(0.2)


# AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer reports, and
# the agents' system-call filter refusing a call (a call missing from its
# allow-list, agent/src/agent/os/syscall_filter.h), as the shell tests match
# them (tests/integration/agent_netns_lib.sh)
SANITIZER_REPORT = re.compile(rb"ERROR: (Address|Leak)Sanitizer|runtime error:|system call [0-9]+ denied")


def log_sizes(logs=None):
    """{path: size} of the testbed's process logs (RUN_DIR/logs: each agent's
    .stderr and .log), the mark that sanitizer_reports() reads on from."""
    logs = logs or os.path.join(state.STATE_DIR, "logs")
    try:
        names = os.listdir(logs)
    except FileNotFoundError:
        return {}
    out = {}
    for n in names:
        p = os.path.join(logs, n)
        try:
            out[p] = os.path.getsize(p)
        except OSError:
            pass
    return out


def sanitizer_reports(since, logs=None, context=12):
    """[(log, excerpt)] for every sanitizer report written to the testbed's
    logs after the mark `since` (from log_sizes()): a sanitized agent (make
    test runs build-test's) writes its reports to its .stderr, a leak at its
    exit after SIGTERM included."""
    found = []
    for p, size in sorted(log_sizes(logs).items()):
        start = since.get(p, 0)
        if size <= start:
            continue
        with open(p, "rb") as f:
            f.seek(start)
            new = f.read()
        m = SANITIZER_REPORT.search(new)
        if m:
            lines = new[m.start():].decode("utf-8", "replace").splitlines()
            found.append((p, "\n".join(lines[:context])))
    return found
