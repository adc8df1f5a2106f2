"""What the MDCube experiments share: the paper's testbed and tree, the
agents' MDCube routing mode, the tree's numbering, and paths read as
containers and fibres."""
from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from . import traffic
from .agentctl import PathWatcher, ctl
from .experiment import AGENT_TABLE_MBPS, ExperimentError
from .series import into_servers, r2

if TYPE_CHECKING:
    from orchestrator.testbed import Testbed
    from .experiment import Experiment, Net

TESTBED = "mdcube n=2 k=1 m=5"      # topologies/mdcube-testbed.topo: 5 BCube_1 (n=2) containers
TREE = "tree leaves=5 per_leaf=4"    # topologies/mdcube-tree.topo: a leaf per container
ROUTING_OPTION = "--mdcube-routing"
MODES = ("hier", "source")


def add_options(ex: Experiment) -> None:
    ex.set_defaults(link_mbps=AGENT_TABLE_MBPS)
    ex.add_argument("--topo", default=TESTBED, help="the MDCube (default: the paper's testbed, %(default)s)")
    ex.add_argument("--tree", default=TREE, help="the baseline (default: the paper's tree, %(default)s)")
    ex.add_argument(ROUTING_OPTION, choices=("auto",) + MODES, default="auto",
                    help="the agents' MDCube routing: hier (the paper's random jumps, in-container repair) or "
                         "source (the source routes every hop); auto: the agent's default, hier where the "
                         "agent has the option")


def supported(ex: Experiment, spec: str, mode: str = "hier") -> bool:
    """Whether the agent of this build has --mdcube-routing MODE."""
    return ex.agent_accepts(spec, [ROUTING_OPTION, mode])


def routing(ex: Experiment, spec: str, mode: str) -> tuple:
    """(extra agent arguments, the mode's name in the summary) for `mode`
    (auto, hier, source). An agent without the option routes by source."""
    if mode == "auto":
        if supported(ex, spec, "hier"):
            return [ROUTING_OPTION, "hier"], "hier"
        return [], f"source (agent without {ROUTING_OPTION})"
    if not supported(ex, spec, mode):
        raise ExperimentError(f"this dcn-agent has no {ROUTING_OPTION} {mode} (build the agent that has it)")
    return [ROUTING_OPTION, mode], mode


def container(name: str) -> int:
    """The container of a node name: h3_11 and s3_x1 are in container 3."""
    return int(name[1:].split("_")[0])


def c2c_pairs(names: list[str], src: int = 0, dst: int = 1) -> list[tuple[str, str]]:
    """The C-to-C pattern's pairs: each server of container src with the
    server of the same ID in container dst."""
    have = set(names)
    return [(n, f'h{dst:d}_{n.split("_")[1]}') for n in names
            if container(n) == src and f'h{dst:d}_{n.split("_")[1]}' in have]


def c2c_plan(pairs: list[tuple[str, str]], per_conn: int, conns: int = 4) -> traffic.RelayPlan:
    """Each pair's transfer as `conns` TCP connections of per_conn bytes (dcn-relay)."""
    plan = traffic.RelayPlan()
    for s, d in pairs:
        for _ in range(conns):
            plan.chain([s, d], per_conn)
    return plan


def is_switch(name: str) -> bool:
    return name.startswith("s")


def fibres(path: list[str]) -> list:
    """The inter-container links (switch to switch) a path crosses, in order."""
    return [(a, b) for a, b in zip(path, path[1:]) if is_switch(a) and is_switch(b)]


def relay_containers(path: list[str]) -> list:
    """The containers a path passes between its source's and its destination's."""
    if not path:
        return []
    first, last = container(path[0]), container(path[-1])
    out = []
    for n in path:
        c = container(n)
        if c not in (first, last) and c not in out:
            out.append(c)
    return out


