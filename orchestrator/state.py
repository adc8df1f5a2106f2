"""The run's state file: written before anything is created and kept up to
date, so that `make clean-testbed` can remove what a killed run left behind.
Cleanup removes only what the file lists, and only names carrying the
project prefix; processes are matched by PID *and* start time, so a recycled
PID is never signalled."""
from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import stat
import time
from collections.abc import Callable, Iterable
from typing import IO

from . import netops, ovs, rcu
from .topology import BRIDGE_PREFIX

STATE_DIR = "/run/dcn-testbed"
STATE_FILE = os.path.join(STATE_DIR, "state.json")
AGENT_SOCK_DIR = "/run/dcn"
# Fault injection for tests/integration/test_cleanup_abuse.py: a run whose
# environment names a stage here kills itself with SIGKILL on reaching it.
KILL_AT_ENV = "DCN_KILL_AT"
CLK_TCK = os.sysconf("SC_CLK_TCK")


NETNS_LOCK = "/run/dcn-netns.lock"


def take_netns_lock(say: Callable[[str], None]) -> IO | None:
    """One testbed, experiment, namespace test or namespace bench at a time
    on the machine (they share OVS and the names): the lock file, held while
    it stays open, or None when the caller's caller holds it already
    (DCN_NETNS_LOCKED=1, as tests/integration/run.sh sets). say(text) tells
    that it waits."""
    if os.environ.get("DCN_NETNS_LOCKED"):
        return None
    f = open(NETNS_LOCK, "a")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        say(f"waiting for another testbed, experiment or namespace test to finish ({NETNS_LOCK})")
        fcntl.flock(f, fcntl.LOCK_EX)
    return f


def kill_point(stage: str) -> None:
    """A named point of the bring-up, an experiment or the teardown where a
    test can have the run SIGKILLed (DCN_KILL_AT=stage); nothing otherwise."""
    if os.environ.get(KILL_AT_ENV) == stage:
        os.kill(os.getpid(), signal.SIGKILL)


def socket_occupant(path: str) -> str | None:
    """What stops an agent from taking the control socket `path`: None when
    nothing is there or only a stale socket (nobody answers; the agent
    replaces it), else a short reason."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        return e.strerror
    if not stat.S_ISSOCK(st.st_mode):
        return "something that is not a socket is there"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        try:
            s.connect(path)
        except ConnectionRefusedError:
            return None
        except OSError as e:
            return f"{e.strerror} on connect"
    return "a live agent (or another program) answers there"


def remove_stale_socket(path: str) -> bool:
    """Unlink path only when it is a socket nobody answers on: never a file
    someone else put there, never a live agent's socket. True if removed."""
    if socket_occupant(path) is not None:
        return False
    try:
        os.unlink(path)
        return True
    except OSError:
        return False


def proc_cpu_s(pid: int, tid: int | None = None) -> float | None:
    """CPU time pid (or its thread tid) has used, user and system (fields
    14 and 15 of stat), in seconds; None when it is gone."""
    path = f"/proc/{pid:d}/stat" if tid is None else f"/proc/{pid:d}/task/{tid:d}/stat"
    try:
        with open(path) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return None


def box_cpu_times() -> tuple:
    """(total, idle + iowait, nice) jiffies of the whole box since boot, from
    /proc/stat (guest time is already inside user and nice)."""
    with open("/proc/stat") as f:
        parts = f.readline().split()
    vals = [int(x) for x in parts[1:9]]
    return sum(vals), vals[3] + vals[4], vals[1]


