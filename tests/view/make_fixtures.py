#!/usr/bin/python3
"""Writes a fixture folder for mock_view_server.py from `dcn-topo export`.

    tests/view/make_fixtures.py [--dcn-topo PATH] OUT_DIR FAMILY key=value...

OUT_DIR/topology.json is an /api/topology answer (docs: /tmp/view-api.md, the
dcn-view contract): the wiring is the library's, the coordinates are invented
here (servers in a row, each switch level a row above them, MDCube containers
side by side as groups) until the library's export carries its own layout.
OUT_DIR/scenario.json is what the mock animates: one failed link, one flow on a
path of `dcn-topo paths`, a failed agent and an experiment. Stdlib only.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
LINK_MBPS = 25.0


def topo(dcn_topo, *args):
    out = subprocess.run([dcn_topo, *args], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def switch_level(family, name):
    """The row of a switch: BCube s<l>_<j> is level l; MDCube s<c>_<digits with one x>
    is the level of the digit replaced by x (the last digit is level 0)."""
    m = re.match(r"s(\d+)_(\d+)$", name)
    if family == "bcube" and m:
        return int(m.group(1))
    m = re.match(r"s\d+_([0-9x]+)$", name)
    if family == "mdcube" and m and "x" in m.group(1):
        d = m.group(1)
        return len(d) - 1 - d.index("x")
    return 0


def container(family, name):
    m = re.match(r"[hs](\d+)_", name)
    return int(m.group(1)) if family == "mdcube" and m else 0


def layout_box(family, servers, switches, adj, x0, y0):
    """Positions of one box (a whole network, or an MDCube container) at x0,y0;
    returns {name: (x, y)}, width, height."""
    width = max(len(servers), 1)
    levels = sorted({switch_level(family, s) for s in switches}, reverse=True)
    height = 2.0 * len(levels) + 2.0
    pos = {s: (x0 + i + 0.5, y0 + height - 0.75) for i, s in enumerate(servers)}
    for row, lvl in enumerate(levels):
        sw = [s for s in switches if switch_level(family, s) == lvl]

        def mean_x(s):
            xs = [pos[n][0] for n in adj.get(s, ()) if n in pos]
            return sum(xs) / len(xs) if xs else 0.0
        sw.sort(key=mean_x)
        for i, s in enumerate(sw):
            pos[s] = (x0 + (i + 0.5) * width / len(sw), y0 + 1.0 + 2.0 * row)
    return pos, width, height


def build(dcn_topo, family, params):
    exp = topo(dcn_topo, "export", family, *params)
    spec = " ".join([family, *params])
    servers = [s["name"] for s in exp["servers"]]
    switches = [s["name"] for s in exp["switches"]]
    adj = {}
    for lk in exp["links"]:
        adj.setdefault(lk["a"], []).append(lk["b"])
        adj.setdefault(lk["b"], []).append(lk["a"])
    boxes = sorted({container(family, n) for n in servers + switches})
    pos, groups, x, height = {}, [], 0.0, 0.0
    for c in boxes:
        sv = [s for s in servers if container(family, s) == c]
        sw = [s for s in switches if container(family, s) == c]
        p, w, h = layout_box(family, sv, sw, adj, x + (0.5 if len(boxes) > 1 else 0), 0.5 if len(boxes) > 1 else 0)
        pos.update(p)
        if len(boxes) > 1:
            groups.append({"name": "container %d" % c, "x": x, "y": 0.0, "w": w + 1.0, "h": h + 1.0})
            w, h = w + 1.0, h + 1.0
        x += w + (1.0 if len(boxes) > 1 else 0)
        height = max(height, h)
    width = x - (1.0 if len(boxes) > 1 else 0)
    nodes = [{"name": n, "kind": "server", "x": round(pos[n][0], 3), "y": round(pos[n][1], 3)} for n in servers]
    nodes += [{"name": n, "kind": "switch", "x": round(pos[n][0], 3), "y": round(pos[n][1], 3)} for n in switches]
    links = [{"id": "L%d" % i, "a": lk["a"], "b": lk["b"], "kind": lk["kind"], "mbps": LINK_MBPS}
             for i, lk in enumerate(exp["links"])]
    topology = {"generation": 1, "spec": spec, "family": family, "label": family, "width": width,
                "height": height, "nodes": nodes, "groups": groups, "links": links}
    # the scenario: a flow from the first server to the last, one failed link off
    # its path, one silent agent off it too
    src, dst = servers[0], servers[-1]
    path = topo(dcn_topo, "paths", family, *params, src, dst)["paths"][0]
    on_path = set(path)
    failed = next(lk for lk in reversed(links) if lk["a"] not in on_path and lk["b"] not in on_path)
    agent = next(s for s in servers[len(servers) // 2:] if s not in on_path and s not in (failed["a"], failed["b"]))
    ids = {s["name"]: s["id"] for s in exp["servers"]}

    def ip(name):
        v = 0x0A000000 + ids[name] + 1
        return "%d.%d.%d.%d" % (v >> 24, (v >> 16) & 255, (v >> 8) & 255, v & 255)
    scenario = {
        "failed_links": [[failed["a"], failed["b"]]],
        "failed_nodes": {agent: "agent"},
        "flows": [{"server": src, "src": ip(src), "dst": ip(dst), "proto": 6, "sport": 40000, "dport": 5201,
                   "path": path, "rate_mbps": 20.0}],
        "experiment": {"name": "%s-all-to-all" % family, "phase": "%s: all-to-all running" % family,
                       "run": 1, "runs": 5},
        "ips": {n: ip(n) for n in servers},
    }
    return topology, scenario


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dcn-topo", default=os.path.join(REPO, "build", "agent", "src", "cli", "dcn-topo"))
    ap.add_argument("out")
    ap.add_argument("family")
    ap.add_argument("params", nargs="*")
    a = ap.parse_args(argv)
    topology, scenario = build(a.dcn_topo, a.family, a.params)
    os.makedirs(a.out, exist_ok=True)
    for name, obj in (("topology.json", topology), ("scenario.json", scenario)):
        with open(os.path.join(a.out, name), "w") as f:
            json.dump(obj, f, indent=1)
            f.write("\n")
    print("%s: %d nodes, %d links" % (a.out, len(topology["nodes"]), len(topology["links"])), file=sys.stderr)


if __name__ == "__main__":
    main()