def tree_uplink(net: Net, server: str) -> tuple:
    """(leaf, root): the tree switch of `server` and the switch above it."""
    w = net.tb.wiring
    l0 = w.links_of(server)[0]
    leaf = l0["b"] if l0["a"] == server else l0["a"]
    for l in w.links:
        if l["kind"] == "switch-switch" and leaf in (l["a"], l["b"]):
            return leaf, (l["b"] if l["a"] == leaf else l["a"])
    raise ExperimentError(f"no uplink above {leaf}")


def own_paths(watcher: PathWatcher) -> list:
    """The last path of every connection a watched agent is the source of
    (an agent's flow table also holds connections it only relays)."""
    return [f["path"] for k, f in watcher.last.items() if f.get("path") and f["path"][0] == k[0]]


def all_to_all(ex: Experiment, net: Net, names: list[str], per_conn: int, label: str, watch: bool = False) -> tuple:
    """Every server of `names` sends per_conn bytes to every other one (dcn-relay,
    one TCP connection each). Returns (record, aggregate series into `names`, t0)."""
    seg = SegmentWatcher(net.tb, names, period=2.0) if watch else None
    run = traffic.all_to_all_run(ex, net, names, per_conn, label, watch=watch, beside=[seg] if seg else [])
    watcher, got, t0, done = run.watcher, run.got, run.t0, run.done
    rec = {"completion_s": r2(done), "per_server_mbps": r2(run.per_server), "failed": run.failed,
           "bytes_delivered": sum(got.values()), "connection_end_s": run.ends}
    if watcher:
        jumps = jumps_of(watcher, seg)
        rec["flows_seen_by_agents"] = len(jumps)
        rec["relay_containers_count"] = count_jumps(jumps)
        if seg.mode == "hier":
            rec["flows_seen_note"] = ("hier: every flow the servers source, a connection's data and ACK directions "
                                      "alike (segment entries carry no ports)")
        ex.write_csv(f"{label}_segments.csv", seg.rows(t0))
        ex.write_csv(f"{label}_paths.csv", watcher.rows(t0))
    return rec, into_servers(net, t0, names), t0


def fibre_load(net: Net, t0: float, t1: float) -> dict:
    """Every fibre's load from t0 to t1: the mean of its two directions over its rate."""
    rates = net.links.mean_rates(t0, t1)
    out = {}
    for l in net.tb.wiring.links:
        if l["kind"] == "switch-switch":
            ab, ba = f'{l["a"]}>{l["b"]}', f'{l["b"]}>{l["a"]}'
            cap = net.links.capacity.get(ab)
            out[f'{l["a"]}-{l["b"]}'] = r2(((rates.get(ab) or 0) + (rates.get(ba) or 0)) / 2 / cap) if cap else None
    return out


def server_link_bound(net: Net, t0: float, t1: float, delivered_bytes: int) -> tuple:
    """What the servers' own links allow in all-to-all. Every byte delivered
    leaves its source and each relay on a server -> switch link, so the
    bytes those links carried over [t0, t1] per byte delivered is the mean
    number of server hops a byte took (frame headers included: about 1 %
    more at 9000-byte frames). With every server port busy the whole time,
    per-server goodput is at most ports x link rate / that number.
    Returns (server hops per byte, the bound over the link rate, the mean
    utilisation of those links over the window)."""
    w = net.tb.wiring
    rates = net.links.mean_rates(t0, t1)
    ups = [n for n in rates if w.is_server(n.split(">")[0]) and not w.is_server(n.split(">")[1])]
    if not ups or not delivered_bytes or t1 <= t0:
        return None, None, None
    carried = sum(rates[n] or 0 for n in ups) * 1e6 / 8 * (t1 - t0)
    hops = carried / delivered_bytes
    ports = len(ups) / len(w.server_list)
    util = sum((rates[n] or 0) / net.links.capacity[n] for n in ups) / len(ups)
    return round(hops, 3), round(ports / hops, 3), round(util, 3)


