"""HCN/BCN and BCDC on the testbed: what the family-* scripts share.

The HCN/BCN (Guo et al., TC 2013) and BCDC (Wang et al., JCST 2018) papers
evaluate their structures by analysis and simulation only; these helpers
let one script per traffic pattern (experiments/family-<pattern> --family
hcn|bcn|bcdc) run each of them with real traffic, against a two-level tree
of the same server count and link rate, and put every measured figure
beside the analytic prediction:

  FAMILIES          the sizes this box sustains, the one-to-one pair, the
                    family's unicast routing algorithm (dcn-topo --algo)
  pre_family()      --family, read before the Experiment is named
  tree_spec()       the tree baseline: leaves of the family's switch size
  Graph             the logical server graph (servers adjacent when they
                    share a switch or a cable); its hop distances and BFS
                    trees come from the C library (dcn-topo bfs)
  multicast_tree()  BCDC's BMulticast (Alg. 2) on the family's routing
  broadcast_tree()  BBroadcast: flooding with duplicate suppression, i.e.
                    the BFS tree of the first copies
  tree_plan()       a tree as dcn-relay chains of one-hop connections
  port_fanout()     streams per directed physical link of such a tree, so
                    the analytic rate of the tree is link / the maximum
  analytic_abt()    ABT = server link ends / mean server hops (the BCube
                    method, as the BCDC notes correct Theorem 4)
  tree_abt()        the tree's all-to-all bound at its leaf uplinks
  sim_all_to_all()  dcn-sim's all-to-all on the same topology, per routing
"""
from __future__ import annotations

import collections
import csv
import io
import os
import random
import subprocess
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

from . import traffic
from .experiment import AGENT_TABLE_MBPS, ExperimentError

if TYPE_CHECKING:
    from .experiment import Experiment
    from .traffic import RelayPlan

GiB = 1 << 30

# Sizes: the suggestions that come up and carry traffic here (64,
# 105 and 32 servers come up in 1-4 s on Linux bridges). The heavy
# patterns (one-to-all: every server relays in user space; all-to-all:
# N(N-1) connections) use a smaller member of the family: the BCube
# all-to-all with 240 connections already exceeded 90 % CPU on this box.
FAMILIES = {
    "hcn": {
        "title": "HCN", "paper": "HCN/BCN (Guo et al., IEEE TC 2013)",
        "topo": "hcn n=4 h=2", "small": "hcn n=4 h=1", "a2a": "hcn n=4 h=1",
        "pair": ("h142", "h112"), "route_algo": "fdim", "ft_algo": "reroute",
        "ft_name": "local reroute (Eq. 6): relays in the sibling sub-HCNs",
        "trees": "no multicast or broadcast tree in the paper: BMulticast's construction on FdimRouting "
                 "(one-to-several) and flooding (one-to-all), as for BCDC",
    },
    "bcn": {
        "title": "BCN", "paper": "HCN/BCN (Guo et al., IEEE TC 2013)",
        "topo": "bcn alpha=3 beta=2 h=1 gamma=1", "small": "bcn alpha=2 beta=2 h=1 gamma=0",
        "a2a": "bcn alpha=2 beta=1 h=1 gamma=0",
        "pair": ("h4_14", "h5_14"), "route_algo": "route", "ft_algo": "reroute",
        "ft_name": "local reroute (first dimension) / remote reroute (second dimension)",
        "trees": "no multicast or broadcast tree in the paper: BMulticast's construction on BdimRouting "
                 "(one-to-several) and flooding (one-to-all), as for BCDC",
    },
    "bcdc": {
        "title": "BCDC", "paper": "BCDC (Wang et al., JCST 2018)",
        "topo": "bcdc n=4", "small": "bcdc n=4", "a2a": "bcdc n=3",
        "pair": ("h0d1", "h14d0"), "route_algo": "brouting", "ft_algo": "bfrouting",
        "ft_name": "BFRouting (Alg. 3-5) with the faulty server known",
        "trees": "BMulticast (Alg. 2) on BRouting (one-to-several), BBroadcast = flooding with duplicate "
                 "suppression (one-to-all)",
    },
}


