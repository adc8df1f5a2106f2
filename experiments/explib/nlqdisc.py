"""The root qdisc counters of a network namespace's interfaces by one
rtnetlink dump (RTM_GETQDISC) on a socket opened in that namespace once:
what `tc -s -j qdisc show` prints of them (bytes and packets sent, bytes
queued, drops, overlimits), without starting a process per namespace and
per sample. The queue sampler reads every switch port and every server
port this way, and the runs' drop totals (tcpstats.qdisc_totals) too."""
from __future__ import annotations

import socket
import struct
from collections.abc import Iterator

from orchestrator.netops import in_netns

NETLINK_ROUTE = 0
RTM_GETLINK, RTM_NEWLINK = 18, 16
RTM_GETQDISC, RTM_NEWQDISC = 38, 36
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
TC_H_ROOT = 0xFFFFFFFF
IFLA_IFNAME = 3
TCA_KIND, TCA_STATS2 = 1, 7
TCA_STATS_BASIC, TCA_STATS_QUEUE = 1, 3

_NLMSG = struct.Struct("=IHHII")     # len, type, flags, seq, pid
_IFINFO = struct.Struct("=BxHiII")   # family, type, index, flags, change
_TCMSG = struct.Struct("=BxxxiIII")  # family, ifindex, handle, parent, info
_RTA = struct.Struct("=HH")          # len, type


def _align(n):
    return (n + 3) & ~3


def attrs(buf: bytes, off: int, end: int) -> dict:
    """{type: payload bytes} of the rtattrs in buf[off:end] (the first of a
    type wins; the nested flag bits are masked off)."""
    out = {}
    while off + _RTA.size <= end:
        ln, typ = _RTA.unpack_from(buf, off)
        if ln < _RTA.size or off + ln > end:
            break
        out.setdefault(typ & 0x3FFF, bytes(buf[off + _RTA.size:off + ln]))
        off += _align(ln)
    return out


def messages(buf: bytes) -> Iterator[tuple]:
    """(type, payload) of each netlink message in buf."""
    off = 0
    while off + _NLMSG.size <= len(buf):
        ln, typ, _flags, _seq, _pid = _NLMSG.unpack_from(buf, off)
        if ln < _NLMSG.size or off + ln > len(buf):
            break
        yield typ, memoryview(buf)[off + _NLMSG.size:off + ln]
        off += _align(ln)


def root_qdisc(payload: memoryview) -> tuple | None:
    """(ifindex, kind, bytes sent, bytes queued) of an RTM_NEWQDISC payload
    for a root qdisc, or None for any other qdisc."""
    q = root_qdisc_counters(payload)
    return None if q is None else (q["ifindex"], q["kind"], q["bytes"], q["backlog"])


def root_qdisc_counters(payload: memoryview) -> dict | None:
    """{ifindex, kind, bytes, packets, backlog, drops, overlimits} of an
    RTM_NEWQDISC payload for a root qdisc (a counter the message lacks is
    None), or None for any other qdisc."""
    if len(payload) < _TCMSG.size:
        return None
    _fam, ifindex, _handle, parent, _info = _TCMSG.unpack_from(payload, 0)
    if parent != TC_H_ROOT:
        return None
    a = attrs(payload, _TCMSG.size, len(payload))
    kind = a.get(TCA_KIND, b"").split(b"\0", 1)[0].decode(errors="replace")
    st = attrs(a.get(TCA_STATS2, b""), 0, len(a.get(TCA_STATS2, b"")))
    basic, queue = st.get(TCA_STATS_BASIC, b""), st.get(TCA_STATS_QUEUE, b"")
    sent, packets = struct.unpack_from("=QI", basic) if len(basic) >= 12 else (None, None)
    # gnet_stats_queue: qlen, backlog, drops, requeues, overlimits
    _qlen, backlog, drops, _requeues, overlimits = struct.unpack_from("=IIIII", queue) if len(queue) >= 20 \
        else (None,) * 5
    return {"ifindex": ifindex, "kind": kind, "bytes": sent, "packets": packets, "backlog": backlog,
            "drops": drops, "overlimits": overlimits}


class QdiscReader:
    """Root qdisc counters of one namespace (that of process pid; None: this
    process's), on a socket made there at construction."""

    def __init__(self, pid: int | None = None) -> None:
        with in_netns(pid):
            self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW | socket.SOCK_CLOEXEC, NETLINK_ROUTE)
        self.sock.bind((0, 0))
        self.seq = 0
        self.names = {}

    def close(self) -> None:
        self.sock.close()

    def _dump(self, rtm, body):
        self.seq += 1
        msg = _NLMSG.pack(_NLMSG.size + len(body), rtm, NLM_F_REQUEST | NLM_F_DUMP, self.seq, 0) + body
        self.sock.send(msg)
        while True:
            data = self.sock.recv(1 << 20)
            for typ, payload in messages(data):
                if typ == NLMSG_DONE:
                    return
                if typ == NLMSG_ERROR:
                    err = -struct.unpack_from("=i", payload)[0] if len(payload) >= 4 else 0
                    raise OSError(err, f"rtnetlink dump {rtm:d} failed")
                yield typ, payload

    def _refresh_names(self):
        self.names = {}
        for typ, p in self._dump(RTM_GETLINK, _IFINFO.pack(0, 0, 0, 0, 0)):
            if typ == RTM_NEWLINK and len(p) >= _IFINFO.size:
                idx = _IFINFO.unpack_from(p, 0)[2]
                name = attrs(p, _IFINFO.size, len(p)).get(IFLA_IFNAME, b"").split(b"\0", 1)[0]
                self.names[idx] = name.decode(errors="replace")

    def counters(self) -> dict:
        """{ifname: root_qdisc_counters()} of every root qdisc."""
        rows = [q for typ, p in self._dump(RTM_GETQDISC, _TCMSG.pack(0, 0, 0, 0, 0))
                if typ == RTM_NEWQDISC and (q := root_qdisc_counters(p)) is not None]
        if any(r["ifindex"] not in self.names for r in rows):
            self._refresh_names()
        return {self.names[r["ifindex"]]: r for r in rows if r["ifindex"] in self.names}

    def read(self) -> dict:
        """{ifname: (kind, bytes sent, bytes queued)} of every root qdisc."""
        return {name: (q["kind"], q["bytes"], q["backlog"]) for name, q in self.counters().items()}
