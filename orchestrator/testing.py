"""Helpers shared by the orchestrator's integration tests and benchmark."""
import os
import shlex
import subprocess

from . import netops, ovs, state
from .topology import BRIDGE_PREFIX, tool_path

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_dir():
    return os.environ.get("DCN_BUILD_DIR") or os.path.join(REPO, "build")


def families(bdir):
    exe = tool_path(bdir, "dcn-topo")
    if not exe:
        return set()
    r = subprocess.run([exe, "families"], stdout=subprocess.PIPE, text=True)
    return {line.split()[0] for line in r.stdout.splitlines() if line and not line[0].isspace()}


def spec_valid(bdir, spec):
    exe = tool_path(bdir, "dcn-topo")
    r = subprocess.run([exe, "stats"] + shlex.split(spec), stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    return r.returncode == 0, r.stderr.strip()


def agent_built(bdir):
    return bool(tool_path(bdir, "dcn-agent") and tool_path(bdir, "dcn-ctl"))


def leftovers_of_state(data):
    """What a run's state data still has on the machine."""
    out = {}
    out["procs"] = [p for p in data.get("procs", []) if state.same_process(p)]
    out["hosts"] = [h for h in data.get("hosts", []) if state.same_process(h)]
    brs = set(ovs.list_bridges()) if ovs.daemons_running() else set()
    out["bridges"] = [b for b in data.get("bridges", []) if b in brs or netops.link_exists(b)]
    out["links"] = [n for n in data.get("root_links", []) if netops.link_exists(n)]
    out["sockets"] = [s for s in data.get("sockets", []) if os.path.exists(s)]
    # processes in a namespace of the run's hosts (a daemon keeps it alive)
    out["netns_procs"] = state.procs_in_netns([h.get("netns") for h in data.get("hosts", [])])
    return {k: v for k, v in out.items() if v}


def project_bridges():
    brs = ovs.list_bridges() if ovs.daemons_running() else []
    lx = netops.root_links_with_prefix(BRIDGE_PREFIX)
    return sorted(set(b for b in brs if b.startswith(BRIDGE_PREFIX)) | set(lx))