def flow_id(src_ip: str, sport: int, dst_ip: str, dport: int, proto: int = 6) -> int:
    """The MDCube extension's flow id of a 5-tuple (the agents' eng_flow_id:
    FNV-1a over the addresses, ports and protocol, network order)."""
    b = bytes(int(x) for x in src_ip.split(".")) + bytes(int(x) for x in dst_ip.split(".")) + \
        sport.to_bytes(2, "big") + dport.to_bytes(2, "big") + bytes([proto])
    h = 2166136261
    for c in b:
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h


class SegmentWatcher(threading.Thread):
    """Polls `dcn-ctl segments` (the hierarchical routing's per-flow table)
    on some agents every `period` s: last[(agent, flow id)] = entry, and
    changes = [(unix time, agent, flow id, entry)] whenever an entry's
    containers, segment, reroutes or jumps change. Empty under source
    routing (the agents keep no segments)."""

    def __init__(self, tb: Testbed, names: list[str], period: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.tb, self.names, self.period = tb, list(names), period
        self.last, self.changes = {}, []
        self.mode = None
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            t = time.time()
            for n in self.names:
                r = ctl(self.tb, n, "segments") or {}
                self.mode = r.get("mdcube_routing", self.mode)
                for e in r.get("segments", []):
                    k = (n, e["flow_id"])
                    sig = (tuple(e["containers"]), tuple(e["segment"]), e["reroutes"], e["jumps"])
                    old = self.last.get(k)
                    if old is None or old[0] != sig:
                        self.changes.append((t, n, e["flow_id"], e))
                    self.last[k] = (sig, e)
            self._halt.wait(self.period)

    def stop(self) -> None:
        self._halt.set()
        if self.is_alive():
            self.join(5)

    def entry(self, agent: str, fid: int) -> list | None:
        v = self.last.get((agent, fid))
        return v[1] if v else None

    def full_path(self, src_agent: str, fid: int, other: SegmentWatcher | None = None) -> list | None:
        """The whole path of a flow by chaining the segments: the source's,
        then the one kept by the server where it ends, and so on (entries
        from `other`, a watcher of other agents, too)."""
        def entry(agent, f):
            return self.entry(agent, f) or (other.entry(agent, f) if other else None)
        e = entry(src_agent, fid)
        if not e:
            return None
        path = list(e["segment"])
        seen = {src_agent}
        while path and path[-1] not in seen:
            nxt = entry(path[-1], fid)
            seen.add(path[-1])
            if not nxt or not nxt["segment"] or nxt["segment"][0] != path[-1]:
                break
            path += list(nxt["segment"][1:])
        return path

    def rows(self, t0: float) -> list[list]:
        out = [["t_s", "agent", "flow_id", "source", "containers", "segment", "reroutes", "jumps"]]
        for t, n, fid, e in self.changes:
            out.append([f"{t - t0:.3f}", n, f"{fid:08x}", e["source"], " ".join(map(str, e["containers"])),
                        " ".join(e["segment"]), e["reroutes"], e["jumps"]])
        return out


def jumps_of(path_watcher: PathWatcher, seg_watcher: SegmentWatcher | None = None,
             sources: Iterable[str] | None = None, dsts: Iterable[str] | None = None) -> list:
    """The containers between source and destination container of every
    flow the watched agents source: from their whole paths under source
    routing (and inside a container under hierarchical routing, where BSR
    routes), and from the sources' segment entries under hierarchical
    routing (`sources`, `dsts`: keep only entries between these servers; a
    connection's ACK direction is a flow of its own there)."""
    out = [relay_containers(p) for p in own_paths(path_watcher)]
    if seg_watcher:
        for (agent, _), (_, e) in seg_watcher.last.items():
            if e.get("source") and e["src"] == agent and (sources is None or agent in sources) and \
                    (dsts is None or e["dst"] in dsts):
                out.append(list(e["containers"]))
    return out


def count_jumps(jumps: list) -> dict:
    """{"via 1": n, "direct": n, ...}"""
    out = {}
    for j in jumps:
        k = "via " + "-".join(map(str, j)) if j else "direct"
        out[k] = out.get(k, 0) + 1
    return out
