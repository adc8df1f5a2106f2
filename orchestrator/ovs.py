"""Open vSwitch daemons, datapath choice and batched bridge operations.

The daemons are shared machine infrastructure: we start them when they are
not running, and a run stops again only the daemons it started, by PID, once
no bridge is left on them (BringUp records them in the state file as
`ovs_started`; state.stop_ovs_started). Daemons found running are left
alone; only the bridges this run created are ever removed."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence

RUN_DIR = "/var/run/openvswitch"
DB_SOCK = os.path.join(RUN_DIR, "db.sock")
DB_FILE = "/etc/openvswitch/conf.db"
SCHEMA = "/usr/share/openvswitch/vswitch.ovsschema"


def pidfile_pid(pidfile: str) -> int | None:
    """The pid in an OVS pid file, or None."""
    try:
        with open(pidfile) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def _pid_alive(pidfile):
    pid = pidfile_pid(pidfile)
    try:
        if pid is not None:
            os.kill(pid, 0)
            return True
    except OSError:
        pass
    return False


def vswitchd_pid() -> int | None:
    return pidfile_pid(os.path.join(RUN_DIR, "ovs-vswitchd.pid"))


def daemon_pid(name: str) -> int | None:
    """The pid of ovsdb-server or ovs-vswitchd from its pid file, or None."""
    return pidfile_pid(os.path.join(RUN_DIR, name + ".pid"))


def db_running() -> bool:
    return _pid_alive(os.path.join(RUN_DIR, "ovsdb-server.pid"))


def vswitchd_running() -> bool:
    return _pid_alive(os.path.join(RUN_DIR, "ovs-vswitchd.pid"))


def ensure_running(log: Callable[[str], None] = print) -> list[str]:
    """Start ovsdb-server and ovs-vswitchd if they are not running."""
    if not shutil.which("ovs-vsctl"):
        raise RuntimeError("openvswitch-switch is not installed (sudo make deps)")
    os.makedirs(RUN_DIR, exist_ok=True)
    os.makedirs("/var/log/openvswitch", exist_ok=True)
    started = []
    if not _pid_alive(os.path.join(RUN_DIR, "ovsdb-server.pid")):
        if not os.path.exists(DB_FILE):
            os.makedirs(os.path.dirname(DB_FILE), exist_ok=True)
            subprocess.run(["ovsdb-tool", "create", DB_FILE, SCHEMA], check=True)
        subprocess.run(["ovsdb-server", DB_FILE, "--remote=punix:" + DB_SOCK,
                        "--remote=db:Open_vSwitch,Open_vSwitch,manager_options",
                        "--pidfile", "--detach", "--log-file"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["ovs-vsctl", "--no-wait", "init"], check=True)
        started.append("ovsdb-server")
    if not _pid_alive(os.path.join(RUN_DIR, "ovs-vswitchd.pid")):
        subprocess.run(["ovs-vswitchd", "unix:" + DB_SOCK, "--pidfile", "--detach",
                        "--log-file"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        started.append("ovs-vswitchd")
    if started:
        log("*** started " + ", ".join(started) + " (stopped again at teardown unless other bridges use it)")
    for _ in range(100):
        if subprocess.run(["ovs-vsctl", "--timeout=2", "show"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0:
            return started
        time.sleep(0.1)
    raise RuntimeError("ovs-vsctl cannot reach ovsdb-server")


# ovs-vswitchd's memory per AF_XDP port (its packet buffers, UMEM), measured
# here: 2.46 GB of RSS with the 32 ports of BCube_1 n=4, against 69 MB with
# none. With 256 servers (1024 ports) it grew past 23 GB and the kernel's
# OOM killer ended it (docs/testbed.md).
AFXDP_MIB_PER_PORT = 80
# the share of the box's available memory AF_XDP ports may take
AFXDP_MEM_SHARE = 0.6


# The most switch ports an OVS userspace-datapath run has been seen to carry
# the smoke check with here at full rate (BCube_2 n=4). At 1024, one thread
# forwarding for every port answers the pings only at real-time priority,
# and carries a relayed TCP connection at well under 1 Mb/s (docs/testbed.md,
# "Why OVS failed at 256 servers").
NETDEV_PORTS_SEEN_OK = 192


def mem_available_kib() -> int:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1])
    return 0


def afxdp_memory_problem(ports: int, available_kib: int) -> str | None:
    """Why `ports` AF_XDP ports do not fit in `available_kib` (a one-line
    reason), or None when they do."""
    need_mib = ports * AFXDP_MIB_PER_PORT
    if need_mib * 1024 <= available_kib * AFXDP_MEM_SHARE:
        return None
    return (f"{ports:d} AF_XDP ports need about {need_mib / 1024.0:.1f} GiB in ovs-vswitchd ({AFXDP_MIB_PER_PORT:d} "
            f"MiB each), more than {int(AFXDP_MEM_SHARE * 100)}% of the "
            f"{available_kib / 1048576.0:.1f} GiB available")


def kernel_datapath_available() -> bool:
    """True when the openvswitch kernel module is loaded or loadable."""
    if os.path.isdir("/sys/module/openvswitch"):
        return True
    if shutil.which("modprobe"):
        r = subprocess.run(["modprobe", "-q", "openvswitch"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        return r.returncode == 0 and os.path.isdir("/sys/module/openvswitch")
    return False


def vsctl_batch(args_list: Sequence[list[str]], chunk: int = 256, timeout: float = 600, wait: bool = True) -> None:
    """Run many ovs-vsctl commands, `chunk` per transaction. wait=False:
    the database alone (--no-wait), for when ovs-vswitchd is not running."""
    for i in range(0, len(args_list), chunk):
        cmd = ["ovs-vsctl", f"--timeout={int(timeout)}"] + ([] if wait else ["--no-wait"])
        for args in args_list[i:i + chunk]:
            cmd += ["--"] + list(args)
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise RuntimeError("ovs-vsctl failed: " + r.stderr.strip()[:500])


def bridges_in_db() -> list[str] | None:
    """The bridges in OVS's database, or None when it cannot be read (no
    ovsdb-server running, or ovs-vsctl failed)."""
    if not db_running():
        return None
    r = subprocess.run(["ovs-vsctl", "--no-wait", "--timeout=10", "list-br"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return r.stdout.split() if r.returncode == 0 else None


def list_bridges() -> list[str]:
    """The bridges in OVS's database; [] when there is none to read."""
    return bridges_in_db() or []