def pre_family(argv: list[str] | None = None) -> str:
    """--family from the command line before the Experiment (whose name
    depends on it) is created; --help without it shows hcn's."""
    from orchestrator.errors import OneLineParser
    p = OneLineParser(prog="experiments/" + os.path.basename(sys.argv[0]), add_help=False)
    p.add_argument("--family", choices=sorted(FAMILIES), default="hcn")
    a, _ = p.parse_known_args(sys.argv[1:] if argv is None else argv)
    return a.family


def add_family_arg(ex: Experiment, fam: str) -> None:
    ex.set_defaults(link_mbps=AGENT_TABLE_MBPS)
    ex.add_argument("--family", choices=sorted(FAMILIES), default=fam,
                    help="hcn, bcn or bcdc (results/<family>-<pattern>)")


def export(ex: Experiment, spec: str) -> dict:
    return traffic.topo_json(ex, "export", *spec.split())


def stats(ex: Experiment, spec: str) -> dict:
    return traffic.topo_json(ex, "stats", *spec.split())


def switch_ports(exp: dict) -> int:
    return max(s["ports"] for s in exp["switches"])


def tree_spec(exp: dict) -> str:
    """The papers' two-level tree with as many servers: leaf switches of the
    family's switch size (like BCube's 4x4 tree for n=4), one root, every
    link at the server rate."""
    n = len(exp["servers"])
    per = switch_ports(exp)
    while n % per:
        per -= 1
    return f"tree leaves={n // per:d} per_leaf={per:d}"


def server_hops(path: list[str]) -> int:
    """Hops as the papers count them: server to server through a switch or
    over a cable is one hop."""
    return sum(1 for x in path if x.startswith("h")) - 1


class Graph:
    """The logical server graph of an export: two servers are adjacent when
    they share a switch or a cable; `via` names the switch (None: cable).
    Its searches are the C library's (`dcn-topo bfs`), asked once per source."""

    def __init__(self, exp: dict, ex: Experiment, spec: str) -> None:
        self.ex, self.spec = ex, spec
        self.servers = [s["name"] for s in exp["servers"]]
        self.ids = {s["name"]: s["id"] for s in exp["servers"]}
        self.is_server = set(self.servers)
        at = collections.defaultdict(list)
        self.adj = collections.defaultdict(dict)
        for l in exp["links"]:
            a, b = l["a"], l["b"]
            if a in self.is_server and b in self.is_server:
                self.adj[a][b] = None
                self.adj[b][a] = None
            else:
                srv, sw = (a, b) if a in self.is_server else (b, a)
                at[sw].append(srv)
        for sw, hosts in at.items():
            for x in hosts:
                for y in hosts:
                    if x != y:
                        self.adj[x][y] = sw
        self._bfs = {}

    def bfs(self, src: str) -> tuple[dict[str, int], dict[str, str | None]]:
        """(distance, parent) of every server src reaches, in the order
        reached: breadth first over the server graph, neighbours in id
        order (`dcn-topo bfs`; the parent of src is None)."""
        if src not in self._bfs:
            d = traffic.topo_json(self.ex, "bfs", *self.spec.split(), src)
            self._bfs[src] = (d["distance"], d["parent"])
        dist, parent = self._bfs[src]
        return dict(dist), dict(parent)


def multicast_tree(ex: Experiment, spec: str, g: Graph, src: str, targets: list[str], algo: str | None) -> dict[str,
                   list[str]]:
    """BMulticast (BCDC Alg. 2, notes 4.3): targets in id order; each takes
    the family's route from src, cut at its deepest node already in the tree
    (by hop distance from src); the union of the kept parts. Returns
    children {node: [child]} (edges are one server hop each)."""
    dist, _ = g.bfs(src)
    in_tree = {src}
    children = collections.defaultdict(list)
    todo = sorted(targets, key=lambda t: g.ids[t])
    while todo:
        t = todo[0]
        p = [x for x in traffic.topo_json(ex, "paths", *spec.split(), src, t, "--algo", algo)["paths"][0]
             if x in g.is_server]
        shared = [x for x in p if x in in_tree and x != src]
        if shared:
            v = max(shared, key=lambda x: dist[x])
            p = p[p.index(v):]
        for a, b in zip(p, p[1:]):
            if b not in in_tree:
                children[a].append(b)
                in_tree.add(b)
        todo = [x for x in todo if x not in in_tree]
    return dict(children)


