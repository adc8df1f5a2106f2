"""Smoke check after bring-up: reachability with ping between servers (all
pairs for small instances, a sample covering every server otherwise) and one
iperf3 TCP transfer between two servers far apart (across a relay when the
family relays)."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from . import topology

if TYPE_CHECKING:
    from .testbed import Testbed

# Above this many servers the smoke check pings a random sample of at most
# SCALE_PAIRS pairs, all in parallel, within SCALE_BUDGET_S seconds (issue 9:
# the full plan at 2048 servers printed nothing for 9 minutes).
SCALE_SERVERS = 256
SCALE_PAIRS = 256
SCALE_BUDGET_S = 40
# After a failed ping, a few of the failed pairs get one more ping with a
# long wait, to tell a slow network from a cut one: OVS's userspace datapath
# at thousands of switch ports answers every ping, but one hop takes from a
# tenth of a second to seconds there (docs/testbed.md, "OVS at 1024 and 2048
# servers").
LATE_PAIRS = 8
LATE_WAIT_S = 10


def choose_pairs(servers: list[str], max_pairs: int = 1100, seed: int = 1) -> list[tuple[str, str]]:
    """All ordered pairs when few; else a derangement (every server sends and
    receives once) plus random pairs up to max_pairs."""
    n = len(servers)
    if n < 2:
        return []
    if n * (n - 1) <= max_pairs:
        return [(a, b) for a in servers for b in servers if a != b]
    rng = random.Random(seed)
    perm = list(servers)
    rng.shuffle(perm)
    pairs = {(perm[i], perm[(i + 1) % n]) for i in range(n)}
    while len(pairs) < max(max_pairs, n):
        a, b = rng.sample(servers, 2)
        pairs.add((a, b))
        if len(pairs) >= max_pairs:
            break
    return sorted(pairs)


def ping_script(ips: list[str], count: int, interval: float, wait_s: float) -> str:
    """One shell in the source server pings every destination at once."""
    return (f'for d in {" ".join(ips)}; do (if ping -n -q -c {int(count)} -i {interval} -W {int(wait_s)} $d >/dev/null '
            '2>&1; '
            'then echo "ok $d"; else echo "fail $d"; fi) & done; wait')


def ping_pairs(tb: Testbed, pairs: list[tuple[str, str]], count: int = 3, interval: float = 0.2, wait_s: float = 2,
               max_inflight: int = 256, log: Callable[[str], None] | None = None, deadline_s: float | None = None,
               progress_s: float = 2.0) -> tuple:
    """Returns (ok_pairs, failed_pairs). The pings from one source run in
    parallel in one shell inside that server; up to max_inflight pings are
    under way at a time, more start as sources finish. With log, progress is
    printed every progress_s seconds. With deadline_s, whatever has not
    answered by then is stopped (its session killed) and counted failed."""
    by_src = {}
    for a, b in pairs:
        by_src.setdefault(a, []).append(b)
    ok, failed = [], []
    todo = sorted(by_src)
    total = len(pairs)
    running = []  # (src, Popen)
    inflight = 0
    t0 = last = time.time()
    end = t0 + deadline_s if deadline_s else None

    def collect(src, p, out):
        ip_to = {tb.wiring.ip_of(d): d for d in by_src[src]}
        seen = set()
        for line in out.decode(errors="replace").splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1] in ip_to and parts[1] not in seen:
                seen.add(parts[1])
                (ok if parts[0] == "ok" else failed).append((src, ip_to[parts[1]]))
        for ip, d in ip_to.items():
            if ip not in seen:
                failed.append((src, d))

    try:
        while todo or running:
            started = False
            while todo and (not running or inflight + len(by_src[todo[0]]) <= max_inflight):
                src = todo.pop(0)
                script = ping_script([tb.wiring.ip_of(d) for d in by_src[src]], count, interval, wait_s)
                running.append((src, tb.spawn_in(src, ["sh", "-c", script], "ping from " + src,
                                                 save=False, stdout=subprocess.PIPE)))
                inflight += len(by_src[src])
                started = True
            if started:  # one state-file write per wave, not two per process
                tb.state.save()
            still = []
            for src, p in running:
                if p.poll() is None:
                    still.append((src, p))
                    continue
                collect(src, p, p.stdout.read())
                p.stdout.close()
                tb.reap(p, save=False)
                inflight -= len(by_src[src])
            running = still
            now = time.time()
            if log and now - last >= progress_s and (todo or running):
                log(f"*** ping: {len(ok) + len(failed):d}/{total:d} pairs done, {len(failed)} failed ({now - t0:.0f} "
                    "s)")
                last = now
            if end and now > end and (todo or running):
                if log:
                    log(f"*** ping: {deadline_s:.0f} s budget spent; {total - len(ok) - len(failed):d} pairs not "
                        "answered count as failed")
                break
            if running:
                time.sleep(0.05)
    finally:
        for src, p in running:  # past the deadline (or an error): stop the whole shell session
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait()
            os.set_blocking(p.stdout.fileno(), False)  # what the answered pings wrote counts
            try:
                out = p.stdout.read() or b""
            except OSError:
                out = b""
            collect(src, p, out)
            p.stdout.close()
            tb.reap(p, save=False)
        for src in todo:
            collect(src, None, b"")
        tb.state.save()
    return ok, failed


def far_pair(tb: Testbed) -> tuple:
    """(src, dst, hops): server 0 and the server farthest from it in server hops."""
    w = tb.wiring
    src = w.server_list[0]["name"]
    dist = topology.server_hops(tb.build_dir, w.spec, src)
    dst = max((d for d in dist if d != src), key=lambda d: (dist[d], w.servers[d]["id"]))
    return src, dst, dist[dst]


def iperf(tb: Testbed, src: str, dst: str, seconds: float = 2, port: int = 5201, timeout: float = 30) -> dict:
    """TCP throughput src -> dst in Mb/s (receiver side), raises on failure."""
    ip = tb.wiring.ip_of(dst)
    server = tb.spawn_in(dst, ["iperf3", "-s", "-1", "-B", ip, "-p", str(port)], "iperf3 -s in " + dst,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        res = None
        give_up = time.time() + timeout
        for attempt in range(20):
            if attempt and time.time() > give_up:
                break
            time.sleep(0.3)
            if server.poll() is not None:
                raise RuntimeError(f'iperf3 server in {dst} exited: {server.stderr.read().decode(errors="replace")[:300]}')
            rc, out, err = tb.run_in(src, ["iperf3", "-c", ip, "-p", str(port), "-t", str(seconds),
                                           "-J", "--connect-timeout", "3000"],
                                     timeout=max(seconds + 5, give_up - time.time()))
            try:
                res = json.loads(out)
            except ValueError:
                res = {"error": (err or out)[:300]}
            if rc == 0 and "error" not in res:
                break
            if "refused" not in str(res.get("error", "")):
                break
        if not res or "error" in res:
            raise RuntimeError(f'iperf3 {src} -> {dst} failed: {(res or {}).get("error")}')
        end = res["end"]
        mbps = end["sum_received"]["bits_per_second"] / 1e6
        return {"src": src, "dst": dst, "mbps": round(mbps, 1),
                "retransmits": end.get("sum_sent", {}).get("retransmits"), "seconds": seconds}
    finally:
        if server.poll() is None:
            server.kill()
        server.wait()
        tb.reap(server)


def carrier_check(tb: Testbed) -> list[tuple[str, str]]:
    """Every port of every link has carrier on both ends: [(node, ifname)] without."""
    from . import netops
    bad = []
    for l in tb.wiring.links:
        for end, ifn in ((l["a"], l["a_if"]), (l["b"], l["b_if"])):
            pid = tb.hosts[end].pid if tb.wiring.is_server(end) else None
            if netops.operstate(ifn, pid) != "up":
                bad.append((end, ifn))
    return bad


def l2_pairs(tb: Testbed) -> list[tuple[str, str]]:
    """Without agents, a server only has an address on its lowest port: pairs
    of servers whose lowest ports share a switch (each such switch once)."""
    w = tb.wiring
    first = {}
    for l in w.links:
        for end, port, other in ((l["a"], l["a_port"], l["b"]), (l["b"], l["b_port"], l["a"])):
            if w.is_server(end) and not w.is_server(other):
                if end not in first or port < first[end][0]:
                    first[end] = (port, other)
    on = {}
    for srv, (_, sw) in sorted(first.items(), key=lambda x: w.servers[x[0]]["id"]):
        on.setdefault(sw, []).append(srv)
    pairs = []
    for sw, srvs in on.items():
        for a, b in zip(srvs, srvs[1:]):
            pairs += [(a, b), (b, a)]
    return pairs


def smoke_pairs(servers: list[str], max_pairs: int = 1100, seed: int = 1) -> list[tuple[str, str]]:
    """The pairs the smoke check pings: choose_pairs() up to SCALE_SERVERS
    servers; above, a random sample of at most SCALE_PAIRS distinct ordered
    pairs (every pair costs a ping process while thousands of agents hold
    the CPU)."""
    n = len(servers)
    if n <= SCALE_SERVERS:
        return choose_pairs(servers, max_pairs, seed)
    want = min(max_pairs, SCALE_PAIRS, n * (n - 1))
    rng = random.Random(seed)
    pairs = set()
    while len(pairs) < want:
        pairs.add(tuple(rng.sample(servers, 2)))
    return sorted(pairs)


def late_check(tb: Testbed, failed: list[tuple[str, str]], log: Callable[[str], None], pairs: int = LATE_PAIRS,
               wait_s: float = LATE_WAIT_S) -> dict:
    """One ping with a wait of wait_s seconds to each of the first `pairs`
    failed pairs, all at once, the whole within wait_s + 2 s. Returns
    {"tried", "answered", "wait_s"}, and says what it means."""
    tried = failed[:pairs]
    ok, _ = ping_pairs(tb, tried, count=1, wait_s=wait_s, deadline_s=wait_s + 2)
    why = ""
    if ok:
        why = ": the network is slow rather than cut"
        if tb.is_ovs and tb.datapath == "netdev":
            why += (" (OVS's userspace datapath: at thousands of switch ports one hop takes from a tenth "
                    "of a second to seconds, docs/testbed.md; --switch lxbr carries this size)")
    log(f"*** {len(tried)} of the {len(failed)} failed pairs pinged once more, waiting up to {int(wait_s)} s: {len(ok)} "
        f"answered{why}")
    return {"tried": len(tried), "answered": len(ok), "wait_s": wait_s}


def smoke(tb: Testbed, max_pairs: int = 1100, iperf_seconds: int = 2, log: Callable[[str], None] = print) -> dict:
    import shutil
    if not shutil.which("ping") or not shutil.which("iperf3"):
        raise RuntimeError("ping or iperf3 missing (sudo make deps)")
    servers = [s["name"] for s in tb.wiring.server_list]
    if not tb.agent_mode and tb.wiring.family != "tree":
        bad = carrier_check(tb)
        pairs = l2_pairs(tb)
        ok, failed = ping_pairs(tb, pairs, log=log)
        log(f"*** L2 check without agents: {len(bad)} ports without carrier; ping between {len(pairs)} server pairs "
            f"sharing a switch on their lowest port: {len(ok)} ok, {len(failed)} failed")
        return {"pairs": len(pairs), "ping_ok": len(ok), "ping_failed": failed, "no_carrier": bad,
                "iperf": None, "passed": not bad and not failed}
    pairs = smoke_pairs(servers, max_pairs)
    at_scale = len(servers) > SCALE_SERVERS
    t0 = time.time()
    if at_scale:
        log(f"*** ping: a random sample of {len(pairs)} pairs, in parallel, within {SCALE_BUDGET_S:d} s")
    ok, failed = ping_pairs(tb, pairs, log=log, deadline_s=SCALE_BUDGET_S if at_scale else None)
    how = f"all {len(pairs)} pairs" if len(pairs) == len(servers) * (len(servers) - 1) \
        else f"a random sample of {len(pairs)} pairs" if at_scale \
        else f"a sample of {len(pairs)} pairs covering every server"
    log(f'*** ping {how}{" through the agents" if tb.agent_mode else ""}: {len(ok)} ok, {len(failed)} failed '
        f'({time.time() - t0:.1f} s)')
    result = {"pairs": len(pairs), "ping_ok": len(ok), "ping_failed": failed, "iperf": None}
    if failed:
        log("***   failed: " + ", ".join("%s->%s" % p for p in failed[:20]))
        result["late"] = late_check(tb, failed, log)
    if len(servers) >= 2:
        src, dst, hops = far_pair(tb)
        try:
            r = iperf(tb, src, dst, seconds=iperf_seconds, timeout=15 if at_scale else 30)
            r["server_hops"] = hops
            result["iperf"] = r
            log(f'*** iperf3 {src} -> {dst} ({hops:d} server hops{", relayed" if hops > 1 else ""}): {r["mbps"]:.1f} '
                'Mb/s')
        except RuntimeError as e:
            result["iperf_error"] = str(e)
            log("*** " + str(e))
    result["passed"] = not failed and result["iperf"] is not None
    return result
