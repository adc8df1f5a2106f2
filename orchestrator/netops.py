"""Low-level, batched network operations: `ip -batch` / `tc -batch`, entering
a host's network namespace, and turning veth offloads off by ioctl (one
ethtool process per interface is far too slow for thousands of ports)."""
from __future__ import annotations

import ctypes
import fcntl
import json
import os
import random
import socket
import struct
import subprocess
import time
from collections.abc import Iterable

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)

SIOCETHTOOL = 0x8946
# legacy ethtool "set" commands taking a struct ethtool_value {u32 cmd, data}
ETHTOOL_STXCSUM = 0x17
ETHTOOL_SSG = 0x19
ETHTOOL_STSO = 0x1f
ETHTOOL_SGSO = 0x24
ETHTOOL_SGRO = 0x2c


class NetnsError(OSError):
    pass


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise NetnsError(e, "setns: " + os.strerror(e))


class in_netns:
    """Context manager: run the calling thread inside the network namespace
    of process `pid` (None = stay where we are). Subprocesses started inside
    inherit it."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.home = None

    def __enter__(self):
        if self.pid is None:
            return self
        self.home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)  # this thread's, not the main one's
        target = os.open(f"/proc/{self.pid:d}/ns/net", os.O_RDONLY)
        try:
            _setns(target)
        finally:
            os.close(target)
        return self

    def __exit__(self, *exc):
        if self.home is not None:
            try:
                _setns(self.home)
            finally:
                os.close(self.home)
        return False


def run_batch(tool: str, lines: Iterable[str], pid: int | None = None, force: bool = True, check: bool = True) -> str:
    """Run `tool -batch -` (tool: "ip" or "tc") over `lines` on its stdin, in
    the netns of `pid`. With force, later lines still run after an error.
    No temporary file: a run killed meanwhile leaves nothing in /tmp."""
    if not lines:
        return ""
    cmd = [tool] + (["-force"] if force else []) + ["-batch", "-"]
    with in_netns(pid):
        r = subprocess.run(cmd, input="\n".join(lines) + "\n", stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{tool} -batch failed: {r.stderr.strip()[:800]}")
    return r.stderr


def _ethtool_set(sock, ifname, cmd, value):
    ev = ctypes.create_string_buffer(struct.pack("II", cmd, value))
    ifr = struct.pack("16sP", ifname.encode()[:15], ctypes.addressof(ev))
    fcntl.ioctl(sock.fileno(), SIOCETHTOOL, ifr)


def offloads_off(ifnames: Iterable[str], pid: int | None = None) -> list[str]:
    """tx checksum, scatter-gather, TSO, GSO and GRO off (what `ethtool -K
    IF tx off tso off gso off gro off` does) for interfaces in the netns of pid."""
    failed = []
    with in_netns(pid):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            for name in ifnames:
                # TSO depends on tx checksumming and SG; switch the dependants off first.
                for cmd in (ETHTOOL_STSO, ETHTOOL_SGSO, ETHTOOL_SGRO, ETHTOOL_STXCSUM):
                    try:
                        _ethtool_set(s, name, cmd, 0)
                    except OSError as e:
                        failed.append((name, cmd, e.errno))
        finally:
            s.close()
    return failed


def link_exists(name: str, pid: int | None = None) -> bool:
    """Whether interface `name` exists in the netns of pid (sysfs would show
    the mounting namespace, so ask the kernel through a socket instead)."""
    with in_netns(pid):
        try:
            socket.if_nametoindex(name)
            return True
        except OSError:
            return False


def new_device_group() -> int:
    """A device group number for one run's root-namespace interfaces (veth
    ends and Linux bridges), drawn at random so that no one else's devices
    are in it: `delete_group` then removes them all in one request."""
    return random.SystemRandom().randrange(1 << 16, 1 << 31)


def group_members(group: int) -> list | None:
    """Names of the root-namespace interfaces in device group `group`."""
    r = subprocess.run(["ip", "-j", "link", "show", "group", str(group)], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    if r.returncode != 0:
        return None
    try:  # iproute2 writes {} for each interface its filter left out
        return [d["ifname"] for d in json.loads(r.stdout or "[]") if d.get("ifname")]
    except (ValueError, TypeError, AttributeError):
        return None


def delete_group(group: int, ours: Iterable[str]) -> list[str]:
    """Delete every interface of device group `group` in one request: the
    kernel unregisters them as one batch, where `ip link del` one by one
    waits for an RCU grace period each (about 16 ms here; 8192 veth pairs:
    2.3-7.3 s against 2 minutes, tests/bench/tc_blocks.sh). Only when every
    member is one of `ours`: a stranger in the group (nothing of ours should
    have it, the number is random) leaves the group untouched. Returns the
    names deleted ([] when nothing was)."""
    if not group:
        return []
    members = group_members(group)
    if not members or not set(members) <= set(ours):
        return []
    r = subprocess.run(["ip", "link", "delete", "group", str(group)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return members if r.returncode == 0 else []


def root_links_with_prefix(prefix: str) -> list:
    try:
        return [n for n in os.listdir("/sys/class/net") if n.startswith(prefix)]
    except OSError:
        return []


SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1


def set_up(ifnames: Iterable[str], pid: int | None = None, up: bool = True) -> list[str]:
    """Bring interfaces up or down (ioctl, no process per interface).
    Returns the names that do not exist."""
    missing = []
    with in_netns(pid):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            for name in ifnames:
                try:
                    ifr = struct.pack("16sH14x", name.encode()[:15], 0)
                    flags = struct.unpack("16sH14x", fcntl.ioctl(s.fileno(), SIOCGIFFLAGS, ifr))[1]
                    flags = (flags | IFF_UP) if up else (flags & ~IFF_UP)
                    fcntl.ioctl(s.fileno(), SIOCSIFFLAGS, struct.pack("16sH14x", name.encode()[:15], flags))
                except OSError:
                    missing.append(name)
        finally:
            s.close()
    return missing


def write_sysctls(pairs: list[tuple[str, str]], pid: int | None = None) -> None:
    """Write /proc/sys files inside the netns of pid (/proc/sys/net follows the
    writing thread's namespace). pairs: [(path, value)]. Errors are ignored."""
    with in_netns(pid):
        for path, value in pairs:
            try:
                with open(path, "w") as f:
                    f.write(value)
            except OSError:
                pass


def operstate(ifname: str, pid: int | None = None) -> str:
    """'up' when the interface has carrier (reads flags by ioctl)."""
    IFF_RUNNING = 0x40
    with in_netns(pid):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            ifr = struct.pack("16sH14x", ifname.encode()[:15], 0)
            flags = struct.unpack("16sH14x", fcntl.ioctl(s.fileno(), SIOCGIFFLAGS, ifr))[1]
            return "up" if (flags & IFF_UP) and (flags & IFF_RUNNING) else "down"
        except OSError:
            return "absent"
        finally:
            s.close()


def wait_links_gone(names: list[str], timeout: float = 15.0) -> list[str]:
    """Wait while links keep disappearing (namespaces being destroyed remove
    their veths asynchronously); return those still present."""
    left = [n for n in names if link_exists(n)]
    deadline = time.time() + timeout
    last, still_since = len(left), time.time()
    while left and time.time() < deadline:
        time.sleep(0.1)
        left = [n for n in left if link_exists(n)]
        if len(left) < last:
            last, still_since = len(left), time.time()
        elif time.time() - still_since > 1.0:
            break  # nothing more is going away by itself
    return left


def stop_popens(procs: Iterable[subprocess.Popen], grace: float = 3.0) -> None:
    """Ends processes we started (Popen objects), by PID: SIGTERM to each
    one still running, then SIGKILL to any not gone after `grace` seconds."""
    for p in procs:
        if p.poll() is None:
            try:
                p.terminate()
            except ProcessLookupError:
                pass
    deadline = time.time() + grace
    for p in procs:
        try:
            p.wait(max(0.01, deadline - time.time()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