def broadcast_tree(g: Graph, src: str) -> dict:
    """BBroadcast (BCDC notes 4.4): the source sends to every neighbour; a
    server forwards a new message to its other neighbours and drops
    duplicates. The copies that arrive first form the BFS tree, which is
    what carries the file (ties: lower server id first)."""
    _, parent = g.bfs(src)
    children = collections.defaultdict(list)
    for x, p in parent.items():
        if p is not None:
            children[p].append(x)
    return {k: sorted(v, key=lambda y: g.ids[y]) for k, v in children.items()}


def tree_depth(children: dict[str, list[str]], src: str) -> int:
    depth, todo, best = {src: 0}, [src], 0
    while todo:
        x = todo.pop()
        for c in children.get(x, []):
            depth[c] = depth[x] + 1
            best = max(best, depth[c])
            todo.append(c)
    return best


def tree_plan(children: dict[str, list[str]], src: str, nbytes: int,
              deliver_to: Iterable[str] | None = None) -> RelayPlan:
    """The tree as dcn-relay chains: one one-hop TCP connection per tree
    edge, each child fed by its parent's instance as data arrives."""
    plan = traffic.RelayPlan()
    at = {src: None}
    todo = [src]
    while todo:
        x = todo.pop(0)
        for c in children.get(x, []):
            at[c] = plan.chain([x, c], nbytes, deliver=deliver_to is None or c in deliver_to, parent=at[x])
            todo.append(c)
    return plan


def port_fanout(g: Graph, children: dict[str, list[str]]) -> dict:
    """Streams per directed physical link when every tree edge is one
    one-hop connection (x -> its switch -> y, or the cable x-y): the
    analytic rate of the tree is link / the maximum."""
    load = collections.Counter()
    for x, cs in children.items():
        for y in cs:
            sw = g.adj[x][y]
            if sw is None:
                load[f"{x}>{y}"] += 1
            else:
                load[f"{x}>{sw}"] += 1
                load[f"{sw}>{y}"] += 1
    return load


def pipeline_plan(chain: list[str], nbytes: int) -> RelayPlan:
    """The tree baseline's pipeline chain[0] -> chain[1] -> ... (BCube §7.2)."""
    plan = traffic.RelayPlan()
    prev = None
    for i in range(1, len(chain)):
        prev = plan.chain([chain[i - 1], chain[i]], nbytes, parent=prev)
    return plan


def pick_targets(g: Graph, src: str, count: int, seed: int) -> list:
    rnd = random.Random(seed)
    return sorted(rnd.sample([s for s in g.servers if s != src], count), key=lambda x: g.ids[x])


def analytic_abt(st: dict) -> tuple:
    """ABT in link units = server link ends / mean server hops over all
    ordered pairs (BFS): every hop of a flow takes one server's outgoing
    port, and the all-to-all loads them equally at best. This is how the
    BCDC notes correct Theorem 4 (2N / mean hops for dual-port servers) and
    how BCube's n(N-1)/(n-1) arises; for HCN/BCN port 2 of the reserved or
    degree-1 servers is free and is not counted."""
    ends = st["links_by_kind"]["server-switch"] + 2 * st["links_by_kind"]["server-server"]
    mean = st["bfs"]["server_hops"]["mean"]
    return ends / mean, ends, mean


SIM_ROUTINGS = ("shortest", "bsr", "bsr-greedy")
SIM_SEEDS = 5


