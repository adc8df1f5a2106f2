"""Traffic: iperf3 TCP flows with JSON results, started together and waited
for with progress, and dcn-relay transfers (pipelined trees of servers)."""
import json
import subprocess
import time

from .experiment import ExperimentError


class Flow:
    """One iperf3 TCP connection src -> dst of `nbytes` (or `seconds`)."""

    def __init__(self, src, dst, nbytes=None, seconds=None, label=None):
        if (nbytes is None) == (seconds is None):
            raise ValueError("a flow has a size or a duration")
        self.src, self.dst, self.nbytes, self.seconds = src, dst, nbytes, seconds
        self.label = label or "%s>%s" % (src, dst)
        self.port = None
        self.server = self.client = None
        self.result = None      # the client's iperf3 JSON
        self.error = None
        self.start_time = self.end_time = None

    def summary(self):
        out = {"label": self.label, "src": self.src, "dst": self.dst, "port": self.port,
               "requested_bytes": self.nbytes, "requested_seconds": self.seconds, "error": self.error}
        r = self.result or {}
        end = r.get("end", {})
        rx = end.get("sum_received", {})
        tx = end.get("sum_sent", {})
        out["bytes_received"] = rx.get("bytes")
        out["seconds"] = rx.get("seconds")
        out["mbps"] = round(rx["bits_per_second"] / 1e6, 3) if rx.get("bits_per_second") else None
        out["retransmits"] = tx.get("retransmits")
        conn = (r.get("start", {}).get("connected") or [{}])[0]
        out["local_port"] = conn.get("local_port")
        out["start_unix"] = self.start_time
        out["end_unix"] = self.end_time
        out["ok"] = self.error is None and out["bytes_received"] is not None and (
            self.nbytes is None or out["bytes_received"] >= self.nbytes)
        return out

    def intervals(self):
        """[(seconds since the flow's start, Mb/s)] from the client's 1 s reports."""
        out = []
        for iv in (self.result or {}).get("intervals", []):
            s = iv.get("sum", {})
            if s.get("seconds"):
                out.append((s["end"], s["bits_per_second"] / 1e6))
        return out


def run_flows(ex, tb, flows, port_base=5201, timeout=None, progress_every=5.0, on_tick=None):
    """Starts one iperf3 server per flow (a port each), then every client at
    once; waits until all end, printing progress; returns the flows with
    their results. on_tick(elapsed_s) runs about every 0.2 s while waiting
    (failure schedules)."""
    ports = {}
    for f in flows:
        ports[f.dst] = ports.get(f.dst, port_base - 1) + 1
        f.port = ports[f.dst]
        ip = tb.wiring.ip_of(f.dst)
        f.server = tb.spawn_in(f.dst, ["iperf3", "-s", "-1", "-B", ip, "-p", str(f.port)],
                               "iperf3 -s in %s" % f.dst, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(0.5 + 0.005 * len(flows))
    for f in flows:
        if f.server.poll() is not None:
            raise ExperimentError("iperf3 server in %s port %d exited: %s" % (
                f.dst, f.port, f.server.stderr.read().decode(errors="replace")[:200]))
    t0 = time.time()
    for f in flows:
        cmd = ["iperf3", "-c", tb.wiring.ip_of(f.dst), "-p", str(f.port), "-J", "-i", "1",
               "--connect-timeout", "5000"]
        cmd += ["-n", str(f.nbytes)] if f.nbytes is not None else ["-t", str(f.seconds)]
        f.start_time = time.time()
        f.client = tb.spawn_in(f.src, cmd, "iperf3 -c in %s" % f.src, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    pending = list(flows)
    last = time.time()
    try:
        while pending:
            for f in list(pending):
                if f.client.poll() is not None:
                    f.end_time = time.time()
                    pending.remove(f)
                    _collect(tb, f)
            now = time.time()
            if on_tick:
                on_tick(now - t0)
            if now - last >= progress_every and pending:
                ex.log("  flows done %d/%d (%.0f s)" % (len(flows) - len(pending), len(flows), now - t0))
                last = now
            if timeout and now - t0 > timeout:
                for f in pending:
                    f.error = "timeout after %.0f s" % timeout
                    f.client.kill()
                    _collect(tb, f)
                break
            time.sleep(0.2)
    finally:
        for f in flows:
            for p in (f.client, f.server):
                if p is not None:
                    if p.poll() is None:
                        p.kill()
                    p.wait()
                    tb.reap(p)
    return flows


def _collect(tb, f):
    out, err = f.client.communicate()
    try:
        f.result = json.loads(out.decode(errors="replace") or "{}")
    except ValueError:
        f.result = None
    if f.client.returncode != 0 or not f.result or "error" in f.result:
        f.error = (f.result or {}).get("error") or err.decode(errors="replace")[:200] or \
            "iperf3 exited with %s" % f.client.returncode


def aggregate_series(flows, t0, step=1.0):
    """[(t since t0, total Mb/s)] summed over the flows' 1 s reports."""
    buckets = {}
    for f in flows:
        if f.start_time is None:
            continue
        for end, mbps in f.intervals():
            b = int((f.start_time - t0 + end) / step)
            buckets[b] = buckets.get(b, 0.0) + mbps
    return [((b + 1) * step, v) for b, v in sorted(buckets.items())]


def all_to_all(names, nbytes=None, seconds=None):
    """Every server to every other one: len(names) * (len(names) - 1) flows."""
    return [Flow(a, b, nbytes=nbytes, seconds=seconds) for a in names for b in names if a != b]


def completion(flows):
    """(first start, last end, seconds) over the flows."""
    starts = [f.start_time for f in flows if f.start_time]
    ends = [f.end_time for f in flows if f.end_time]
    if not starts or not ends:
        return None, None, None
    return min(starts), max(ends), max(ends) - min(starts)
