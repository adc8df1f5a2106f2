"""What TCP did in the servers, to find the cause of a shortfall by
measurement: the kernel's TCP counters of every server's namespace (read
from /proc/PID/net/{snmp,netstat}, no process per host), summed over a
pattern, and `ss -tin` snapshots of the live connections (RTO, RTT, cwnd,
retransmissions) taken every few seconds."""
from __future__ import annotations

import re
import subprocess
import threading
import time

# the counters worth reporting: retransmissions and why, and the ACK clock
COUNTERS = ("RetransSegs", "OutSegs", "InSegs", "TCPTimeouts", "TCPSpuriousRTOs", "TCPLossProbes",
            "TCPFastRetrans", "TCPSlowStartRetrans", "TCPLostRetransmit", "TCPSackRecovery",
            "TCPRenoRecovery", "DelayedACKs", "TCPSynRetrans", "TCPAbortOnTimeout", "ListenDrops")


def read_counters(pid: int) -> dict:
    """{counter: value} of the namespace of process pid (Tcp: and TcpExt:)."""
    out = {}
    for name in ("snmp", "netstat"):
        try:
            with open(f"/proc/{pid:d}/net/{name}") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        for head, vals in zip(lines[::2], lines[1::2]):
            keys, values = head.split()[1:], vals.split()[1:]
            if head.split()[0] in ("Tcp:", "TcpExt:"):
                for k, v in zip(keys, values):
                    try:
                        out[k] = int(v)
                    except ValueError:
                        pass
    return out


