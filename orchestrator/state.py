"""The run's state file: written before anything is created and kept up to
date, so that `make clean-testbed` can remove what a killed run left behind.
Cleanup removes only what the file lists, and only names carrying the
project prefix; processes are matched by PID *and* start time, so a recycled
PID is never signalled."""
import json
import os
import signal
import time

from . import netops, ovs
from .topology import BRIDGE_PREFIX

STATE_DIR = "/run/dcn-testbed"
STATE_FILE = os.path.join(STATE_DIR, "state.json")
AGENT_SOCK_DIR = "/run/dcn"


def proc_start_time(pid):
    """Start time of pid in clock ticks since boot (field 22 of stat), or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            data = f.read()
    except OSError:
        return None
    rest = data[data.rindex(")") + 2:].split()
    return int(rest[19])


def proc_ref(pid, what):
    return {"pid": pid, "start": proc_start_time(pid), "what": what}


def same_process(ref):
    st = proc_start_time(ref["pid"])
    return st is not None and st == ref.get("start")


class State:
    def __init__(self, path=STATE_FILE):
        self.path = path
        self.data = {"owner": proc_ref(os.getpid(), "orchestrator"), "created": time.time(),
                     "spec": None, "switch": None, "bridges": [], "root_links": [],
                     "hosts": [], "procs": [], "sockets": []}

    def save(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.data, f)
        os.replace(tmp, self.path)

    def add_proc(self, pid, what, save=True):
        self.data["procs"].append(proc_ref(pid, what))
        if save:
            self.save()

    def drop_proc(self, pid, save=True):
        self.data["procs"] = [p for p in self.data["procs"] if p["pid"] != pid]
        if save:
            self.save()

    def remove(self):
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def load(path=STATE_FILE):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return None
    except ValueError:
        return {"corrupt": True}


def owner_alive(data):
    o = data.get("owner")
    return bool(o) and same_process(o)


def _signal_all(refs, sig):
    alive = []
    for r in refs:
        if same_process(r):
            try:
                os.kill(r["pid"], sig)
                alive.append(r)
            except ProcessLookupError:
                pass
    return alive


def stop_processes(refs, grace=3.0):
    """SIGTERM, wait up to grace seconds, then SIGKILL; only exact matches."""
    alive = _signal_all(refs, signal.SIGTERM)
    deadline = time.time() + grace
    while alive and time.time() < deadline:
        time.sleep(0.05)
        alive = [r for r in alive if same_process(r) and not _is_zombie(r["pid"])]
    _signal_all(alive, signal.SIGKILL)
    return len(alive)


def _is_zombie(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            data = f.read()
        return data[data.rindex(")") + 2] == "Z"
    except OSError:
        return True


def clean_from_state(data, log=print):
    """Remove what a (dead) run recorded. Returns a summary dict."""
    summary = {"procs": 0, "bridges": 0, "links": 0, "hosts": 0, "sockets": 0}
    if not data or data.get("corrupt"):
        return summary
    procs = [p for p in data.get("procs", []) if same_process(p)]
    summary["procs"] = len(procs)
    stop_processes(procs)
    bridges = [b for b in data.get("bridges", []) if b.startswith(BRIDGE_PREFIX)]
    if data.get("switch") == "lxbr":
        links = [b for b in bridges if netops.link_exists(b)]
        netops.run_batch("ip", ["link del dev %s" % b for b in links], check=False)
        summary["bridges"] = len(links)
    else:
        if bridges and ovs.daemons_running():
            summary["bridges"] = ovs.del_bridges(bridges)
        # netdev internal ports (taps) outlive a killed ovs-vswitchd
        taps = [b for b in bridges if netops.link_exists(b)]
        netops.run_batch("ip", ["link del dev %s" % b for b in taps], check=False)
        summary["bridges"] = max(summary["bridges"], len(taps))
    hosts = [h for h in data.get("hosts", []) if same_process(h)]
    for h in hosts:
        try:
            os.kill(h["pid"], signal.SIGKILL)
        except ProcessLookupError:
            pass
    summary["hosts"] = len(hosts)
    # namespaces die asynchronously once their last process is gone
    deadline = time.time() + 10
    while time.time() < deadline and any(same_process(h) for h in hosts):
        time.sleep(0.05)
    # root-namespace veth ends (switch ports): deleting one end removes the pair
    rl = netops.wait_links_gone([n for n in data.get("root_links", []) if n.startswith(BRIDGE_PREFIX)])
    netops.run_batch("ip", ["link del dev %s" % n for n in rl], check=False)
    summary["links"] = len(rl)
    for s in data.get("sockets", []):
        if os.path.dirname(s) == AGENT_SOCK_DIR and os.path.exists(s):
            try:
                os.unlink(s)
                summary["sockets"] += 1
            except OSError:
                pass
    return summary


def clean_stale(path=STATE_FILE, log=print):
    """`make clean-testbed`: clean what a dead run left; refuse while its
    owner still runs (that run cleans up itself on exit)."""
    data = load(path)
    if data is None:
        log("clean-testbed: no state file (%s); nothing to clean" % path)
        return 0
    if data.get("corrupt"):
        log("clean-testbed: state file %s is unreadable; remove it by hand after checking" % path)
        return 1
    if owner_alive(data):
        log("clean-testbed: the testbed run (pid %d) is still running; stop it first"
            % data["owner"]["pid"])
        return 1
    s = clean_from_state(data, log)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    log("clean-testbed: stopped %(procs)d processes, removed %(bridges)d bridges, "
        "%(links)d veth pairs, %(hosts)d host namespaces, %(sockets)d stale sockets" % s)
    return 0