def add_bridge_cmds(name: str, datapath: str, ports: list[str], stp: bool = False,
                    port_type: str | None = None) -> list[list[str]]:
    """Commands for a dumb learning switch: standalone, no controller, no STP
    (STP only when the switches alone form loops)."""
    cmds = [["--may-exist", "add-br", name],
            ["set", "bridge", name, "datapath_type=" + datapath, "fail_mode=standalone",
             f'stp_enable={"true" if stp else "false"}', "rstp_enable=false",
             "other_config:mac-aging-time=300"]]
    if stp:
        cmds.append(["set", "bridge", name, "other_config:stp-forward-delay=4",
                     "other_config:stp-max-age=6", "other_config:stp-hello-time=1"])
    for p in ports:
        cmds.append(["--may-exist", "add-port", name, p])
        if port_type:
            cmds.append(["set", "interface", p, "type=" + port_type])
    return cmds


def del_bridges(names: list[str]) -> int:
    """Delete the bridges `names` (the caller's own); returns how many were
    asked for. The database is what counts: with ovs-vswitchd gone (seen:
    OOM-killed while adding AF_XDP ports) they are deleted from it alone
    (--no-wait), since a bridge left there comes back with the next
    ovs-vswitchd. When the database cannot be listed, every name is asked
    for (--if-exists)."""
    if not names or not db_running():
        return 0
    present = bridges_in_db()
    todo = [n for n in names if present is None or n in present]
    if todo:
        vsctl_batch([["--if-exists", "del-br", n] for n in todo], chunk=512, wait=vswitchd_running())
    return len(todo)


# The userspace (netdev) datapath forwards every non-PMD port (every veth)
# in ovs-vswitchd's main thread. On a box shared with hundreds of agents,
# each frame it sends wakes the agent behind that port, which preempts it
# (docs/testbed.md, "Why OVS failed at 256 servers"); a run raises that one
# thread to the lowest real-time priority, so that it forwards until it has
# nothing left and then sleeps, and gives it back its policy at teardown.
FORWARDER_POLICY = os.SCHED_RR
FORWARDER_PRIORITY = 1
_POLICY_NAMES = {os.SCHED_OTHER: "SCHED_OTHER", os.SCHED_FIFO: "SCHED_FIFO", os.SCHED_RR: "SCHED_RR",
                 os.SCHED_BATCH: "SCHED_BATCH", os.SCHED_IDLE: "SCHED_IDLE"}


def policy_name(policy: int) -> str:
    return _POLICY_NAMES.get(policy, str(policy))


def thread_sched(tid: int) -> tuple | None:
    """(policy, priority) of thread tid, or None when it is gone."""
    try:
        return os.sched_getscheduler(tid), os.sched_getparam(tid).sched_priority
    except OSError:
        return None


def raise_forwarder(pid: int) -> str | None:
    """Put ovs-vswitchd's main thread (tid == pid) at FORWARDER_POLICY and
    FORWARDER_PRIORITY. Returns None, or a one-line reason when it cannot be
    done (the caller warns and goes on at the normal priority)."""
    try:
        os.sched_setscheduler(pid, FORWARDER_POLICY, os.sched_param(FORWARDER_PRIORITY))
    except OSError as e:
        return (f"cannot set {policy_name(FORWARDER_POLICY)} {FORWARDER_PRIORITY:d} on ovs-vswitchd (pid {pid:d}): "
                f"{e.strerror}")
    return None


def restore_forwarder(pid: int, policy: int, priority: int) -> bool:
    """Give the thread back the policy it had, if it still has the one a run
    set (someone else may have changed it since). True when restored."""
    if thread_sched(pid) != (FORWARDER_POLICY, FORWARDER_PRIORITY):
        return False
    try:
        os.sched_setscheduler(pid, policy, os.sched_param(priority))
    except OSError:
        return False
    return True