def sim_all_to_all(ex: Experiment, spec: str, routings: Iterable[str]) -> dict:
    """dcn-sim's all-to-all on the same topology, one entry per routing:
    {"abt_links", "max_link_flows", "mean_server_hops"}, each the mean over
    SIM_SEEDS seeds (the random choices of bsr). dcn-sim's ABT gives every
    flow its bottleneck link's fair share on fixed paths, which is the
    completion of equal transfers: total bytes / completion, the figure the
    emulation measures as abt_links (docs/simulator.md)."""
    from orchestrator.topology import tool_path
    exe = tool_path(ex.a.build_dir, "dcn-sim")
    if not exe:
        raise ExperimentError(f"dcn-sim not found in {ex.a.build_dir} (make build)")
    out = {}
    for routing in routings:
        r = subprocess.run([exe, *spec.split(), "--pattern", "all-to-all", "--routing", routing, "--link-gbps", "1",
                            "--seeds", str(SIM_SEEDS), "--csv", "-", "--quiet"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise ExperimentError(f"dcn-sim {spec} --routing {routing}: {r.stderr.strip()}")
        rows = list(csv.DictReader(io.StringIO(r.stdout)))

        def mean(key):
            return round(sum(float(x[key]) for x in rows) / len(rows), 3)
        out[routing] = {"abt_links": mean("abt_gbps"), "max_link_flows": mean("max_link_flows"),
                        "mean_server_hops": mean("mean_hops")}
    return out


def tree_params(spec: str) -> dict:
    """{"leaves": .., "per_leaf": ..} of a tree spec ("tree leaves=4 per_leaf=4")."""
    return {k: int(v) for k, v in (x.split("=") for x in spec.split()[1:])}


def tree_abt(spec_params: dict, n: int) -> float:
    """The two-level tree's all-to-all at server-rate uplinks: a leaf of p
    servers sends p(N-p) flows over one uplink, so each server gets
    (N-1)/(p(N-p)) of a link (and at most 1)."""
    p = spec_params["per_leaf"]
    if p >= n:
        return 1.0
    return min(1.0, (n - 1) / (p * (n - p)))


def tree_pattern(ex: Experiment, pattern: str, doc_paper: str) -> int:
    """One-to-several (pattern "several": the family's multicast tree to
    --targets) or one-to-all ("all": the broadcast tree), against the tree
    baseline's pipeline through the same servers (BCube §7.2's baseline).
    Every tree edge is one one-hop TCP connection (dcn-relay forwards as
    data arrives), so the file crosses exactly the tree's links."""
    from . import plots
    fam = ex.a.family
    F = FAMILIES[fam]
    a = ex.a
    exp = export(ex, a.topo)
    g = Graph(exp, ex, a.topo)
    tree = a.tree or tree_spec(exp)
    src = a.src or F["pair"][0]
    if src not in g.ids:
        src = g.servers[0]
    if pattern == "several":
        targets = a.targets.split(",") if a.targets else pick_targets(g, src, a.count, a.seed)
        children = multicast_tree(ex, a.topo, g, src, targets, F["route_algo"])
        receivers = targets
    else:
        children = broadcast_tree(g, src)
        receivers = [s for s in g.servers if s != src]
    size = ex.scaled_bytes(10 * GiB)
    dist, _ = g.bfs(src)
    fan = port_fanout(g, children)
    worst = max(fan.values())
    in_tree = sorted({c for cs in children.values() for c in cs} | {src}, key=lambda x: g.ids[x])
    ex.write_json("tree.json", {"src": src, "receivers": receivers, "children": children,
                                "streams_per_link": dict(fan)})
    ex.log(f'{a.topo}: {"multicast" if pattern == "several" else "broadcast"} from {src} to {len(receivers)} servers, '
           f'tree of {len(in_tree)} servers (depth {tree_depth(children, src):d}), at most {worst:d} streams on a '
           'link; '
           f"file {size / 1e6:.1f} MB")
    plan = tree_plan(children, src, size, deliver_to=set(receivers))
    timeout = size * 8 / (a.link_mbps * 1e6) * worst * 4 + 120
    with ex.testbed(a.topo, fam) as net:
        res, got, t0, done = traffic.run_relays(ex, net.tb, plan, timeout=timeout)
        net.traffic_window(t0 + 1, t0 + (done or 1))
        ex.write_json(f"raw/{fam}_relays.json", {"%s:%s" % k: v for k, v in res.items()})
    with ex.testbed(tree, "tree") as tnet:
        # ids upwards from the source, wrapping round: each leaf uplink direction carries the pipeline once
        n = len(g.servers)
        chain = [tnet.name(g.ids[x]) for x in [src] + sorted(receivers, key=lambda x: (g.ids[x] - g.ids[src]) % n)]
        tres, tgot, tt0, tdone = traffic.run_relays(ex, tnet.tb, pipeline_plan(chain, size),
                                                    timeout=size * 8 / (a.link_mbps * 1e6) * 8 + 120)
        tnet.traffic_window(tt0 + 1, tt0 + (tdone or 1))
        ex.write_json("raw/tree_relays.json", {"%s:%s" % k: v for k, v in tres.items()})
    failed = sum(1 for r in list(res.values()) + list(tres.values()) if r.get("exit") != 0)
    failed += sum(1 for t in receivers if got.get(t, 0) < size)
    failed += sum(1 for t in chain[1:] if tgot.get(t, 0) < size)
    mbps = size * 8 / done / 1e6 if done else None
    tmbps = size * 8 / tdone / 1e6 if tdone else None
    pred = a.link_mbps / worst
    name = {"several": "one-to-several", "all": "one-to-all"}[pattern]
    what = "multicast tree" if pattern == "several" else "broadcast tree"
    plots.bars(ex.path("throughput.png"), f'{F["title"]} {name} from {src} ({what} vs the tree\'s pipeline)',
               [f'{F["title"]} ({what})', "tree (pipeline)"],
               [("measured (Mb/s)", [mbps, tmbps], {"color": "C0"}),
                ("analytic: link / streams per link", [pred, a.link_mbps], plots.PAPER_STYLE)],
               "file size / completion time (Mb/s)",
               note=f"{a.topo}, {len(receivers)} receivers, {size / 1e6:.0f} MB at {a.link_mbps:g} Mb/s links")
    r2 = lambda x: None if x is None else round(x, 2)  # noqa: E731
    return ex.finish(
        measured={"mbps": r2(mbps), "completion_s": r2(done), "file_bytes": size, "receivers": receivers,
                  "tree_servers": len(in_tree), "tree_depth": tree_depth(children, src),
                  "max_streams_per_link": worst, "mbps_over_link": round(mbps / a.link_mbps, 3) if mbps else None,
                  "receiver_server_hops_shortest": {t: dist[t] for t in receivers} if pattern == "several" else None,
                  "delivered_bytes": got},
        baseline={"tree": tree, "tree_mbps": r2(tmbps), "tree_completion_s": r2(tdone), "delivered_bytes": tgot},
        paper={"source": F["paper"], "note": "no testbed figures in the paper; trees: " + F["trees"],
               "paper_detail": doc_paper},
        ratio_measured=round(mbps / tmbps, 3) if mbps and tmbps else None, ratio_paper=None, flows_failed=failed,
        extra={"family": fam, "topology": a.topo, "src": src,
               "analytic": {"mbps": round(pred, 3), "tree_pipeline_mbps": a.link_mbps,
                            "ratio": round(pred / a.link_mbps, 3),
                            "rule": "every tree edge is a unicast TCP stream; a link carrying m streams gives each "
                                    "link/m, so the tree delivers at link / max streams per link; the pipeline "
                                    "at one link"},
               "ratio_analytic": round(pred / a.link_mbps, 3)},
        headline={"measured": f'{F["title"]} {r2(mbps)} Mb/s, tree {r2(tmbps)} Mb/s ({a.link_mbps:g} Mb/s links); '
                              f'{len(receivers)} receivers, {worst:d} streams on the busiest '
                              "link",
                  "paper": f"analytic {pred:.1f} vs {a.link_mbps:g} Mb/s (ratio {pred / a.link_mbps:.2f}); no "
                           "testbed figure in the paper"},
        notes="throughput = file size / (sender start -> last byte at the last receiver), dcn-relay stamps; the "
              "tree baseline pipelines the file through the same servers in id order from the source, wrapping round (each leaf uplink direction carries it once). Trees: " + F["trees"] +
              ". The analytic rate counts the tree's unicast streams per directed link.")
