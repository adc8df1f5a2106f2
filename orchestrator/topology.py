"""The wiring, read from the C library (`dcn-topo export`), never rebuilt in
Python, plus the names the emulation gives to hosts, bridges and interfaces."""
from __future__ import annotations

import json
import os
import shlex
import subprocess

IFNAMSIZ = 15
BRIDGE_PREFIX = "dcn"


class TopoError(RuntimeError):
    pass


class DisjointSets(dict):
    """Union-find over node names (path halving): find(x) is the
    representative of x's set; union by `self[find(a)] = find(b)`."""

    def find(self, x: str) -> str:
        while self.setdefault(x, x) != x:
            self[x] = self[self[x]]
            x = self[x]
        return x


def tool_path(build_dir: str, name: str) -> str | None:
    """Locate a project binary (dcn-topo, dcn-agent, dcn-ctl, dcn-sim) in a build tree."""
    for sub in ("agent/src/cli", "agent/src/agent", "agent/src/tools", "agent/src/sim", "agent/src", "bin", ""):
        p = os.path.join(build_dir, sub, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return os.path.abspath(p)
    return None


def _dcn_topo(build_dir, command, spec, *extra):
    """`dcn-topo COMMAND SPEC... EXTRA...` parsed as JSON; TopoError with
    its one line when it fails."""
    if command not in ("export", "stats", "bfs"):  # the commands whose JSON the orchestrator reads
        raise ValueError(f"dcn-topo {command}: not a command the orchestrator runs")
    exe = tool_path(build_dir, "dcn-topo")
    if not exe:
        raise TopoError(f"dcn-topo not found in {build_dir} (run make build)")
    words = shlex.split(spec)
    if not words:
        raise TopoError("empty topology spec")
    r = subprocess.run([exe, command] + words + list(extra), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise TopoError((r.stderr or r.stdout).strip() or f"dcn-topo {command} failed")
    try:
        return json.loads(r.stdout)
    except ValueError as e:
        raise TopoError(f"{exe} {command} printed no JSON ({e})") from None


def counts(build_dir: str, spec: str) -> dict:
    """{"servers", "switches", "links"} of a spec, from `dcn-topo stats`
    without its path search: cheap even for a topology far too large to
    export, so that a size check can come first."""
    d = _dcn_topo(build_dir, "stats", spec, "--bfs-limit", "0")
    try:
        return {k: int(d[k]) for k in ("servers", "switches", "links")}
    except (KeyError, TypeError, ValueError) as e:
        raise TopoError(f"dcn-topo stats printed no usable counts ({type(e).__name__}: {e})") from None


def server_hops(build_dir: str, spec: str, src: str) -> dict[str, int]:
    """Distance in server hops (one cable, or a chain of switches, is one
    hop) from src to every server it reaches, from `dcn-topo bfs`."""
    return _dcn_topo(build_dir, "bfs", spec, src)["distance"]


def export(build_dir: str, spec: str) -> Wiring:
    d = _dcn_topo(build_dir, "export", spec)
    try:
        return Wiring(d, spec)
    except (ValueError, KeyError, TypeError) as e:
        raise TopoError(f"dcn-topo export printed no usable wiring ({type(e).__name__}: {e})") from None


class Wiring:
    """The exported graph with emulation names attached.

    servers/switches: dicts id -> {"id","name","ports"}; links: list of dicts
    with a/b names, ports and kind, plus the emulated interface names."""

    def __init__(self, data: dict, spec: str) -> None:
        self.spec = " ".join(shlex.split(spec))
        self.family = data["family"]
        self.params = data.get("params", {})
        self.servers = {s["name"]: s for s in data["servers"]}
        self.switches = {s["name"]: s for s in data["switches"]}
        self.server_list = sorted(data["servers"], key=lambda s: s["id"])
        self.switch_list = sorted(data["switches"], key=lambda s: s["id"])
        self.links = data["links"]
        # the drawing of the view (orchestrator/view): each node's "x" and "y",
        # the width, height and unit boxes ("groups") of the export's layout
        self.layout = data.get("layout") or {}
        if len(self.servers) != len(data["servers"]) or len(self.switches) != len(data["switches"]):
            raise TopoError("duplicate node names in the export")
        n_srv = len(self.server_list)
        # bridge names: "dcn" + switch index; each must leave room for -eth<port>
        self.bridge = {}
        for i, sw in enumerate(self.switch_list):
            name = f"{BRIDGE_PREFIX}{i:d}"
            if len(name) + len(f'-eth{max(sw["ports"] - 1, 0):d}') > IFNAMSIZ:
                raise TopoError(f'bridge name {name} too long for its ports ({name}-eth{sw["ports"] - 1:d}: more '
                                f'than {IFNAMSIZ:d} characters)')
            self.bridge[sw["name"]] = name
        self.host_ifname_overrides = {}
        for link in self.links:
            link["a_if"] = self.ifname(link["a"], link["a_port"])
            link["b_if"] = self.ifname(link["b"], link["b_port"])
        self.n_servers = n_srv

    def is_server(self, name: str) -> bool:
        return name in self.servers

    def ifname(self, node: str, port: int) -> str:
        if node in self.switches:
            return f"{self.bridge[node]}-eth{port:d}"
        name = f"{node}-eth{port:d}"
        if len(name) > IFNAMSIZ:  # long server names: short form, told to the agent by --port
            name = f'x{self.servers[node]["id"]:d}-eth{port:d}'
            if len(name) > IFNAMSIZ:
                raise TopoError(f"interface name of {node} port {port:d} too long even as {name} (Linux allows "
                                f"{IFNAMSIZ:d} characters)")
            self.host_ifname_overrides.setdefault(node, {})[port] = name
        return name

    @staticmethod
    def server_ip(sid: int) -> str:
        """docs/interfaces.md: server id s -> 10.0.0.0 + s + 1."""
        v = 0x0A000000 + sid + 1
        return f"{v >> 24:d}.{(v >> 16) & 255:d}.{(v >> 8) & 255:d}.{v & 255:d}"

    def ip_of(self, server: str) -> str:
        return self.server_ip(self.servers[server]["id"])

    def links_between(self, a: str, b: str) -> list:
        return [l for l in self.links if {l["a"], l["b"]} == {a, b}]

    def links_of(self, node: str) -> list:
        return [l for l in self.links if node in (l["a"], l["b"])]

    def switch_loops(self) -> bool:
        """True when switch-switch links alone form a cycle (e.g. a fat-tree):
        dumb learning switches would then loop broadcasts forever."""
        parent = DisjointSets()
        for l in self.links:
            if l["kind"] != "switch-switch":
                continue
            ra, rb = parent.find(l["a"]), parent.find(l["b"])
            if ra == rb:
                return True
            parent[ra] = rb
        return False
