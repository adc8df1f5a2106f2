"""The experiment library's graph questions, answered by dcn-topo, against
the Python searches they replaced (kept here as the reference):

  family.Graph.bfs    `dcn-topo bfs`: hop distances and BFS parents over the
                      server graph, neighbours in id order (the broadcast tree)
  soak.Oracle         `dcn-topo components`: which servers reach each other
                      under failed links, servers and switches
  topology.server_hops  `dcn-topo bfs` too: the smoke check's farthest pair
                      (was Wiring.server_hops_from)

Every source of several members of each family, and seeded random failure
states. No root; ctest explib_graph_search runs it on the tree's dcn-topo
(DCN_BUILD_DIR)."""
import collections
import os
import random
import types

import pytest

from explib import family, soak
from orchestrator import topology

BUILD = os.environ.get("DCN_BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
EX = types.SimpleNamespace(a=types.SimpleNamespace(build_dir=BUILD))

SPECS = ["bcube n=4 k=1", "bcube n=3 k=2", "bcube n=4 k=1 parts=3", "mdcube n=2 k=1 m=5", "mdcube n=2 k=1 m=3x3",
         "hcn n=4 h=1", "hcn n=4 h=2", "bcn alpha=2 beta=2 h=1 gamma=0", "bcn alpha=3 beta=2 h=1 gamma=1",
         "bcdc n=3", "bcdc n=4"]


class OldGraph:
    """explib/family.py's Graph before it asked dcn-topo, its BFS verbatim.
    Its adjacency joined the servers of one switch only and took a
    switch-to-switch fiber for a server (KeyError from 16 of MDCube
    n=2 k=1 m=5's 20 sources); here fibers are skipped, and with `chains`
    the servers behind a chain of switches are joined (the server graph
    the library defines)."""

    def __init__(self, exp, chains=False):
        self.servers = [s["name"] for s in exp["servers"]]
        self.ids = {s["name"]: s["id"] for s in exp["servers"]}
        self.is_server = set(self.servers)
        at = collections.defaultdict(list)
        self.adj = collections.defaultdict(dict)
        sw_adj = collections.defaultdict(set)
        for l in exp["links"]:
            a, b = l["a"], l["b"]
            if a in self.is_server and b in self.is_server:
                self.adj[a][b] = None
                self.adj[b][a] = None
            elif a not in self.is_server and b not in self.is_server:
                sw_adj[a].add(b)
                sw_adj[b].add(a)
            else:
                srv, sw = (a, b) if a in self.is_server else (b, a)
                at[sw].append(srv)
        groups = list(at.items())
        if chains:  # every switch's servers joined with those of the switches it reaches over fibers
            groups = []
            for sw in at:
                seen, todo = {sw}, [sw]
                while todo:
                    for y in sw_adj[todo.pop()]:
                        if y not in seen:
                            seen.add(y)
                            todo.append(y)
                groups.append((sw, [h for s in seen for h in at.get(s, [])]))
        for sw, hosts in groups:
            for x in hosts:
                for y in hosts:
                    if x != y:
                        self.adj[x].setdefault(y, sw)

    def neighbours(self, x):
        return sorted(self.adj[x], key=lambda y: self.ids[y])

    def bfs(self, src):
        """(distance, parent): breadth first, neighbours in id order."""
        dist, parent = {src: 0}, {src: None}
        q = collections.deque([src])
        while q:
            x = q.popleft()
            for y in self.neighbours(x):
                if y not in dist:
                    dist[y] = dist[x] + 1
                    parent[y] = x
                    q.append(y)
        return dist, parent


def old_connected(wiring, links, nodes, src, dst):
    """explib/soak.py's Oracle._connected before it asked dcn-topo, verbatim
    but for the memo."""
    adj = collections.defaultdict(list)
    for l in wiring.links:
        key = frozenset((l["a"], l["b"]))
        adj[l["a"]].append((l["b"], key))
        adj[l["b"]].append((l["a"], key))
    ok = False
    if src not in nodes and dst not in nodes:
        seen, todo = {src}, [src]
        while todo and not ok:
            x = todo.pop()
            for y, k in adj[x]:
                if y in seen or y in nodes or k in links:
                    continue
                if y == dst:
                    ok = True
                    break
                seen.add(y)
                todo.append(y)
    return ok


def has_fibers(exp):
    servers = {s["name"] for s in exp["servers"]}
    return any(l["a"] not in servers and l["b"] not in servers for l in exp["links"])


@pytest.mark.parametrize("spec", SPECS)
def test_bfs_is_the_python_bfs(spec):
    exp = family.export(EX, spec)
    new, old = family.Graph(exp, EX, spec), OldGraph(exp, chains=has_fibers(exp))
    for src in new.servers:
        nd, np_ = new.bfs(src)
        od, op = old.bfs(src)
        assert list(nd.items()) == list(od.items()), (spec, src)   # the same order too
        assert list(np_.items()) == list(op.items()), (spec, src)
        assert family.broadcast_tree(new, src) == family.broadcast_tree(old, src), (spec, src)
        if not has_fibers(exp):  # the tree's edges are one switch or one cable
            assert family.port_fanout(new, family.broadcast_tree(new, src)) == \
                family.port_fanout(old, family.broadcast_tree(old, src))


def test_bfs_targets_and_multicast_unchanged():
    spec = "bcdc n=4"
    exp = family.export(EX, spec)
    new, old = family.Graph(exp, EX, spec), OldGraph(exp)
    for seed in range(3):
        src = new.servers[seed * 5]
        targets = family.pick_targets(new, src, 5, seed)
        assert targets == family.pick_targets(old, src, 5, seed)
        assert family.multicast_tree(EX, spec, new, src, targets, "brouting") == \
            family.multicast_tree(EX, spec, old, src, targets, "brouting")


def failure_states(w, rnd, count):
    links = [frozenset((l["a"], l["b"])) for l in w.links]
    nodes = sorted(w.servers) + sorted(w.switches)
    for _ in range(count):
        yield (frozenset(rnd.sample(links, rnd.randint(0, min(6, len(links))))),
               frozenset(rnd.sample(nodes, rnd.randint(0, 3))))


@pytest.mark.parametrize("spec", ["bcube n=4 k=1", "hcn n=4 h=1", "mdcube n=2 k=1 m=3", "bcn alpha=2 beta=1 h=1 gamma=0",
                                  "bcdc n=3"])
def test_components_are_the_python_search(spec):
    w = topology.export(BUILD, spec)
    oracle = soak.Oracle(w, EX)
    rnd = random.Random(spec)
    names = [s["name"] for s in w.server_list]
    split = 0
    for links, nodes in failure_states(w, rnd, 12):
        for a in names:
            for b in names:
                if a != b:
                    want = old_connected(w, links, nodes, a, b)
                    assert oracle._connected(links, nodes, a, b) == want, (spec, sorted(links), sorted(nodes), a, b)
                    split += not want
    assert split, "no failure state cut a pair: the test proves little"


def test_no_path_seconds_over_a_history():
    w = topology.export(BUILD, "hcn n=4 h=1")
    oracle = soak.Oracle(w, EX)
    rnd = random.Random(7)
    states = list(failure_states(w, rnd, 8))
    for i, (links, nodes) in enumerate(states):
        oracle.history.append((10.0 * (i + 1), links, nodes))
    names = [s["name"] for s in w.server_list]
    calls = 0
    for a in names[:6]:
        for b in names[-6:]:
            want = sum(min(te, 85.0) - max(ts, 5.0)
                       for (ts, links, nodes), te in zip(oracle.history, [h[0] for h in oracle.history[1:]] + [1e9])
                       if min(te, 85.0) > max(ts, 5.0) and not old_connected(w, links, nodes, a, b))
            assert oracle.no_path_seconds(a, b, 5.0, 85.0) == pytest.approx(want), (a, b)
            calls += 1
    assert len(oracle._memo) <= len(oracle.history)   # one dcn-topo call per failure state


def test_set_down_and_connected_now():
    w = topology.export(BUILD, "bcube n=4 k=1")
    oracle = soak.Oracle(w, EX)
    assert oracle.connected_now("h00", "h33")
    oracle.set_down(1.0, node="h00")
    assert not oracle.connected_now("h00", "h33")
    oracle.set_down(2.0, node="h00", down=False)
    for sw in ("s0_0", "s1_0"):
        oracle.set_down(3.0, node=sw)
    assert not oracle.connected_now("h00", "h01") and oracle.connected_now("h01", "h33")
    oracle.set_down(4.0, node="s1_0", down=False)
    oracle.set_down(4.0, link=("h00", "s1_0"))
    assert not oracle.connected_now("h00", "h10")
    assert oracle.no_path_seconds("h00", "h10", 0.5, 5.0) == pytest.approx(1.0 + 1.0 + 1.0)  # [1,2) [3,4) [4,5]


def old_server_hops_from(wiring, src):
    """orchestrator/topology.py's Wiring.server_hops_from before it asked
    dcn-topo, verbatim but for self."""
    adj = {}
    for l in wiring.links:
        adj.setdefault(l["a"], []).append(l["b"])
        adj.setdefault(l["b"], []).append(l["a"])

    def server_neigh(s):
        out, seen, q = set(), {s}, collections.deque([s])
        while q:
            v = q.popleft()
            for w in adj.get(v, ()):
                if w in seen:
                    continue
                seen.add(w)
                if w in wiring.servers:
                    out.add(w)
                else:
                    q.append(w)
        return out

    dist, q = {src: 0}, collections.deque([src])
    while q:
        v = q.popleft()
        for w in server_neigh(v):
            if w not in dist:
                dist[w] = dist[v] + 1
                q.append(w)
    return dist


@pytest.mark.parametrize("spec", ["bcube n=4 k=1", "mdcube n=2 k=1 m=5", "hcn n=4 h=2", "bcdc n=4", "tree"])
def test_server_hops_is_the_python_search(spec):
    w = topology.export(BUILD, spec)
    for s in w.server_list[::3]:
        assert topology.server_hops(BUILD, w.spec, s["name"]) == old_server_hops_from(w, s["name"]), (spec, s)


@pytest.mark.parametrize("spec", ["bcube n=4 k=1", "mdcube n=2 k=1 m=5", "bcn alpha=2 beta=2 h=1 gamma=0"])
def test_far_pair_unchanged(spec):
    from orchestrator import smoke
    w = topology.export(BUILD, spec)
    src = w.server_list[0]["name"]
    dist = old_server_hops_from(w, src)
    dst = max((d for d in dist if d != src), key=lambda d: (dist[d], w.servers[d]["id"]))
    assert smoke.far_pair(types.SimpleNamespace(wiring=w, build_dir=BUILD)) == (src, dst, dist[dst])


def test_last_time_without_a_path():
    w = topology.export(BUILD, "bcube n=4 k=1")
    oracle = soak.Oracle(w, EX)
    oracle.set_down(10.0, node="h00")           # h00 cut off from 10 to 14 s,
    oracle.set_down(12.0, node="s0_1")          # a change of state in between,
    oracle.set_down(14.0, node="h00", down=False)
    oracle.set_down(20.0, link=("h00", "s0_0"))  # and one of its two links down from 20 s
    assert oracle.last_no_path("h00", "h33", 16.0) == (10.0, 14.0)
    assert oracle.last_no_path("h00", "h33", 25.0) == (10.0, 14.0)
    assert oracle.last_no_path("h00", "h33", 11.0) == (10.0, 12.0)   # ends where the states change after t
    assert oracle.last_no_path("h00", "h33", 10.0) is None           # none had begun yet
    assert oracle.last_no_path("h01", "h33", 30.0) is None