class TcpCounters:
    """Snapshots of every host's counters; diff() sums what changed."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = dict(pids)  # host name -> pid

    def snapshot(self) -> dict:
        return {h: read_counters(p) for h, p in self.pids.items()}

    @staticmethod
    def diff(before: dict, after: dict) -> dict:
        total = {k: 0 for k in COUNTERS}
        for h, cur in after.items():
            prev = before.get(h, {})
            for k in COUNTERS:
                if k in cur and k in prev:
                    total[k] += cur[k] - prev[k]
        if total["OutSegs"]:
            total["retrans_fraction"] = round(total["RetransSegs"] / total["OutSegs"], 5)
        return total


_SS_FIELD = re.compile(r"\b(rto|rtt|cwnd|ssthresh|retrans|bytes_retrans|bytes_acked|backoff|unacked|lost)"
                       r":([0-9./]+)")


def parse_ss(text: str) -> list[dict]:
    """`ss -tinH` output -> [{"local", "peer", "rto", "rtt", "cwnd", ...}]:
    each connection is a line with the addresses, then a line of fields."""
    conns, cur = [], None
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            f = line.split()
            if len(f) >= 5 and f[0] in ("ESTAB", "FIN-WAIT-1", "FIN-WAIT-2", "CLOSE-WAIT", "LAST-ACK"):
                cur = {"state": f[0], "local": f[3], "peer": f[4]}
                conns.append(cur)
            else:
                cur = None
            continue
        if cur is None:
            continue
        for k, v in _SS_FIELD.findall(line):
            if k == "rtt":
                cur["rtt"] = float(v.split("/")[0])
            elif k == "retrans":
                cur["retrans_total"] = int(v.split("/")[-1])
            else:
                try:
                    cur[k] = float(v) if "." in v else int(v)
                except ValueError:
                    pass
    return conns


_SS_TIMER = re.compile(r"timer:\((\w+),([0-9a-z.]+),(\d+)\)")
_SS_DURATION = re.compile(r"(?:(\d+)min)?(?:(\d+)(sec|\.))?(?:(\d+)ms)?")


def ss_duration_s(text: str) -> float | None:
    """A timer's time left as `ss -o` prints it, in seconds: "204ms",
    "8.932ms" (8.932 s: seconds, a dot, milliseconds), "12sec", "1min3sec";
    None if it is none of these."""
    m = _SS_DURATION.fullmatch(text)
    if not m or not text:
        return None
    minutes, secs, _, ms = m.groups()
    return int(minutes or 0) * 60 + int(secs or 0) + int(ms or 0) / 1000.0


def retransmit_timer_s(ss_text: str) -> float | None:
    """Seconds left on the retransmission timer (`timer:(on,...)`) of the
    first connection in `ss -tnoH` output; None when no such timer runs."""
    m = _SS_TIMER.search(ss_text)
    if not m or m.group(1) != "on":
        return None
    return ss_duration_s(m.group(2))


def unbacked_rto_s(ss_text: str, rto_min_ms: float = 200.0) -> float | None:
    """The RTO, in seconds, of the first connection in `ss -tinoH` output
    when it is the one TCP computed from its RTT samples: srtt + 4 rttvar
    (at least srtt + the minimum RTO), within a quarter, or the 3 s that
    RFC 6298 5.7 sets after a retransmitted SYN with no sample; None when
    it has backed off (a `backoff:` field, a retransmission timer that has
    fired since the last ACK that moved the window, or an RTO far above
    the estimate: Linux clears the backoff on an ACK but keeps the RTO
    until a new RTT sample). Such an RTO no network repair can shorten."""
    f = {}
    for k, v in _SS_FIELD.findall(ss_text):   # the first connection's fields
        f.setdefault(k, v)
    t = _SS_TIMER.search(ss_text)
    if "rto" not in f or float(f.get("backoff", 0)) or (t and t.group(1) == "on" and t.group(3) != "0"):
        return None
    rto = float(f["rto"])
    if "rtt" in f:
        srtt, rttvar = (float(x) for x in f["rtt"].split("/"))
        if rto > 1.25 * (srtt + max(4 * rttvar, rto_min_ms)) + 50:
            return None
    elif abs(rto - 3000) > 100:
        return None
    return rto / 1000.0


class SsSampler(threading.Thread):
    """`ss -tinH` in every given host every `period` s (one nsenter each);
    rows of (time, host, connection fields). Only connections with data
    outstanding or a retransmission matter for the diagnosis, so every
    ESTAB connection is kept as is."""

    FIELDS = ("local", "peer", "rto", "rtt", "cwnd", "ssthresh", "retrans_total", "bytes_retrans",
              "bytes_acked", "backoff", "unacked", "lost")

    def __init__(self, pids: list[int], period: float = 2.0) -> None:
        super().__init__(daemon=True)
        self.pids, self.period = dict(pids), period
        self._halt = threading.Event()
        self.rows = []

    def stop(self) -> None:
        self._halt.set()
        if self.is_alive():
            self.join(10)

    def run(self) -> None:
        while not self._halt.wait(self.period):
            for host, pid in self.pids.items():
                try:
                    r = subprocess.run(["nsenter", "-t", str(pid), "-n", "ss", "-tinH"], stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, timeout=5, check=False)
                except (OSError, subprocess.TimeoutExpired):
                    continue
                t = time.time()
                for c in parse_ss(r.stdout.decode(errors="replace")):
                    self.rows.append([round(t, 3), host] + [c.get(k, "") for k in self.FIELDS])

    def csv_rows(self) -> list[list]:
        return [["unix_time", "host"] + list(self.FIELDS)] + self.rows

    def summary(self) -> dict:
        """Medians and maxima of RTO, RTT, cwnd and backoff over the snapshots."""
        def pick(i):
            vals = sorted(r[i] for r in self.rows if isinstance(r[i], (int, float)))
            if not vals:
                return None, None
            return vals[len(vals) // 2], vals[-1]
        idx = {k: 2 + i for i, k in enumerate(self.FIELDS)}
        out = {"snapshots": len(self.rows)}
        for k in ("rto", "rtt", "cwnd", "backoff"):
            med, mx = pick(idx[k])
            out[k + "_median"], out[k + "_max"] = med, mx
        out["in_backoff_fraction"] = round(sum(1 for r in self.rows if isinstance(r[idx["backoff"]], int)
                                               and r[idx["backoff"]] > 0) / len(self.rows), 4) if self.rows else None
        return out


def qdisc_totals(pids: list[int]) -> dict:
    """Drops, overlimits and packets sent by every qdisc on the box: the
    root namespace's (switch ports) and each given host's, from one
    rtnetlink dump per namespace (nlqdisc.py). {"switch_ports": {...},
    "servers": {...}}."""
    from .nlqdisc import QdiscReader
    keys = ("drops", "overlimits", "packets", "bytes")
    out = {"switch_ports": dict.fromkeys(keys, 0), "servers": dict.fromkeys(keys, 0)}
    for side, pid in [("switch_ports", None)] + [("servers", p) for p in pids.values()]:
        try:
            reader = QdiscReader(pid)
        except OSError:  # the host is gone
            continue
        try:
            qs = reader.counters().values()
        except OSError:
            qs = []
        finally:
            reader.close()
        for q in qs:  # a root qdisc counts everything below it
            for k in keys:
                out[side][k] += q.get(k) or 0
    return out


def diff_qdisc(before: dict, after: dict) -> dict:
    return {side: {k: after[side][k] - before[side][k] for k in after[side]} for side in after}