def proc_rss_kib(pid: int) -> int | None:
    """Resident set size of pid (VmRSS) in KiB; None when pid is None or
    gone."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid:d}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def proc_start_time(pid: int) -> int | None:
    """Start time of pid in clock ticks since boot (field 22 of stat), or
    None when it is gone or a zombie: a zombie holds no namespace and
    cannot be signalled, and the container's init may reap it late (a host
    shell whose orchestrator was SIGKILLed is one until then)."""
    try:
        with open(f"/proc/{pid:d}/stat") as f:
            data = f.read()
    except OSError:
        return None
    rest = data[data.rindex(")") + 2:].split()
    if rest[0] in ("Z", "X"):
        return None
    return int(rest[19])


def netns_of(pid: int) -> list | None:
    """Identity of pid's network namespace: [st_dev, st_ino] of its nsfs
    inode (what `ip netns identify` compares), or None."""
    try:
        st = os.stat(f"/proc/{pid:d}/ns/net")
    except OSError:
        return None
    return [st.st_dev, st.st_ino]


def netns_map() -> dict[tuple[int, int], list[int]]:
    """{(st_dev, st_ino): [pid, ...]}: every process by network namespace,
    from one pass over /proc (by namespace, never by name)."""
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            ns = netns_of(int(d))
            if ns:
                out.setdefault(tuple(ns), []).append(int(d))
    return out


def procs_in_netns(idents: Iterable, exclude: tuple = (), nsmap: dict | None = None) -> list[dict]:
    """proc_ref of every process whose network namespace is one of idents.
    The namespace of this process (the root one) is never matched, whatever
    idents say; nor are this process and the pids in exclude."""
    want = {tuple(i) for i in idents if i}
    home = netns_of(os.getpid())
    if home:
        want.discard(tuple(home))
    if not want:
        return []
    nsmap = netns_map() if nsmap is None else nsmap
    out = []
    for ident in want:
        for pid in nsmap.get(ident, ()):
            if pid == os.getpid() or pid in exclude:
                continue
            ref = proc_ref(pid, "process in a host namespace")
            if ref["start"] is not None:
                out.append(ref)
    return out


def stop_netns_processes(idents: Iterable, exclude: tuple = (), grace: float = 2.0) -> int:
    """End every process inside the given namespaces (SIGTERM, then SIGKILL),
    rescanning so that children forked meanwhile go too. Returns how many."""
    seen = set()
    for attempt in range(4):
        refs = procs_in_netns(idents, exclude)
        if not refs:
            break
        seen.update(r["pid"] for r in refs)
        stop_processes(refs, grace=grace if attempt == 0 else 0.5)
    return len(seen)


def proc_ref(pid: int, what: str) -> dict:
    return {"pid": pid, "start": proc_start_time(pid), "what": what}


def host_ref(pid: int, name: str, ifname: str | None = None) -> dict:
    """A host shell: its process, its namespace's identity and one interface
    that lives in that namespace (clean_from_state checks it before trusting
    a recorded identity whose shell is gone)."""
    r = proc_ref(pid, "host " + name)
    r["netns"] = netns_of(pid)
    r["ifname"] = ifname
    return r


def recorded_netns_still_ours(ref: dict, nsmap: dict) -> list[int] | None:
    """The namespace identity of a dead run's host if it is still the run's:
    the shell still lives (it holds its namespace), or a process sits in a
    namespace of that identity that still holds the host's own recorded
    interface (a namespace whose shell died but a daemon keeps)."""
    if not ref.get("netns"):
        return None
    if same_process(ref):
        ns = netns_of(ref["pid"])
        if ns:
            return ns
    pids = nsmap.get(tuple(ref["netns"]))
    if pids and ref.get("ifname") and netops.link_exists(ref["ifname"], pids[0]):
        return ref["netns"]
    return None


def same_process(ref: dict) -> bool:
    st = proc_start_time(ref["pid"])
    return st is not None and st == ref.get("start")


class State:
    def __init__(self, path: str = STATE_FILE) -> None:
        self.path = path
        self.data = {"owner": proc_ref(os.getpid(), "orchestrator"), "created": time.time(),
                     "spec": None, "switch": None, "bridges": [], "root_links": [],
                     "hosts": [], "procs": [], "sockets": []}

    def save(self) -> None:
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.data, f)
        os.replace(tmp, self.path)

    def add_proc(self, pid: int, what: str, save: bool = True) -> None:
        self.data["procs"].append(proc_ref(pid, what))
        if save:
            self.save()

    def drop_proc(self, pid: int, save: bool = True) -> None:
        self.data["procs"] = [p for p in self.data["procs"] if p["pid"] != pid]
        if save:
            self.save()

    def remove(self) -> None:
        for p in (self.path, self.path + ".tmp"):
            try:
                os.unlink(p)
            except FileNotFoundError:
                pass


def load(path: str = STATE_FILE) -> dict | None:
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return None
    except ValueError:
        return {"corrupt": True}


def owner_alive(data: dict) -> bool:
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


def stop_processes(refs: Iterable[dict], grace: float = 3.0) -> int:
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
        with open(f"/proc/{pid:d}/stat") as f:
            data = f.read()
        return data[data.rindex(")") + 2] == "Z"
    except OSError:
        return True


def delete_switch_side(data: dict) -> dict:
    """The run's switches, and the switch side of every link in one request
    (`netops.delete_group`; the hosts' ends go with them): Linux bridges with
    their ports; OVS bridges first, then their ports once OVS has let go of
    them. What is not in the group is deleted by name. Used by the teardown
    and by the clean of a dead run. Returns {"bridges": n, "links": n}."""
    bridges = [b for b in data.get("bridges", []) if b.startswith(BRIDGE_PREFIX)]
    ours = bridges + [n for n in data.get("root_links", []) if n.startswith(BRIDGE_PREFIX)]
    if data.get("switch") == "lxbr":
        gone = set(netops.delete_group(data.get("dev_group"), ours))
        left = [b for b in bridges if b not in gone and netops.link_exists(b)]
        netops.run_batch("ip", [f"link del dev {b}" for b in left], check=False)
        n_bridges = len(left) + len(gone & set(bridges))
    else:
        n_bridges = ovs.del_bridges(bridges)
        gone = set(netops.delete_group(data.get("dev_group"), ours))
        # a netdev bridge's internal port is a tap device vswitchd removes;
        # taps outlive a killed ovs-vswitchd: remove the ones named after our bridges
        taps = [b for b in bridges if netops.link_exists(b)]
        netops.run_batch("ip", [f"link del dev {b}" for b in taps], check=False)
        n_bridges = max(n_bridges, len(taps))
    return {"bridges": n_bridges, "links": len(gone - set(bridges))}


def restore_ovs_forwarder(data: dict) -> bool:
    """Give ovs-vswitchd's main thread back the scheduling policy the run
    recorded before raising it (`ovs_forwarder`), if it is the same process
    and still has the policy the run set. True when restored."""
    ref = data.get("ovs_forwarder")
    if not ref or not same_process(ref):
        return False
    return ovs.restore_forwarder(ref["pid"], ref["policy"], ref["priority"])


def ovs_daemon_refs(names: list[str]) -> list:
    """proc_ref of each OVS daemon named (ovsdb-server, ovs-vswitchd) that
    has a pid file: what `ovs_started` records of the daemons a run started."""
    return [proc_ref(pid, n) for n in names if (pid := ovs.daemon_pid(n)) is not None]


def stop_ovs_started(data: dict, log: Callable[[str], None] = print) -> int:
    """Stop the OVS daemons the run started (`ovs_started`: ovs-vswitchd,
    then ovsdb-server), by PID and only the same processes, once no bridge
    is left on them: a bridge someone else made meanwhile keeps them
    running. Returns how many were stopped."""
    refs = [r for r in data.get("ovs_started", []) if same_process(r)]
    if not refs:
        return 0
    others = ovs.list_bridges()
    if others:
        log(f'*** Open vSwitch left running: {len(others)} bridge(s) on it are not this run\'s ({" ".join(others[:3])})')
        return 0
    order = {"ovs-vswitchd": 0, "ovsdb-server": 1}
    refs.sort(key=lambda r: order.get(r["what"], 2))
    for r in refs:
        stop_processes([r], grace=5.0)
    log("*** stopped " + ", ".join(r["what"] for r in refs) + " (started by this run)")
    return len(refs)


def clean_from_state(data: dict, log: Callable[[str], None] = print) -> dict:
    """Remove what a (dead) run recorded. Returns a summary dict."""
    summary = {"procs": 0, "bridges": 0, "links": 0, "hosts": 0, "sockets": 0}
    if not data or data.get("corrupt"):
        return summary
    procs = [p for p in data.get("procs", []) if same_process(p)]
    # --cluster: this machine's ssh masters to the others (what a dead run
    # left on those machines is named in docs/cluster.md, "Limits")
    procs += [p for p in data.get("cluster", {}).get("masters", []) if same_process(p)]
    summary["procs"] = len(procs)
    stop_processes(procs)
    kill_point("clean-procs")
    # processes left inside the hosts' namespaces (daemons started from the
    # CLI), found by namespace identity (which the hosts' ports still
    # prove), before the ports and the shells go
    nsmap = netns_map()
    idents = [i for i in (recorded_netns_still_ours(h, nsmap) for h in data.get("hosts", [])) if i]
    summary["procs"] += stop_netns_processes(idents, exclude={h["pid"] for h in data.get("hosts", [])})
    summary.update(delete_switch_side(data))
    restore_ovs_forwarder(data)
    summary["procs"] += stop_ovs_started(data, log)
    if data.get("rcu_expedited"):  # a run killed while its agents started or stopped
        rcu.restore(data["rcu_expedited"].get("before"))
    kill_point("clean-bridges")
    hosts = [h for h in data.get("hosts", []) if same_process(h)]
    for h in hosts:
        try:
            os.kill(h["pid"], signal.SIGKILL)
        except ProcessLookupError:
            pass
    summary["hosts"] = len(hosts)
    kill_point("clean-hosts")
    # namespaces die asynchronously once their last process is gone
    deadline = time.time() + 10
    while time.time() < deadline and any(same_process(h) for h in hosts):
        time.sleep(0.05)
    # root-namespace veth ends (switch ports): deleting one end removes the pair
    rl = netops.wait_links_gone([n for n in data.get("root_links", []) if n.startswith(BRIDGE_PREFIX)])
    netops.run_batch("ip", [f"link del dev {n}" for n in rl], check=False)
    summary["links"] += len(rl)
    kill_point("clean-links")
    for s in data.get("sockets", []):
        if os.path.dirname(s) == AGENT_SOCK_DIR and os.path.lexists(s) and remove_stale_socket(s):
            summary["sockets"] += 1
    return summary


def clean_stale(path: str = STATE_FILE, log: Callable[[str], None] = print) -> int:
    """`make clean-testbed`: clean what a dead run left; refuse while its
    owner still runs (that run cleans up itself on exit)."""
    data = load(path)
    if data is None:
        try:  # a run killed inside its first save() had created nothing yet
            os.unlink(path + ".tmp")
        except FileNotFoundError:
            pass
        log(f"clean-testbed: no state file ({path}); nothing to clean")
        return 0
    if data.get("corrupt"):
        log(f"clean-testbed: state file {path} is unreadable; remove it by hand after checking")
        return 1
    if owner_alive(data):
        log(f'clean-testbed: the testbed run (pid {data["owner"]["pid"]:d}) is still running; stop it first')
        return 1
    s = clean_from_state(data, log)
    cl = data.get("cluster")
    if cl:  # --cluster: the other machines' part is theirs to remove (docs/cluster.md, "Limits")
        cdir = os.path.join(STATE_DIR, "cluster")  # the ssh control and forwarded sockets here
        if os.path.dirname(path) == STATE_DIR and os.path.isdir(cdir):
            for root, _dirs, files in os.walk(cdir, topdown=False):
                for f in files:
                    if stat.S_ISSOCK(os.lstat(os.path.join(root, f)).st_mode):
                        os.unlink(os.path.join(root, f))
                try:
                    os.rmdir(root)
                except OSError:
                    pass
        log("clean-testbed: a --cluster run: its ssh connections are closed (the hosts there hang up with them); "
            "its bridges and links on %s stay: `sudo ip link delete group %s` there removes them" % (
                ", ".join(m for m in cl.get("machines", []) if m != "localhost"), cl.get("group")))
    for p in (path, path + ".tmp"):  # .tmp: a run killed inside save()
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass
    log("clean-testbed: stopped %(procs)d processes, removed %(bridges)d bridges, "
        "%(links)d veth pairs, %(hosts)d host namespaces, %(sockets)d stale sockets" % s)
    return 0
