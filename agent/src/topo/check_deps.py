#!/usr/bin/python3
"""Fails when the topology library has a dependency cycle (ctest
topo_no_dependency_cycles; docs/architecture.md, "No cycles in the library").

  check_deps.py LIBDCNTOPO.a SOURCE_DIR

Two graphs, both must be acyclic:
  - objects: a.c uses a function or variable that b.c defines (read with
    nm from the built library, so it sees what the compiler kept: the
    family table in registry.c using every family, a family calling a
    helper, two files calling each other). This is where the cycles of
    issue 12 were: topo -> registry -> bfs -> failures -> topo, and
    hcn_route <-> hcn_reroute;
  - headers: a header including another (#include "...", resolved as the
    compiler does), which include guards would otherwise hide.
Exit status 0: no cycle; 1: a cycle (printed); 2: bad usage or nm failed.
"""
import collections
import os
import re
import subprocess
import sys


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan), each
    sorted; a node depending on itself is not a cycle here."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def one_cycle(graph, comp):
    """A concrete cycle through the component, for the message."""
    comp = set(comp)
    start = min(comp)
    path, seen = [start], {start}
    while True:
        nxt = sorted(w for w in graph[path[-1]] if w in comp)
        back = [w for w in nxt if w == start]
        if back and len(path) > 1:
            return path + [start]
        fresh = [w for w in nxt if w not in seen]
        if not fresh:  # cannot happen in an SCC, but do not loop forever
            return path
        path.append(fresh[0])
        seen.add(fresh[0])


def object_graph(lib):
    out = subprocess.run(["nm", "-A", lib], capture_output=True, text=True)
    if out.returncode != 0:
        print(f"check_deps: nm {lib}: {out.stderr.strip()}", file=sys.stderr)
        sys.exit(2)
    defs, uses, members = {}, collections.defaultdict(set), set()
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) != 3:
            continue
        member = parts[0].split(":")[1]
        obj = re.sub(r"\.c\.o$|\.o$", "", member)
        members.add(obj)
        kind, sym = parts[1], parts[2]
        if kind == "U":
            uses[obj].add(sym)
        elif kind in "TDBRVWG":  # global definitions; lower case letters are local
            defs[sym] = obj
    graph = {o: set() for o in members}
    why = {}
    for obj, syms in uses.items():
        for s in sorted(syms):
            d = defs.get(s)
            if d and d != obj:
                graph[obj].add(d)
                why.setdefault((obj, d), s)
    return graph, why


def header_graph(src):
    graph = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".h"):
                continue
            path = os.path.join(root, f)
            deps = set()
            for line in open(path, encoding="utf-8"):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                for base in (root, src, os.path.dirname(src)):
                    cand = os.path.normpath(os.path.join(base, m.group(1)))
                    if os.path.isfile(cand):
                        deps.add(os.path.relpath(cand, src))
                        break
            graph[os.path.relpath(path, src)] = deps
    return graph


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    lib, src = sys.argv[1], os.path.abspath(sys.argv[2])
    bad = 0
    objs, why = object_graph(lib)
    for comp in cycles(objs):
        c = one_cycle(objs, comp)
        steps = ", ".join(f"{a} uses {why[(a, b)]} of {b}" for a, b in zip(c, c[1:]))
        print(f"cycle between objects: {' -> '.join(c)} ({steps})")
        bad = 1
    heads = header_graph(src)
    for comp in cycles(heads):
        print(f"cycle between headers: {' -> '.join(one_cycle(heads, comp))}")
        bad = 1
    if not bad:
        print(f"no cycle: {len(objs)} objects, {sum(map(len, objs.values()))} uses; "
              f"{len(heads)} headers, {sum(map(len, heads.values()))} includes")
    return bad


if __name__ == "__main__":
    sys.exit(main())
