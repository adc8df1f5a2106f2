"""The view's server (orchestrator/view/server.py) on a stand-in testbed:
its three answers, what it refuses, and that it reads nothing while no
page asks. No root: the stand-in has the library's wiring and no network
(docs/view.md)."""
import http.client
import json
import socket

import pytest

from orchestrator import linkclass, topology
from orchestrator.view import View, ViewError
from tests.support import testing

BUILD = testing.build_dir()
pytestmark = pytest.mark.skipif(not testing.agent_built(BUILD), reason="needs a built dcn-topo")


class StandIn:
    """What the view reads of a Testbed."""

    def __init__(self, spec):
        self.wiring = topology.export(BUILD, spec)
        self.server_link = dict(linkclass.DEFAULT_SERVER, bw=25)
        self.highspeed_link = linkclass.highspeed_default(self.server_link)
        self.failed_links, self.failed_nodes = {}, {}
        self.agent_mode, self.agents, self.hosts = False, {}, {}
        self.events = ["2026-11-28T00:00:00.000+00:00 link_down h03 s0_0"]

    def ns_pid_here(self, _node):
        return None


def get(view, path, host=None):
    c = http.client.HTTPConnection("127.0.0.1", view.port, timeout=10)
    c.request("GET", path, headers={"Host": host or f"127.0.0.1:{view.port:d}"})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, r.getheader("Content-Type"), body


def get_json(view, path):
    status, ctype, body = get(view, path)
    assert ctype == "application/json"
    return status, json.loads(body)


@pytest.fixture
def view():
    with View(0, log=lambda _m: None) as v:
        yield v


def test_topology_names_every_node_with_its_place_and_every_link(view):
    tb = StandIn("bcube n=4 k=1")
    view.attach(tb, "bcube")
    status, topo = get_json(view, "/api/topology")
    assert status == 200 and topo["family"] == "bcube" and topo["label"] == "bcube"
    kinds = [n["kind"] for n in topo["nodes"]]
    assert kinds.count("server") == 16 and kinds.count("switch") == 8 and len(topo["links"]) == 32
    for n in topo["nodes"]:  # the library's layout, inside its box
        assert 0 <= n["x"] <= topo["width"] and 0 <= n["y"] <= topo["height"], n
    assert {l["mbps"] for l in topo["links"]} == {25}
    assert len({l["id"] for l in topo["links"]}) == 32


def test_state_marks_injected_failures_and_reads_nothing_before_asked(view):
    tb = StandIn("bcube n=4 k=1")
    view.attach(tb)
    assert view._counters is None            # attached, no page: nothing read
    _, topo = get_json(view, "/api/topology")
    ids = {frozenset((l["a"], l["b"])): l["id"] for l in topo["links"]}
    _, st = get_json(view, "/api/state")
    assert st["generation"] == topo["generation"] and not any(l["failed"] for l in st["links"].values())
    assert st["events"] == tb.events and st["experiment"] is None

    tb.failed_links[frozenset(("h03", "s0_0"))] = "down"
    tb.failed_nodes["s1_2"] = "switch"
    _, st = get_json(view, "/api/state")
    failed = {i for i, l in st["links"].items() if l["failed"]}
    assert ids[frozenset(("h03", "s0_0"))] in failed
    assert {ids[frozenset((f"h{i:d}2", "s1_2"))] for i in range(4)} <= failed   # the switch's four links
    assert len(failed) == 5 and st["failed_nodes"] == {"s1_2": "switch"}
    assert st["links"][ids[frozenset(("h03", "s0_0"))]]["fault"] == "down"


def test_experiment_phase_and_a_new_network_show(view):
    view.set_experiment("bcube-all-to-all", run=2, runs=5)
    view.set_experiment("bcube-all-to-all", phase="bcube: traffic", progress=0.25)
    _, st = get_json(view, "/api/state")
    e = st["experiment"]
    assert (e["name"], e["phase"], e["run"], e["runs"], e["progress"]) == ("bcube-all-to-all", "bcube: traffic",
                                                                           2, 5, 0.25)
    g0 = st["generation"]
    tb = StandIn("tree leaves=4 per_leaf=4")
    view.attach(tb, "tree")
    _, st = get_json(view, "/api/state")
    assert st["generation"] == g0 + 1
    view.detach(tb)
    _, topo = get_json(view, "/api/topology")
    assert topo["generation"] == g0 + 2 and topo["nodes"] == []


def test_refuses_other_hosts_unknown_servers_paths_out_of_its_folder_and_writes(view):
    view.attach(StandIn("bcube n=2 k=1"))
    assert get(view, "/api/state", host="evil.example:80")[0] == 403
    assert get_json(view, "/api/server/nobody")[0] == 404
    for path in ("/static/../server.py", "/static/%2e%2e/server.py", "/static/nothing.js", "/etc/passwd"):
        assert get(view, path)[0] == 404, path
    status, body = get_json(view, "/api/server/h00")
    assert status == 200 and body["name"] == "h00" and body["neighbors"] is None   # no agents here
    c = http.client.HTTPConnection("127.0.0.1", view.port, timeout=10)
    c.request("POST", "/api/state", body=b"{}", headers={"Host": f"127.0.0.1:{view.port:d}"})
    assert c.getresponse().status == 501
    c.close()


def test_page_is_served_from_its_folder(view):
    status, ctype, body = get(view, "/")
    assert status == 200 and ctype.startswith("text/html") and b"view.js" in body
    status, ctype, _ = get(view, "/static/view.js")
    assert status == 200 and ctype.startswith("text/javascript")


def test_a_taken_port_is_one_clear_error(view):
    with pytest.raises(ViewError, match=f"cannot listen on 127.0.0.1:{view.port:d}"):
        View(view.port, log=lambda _m: None)
    with pytest.raises(ViewError, match="1..65535"):
        View(70000, log=lambda _m: None)


def test_listens_on_loopback_only(view):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
        try:
            u.connect(("192.0.2.1", 9))  # no packet: only picks this machine's outward address
            addr = u.getsockname()[0]
        except OSError:
            addr = "127.0.0.1"
    if addr.startswith("127."):
        pytest.skip("this machine has no address but loopback")
    with socket.socket() as s, pytest.raises(OSError):
        s.settimeout(2)
        s.connect((addr, view.port))


def test_mdcube_flows_are_joined_from_the_agents_segments():
    """MDCube's hierarchical routing: each agent holds a piece of a flow's
    path (as `dcn-ctl segments` printed them on mdcube n=2 k=1 m=5)."""
    from orchestrator.view.server import chained_flows
    key = {"src": "h0_00", "dst": "h1_00", "flow_id": 7}
    segs = {"h0_00": [dict(key, source=1, jump=2, segment=["h0_00", "s0_x0", "s3_0x", "h3_01"])],
            "h3_01": [dict(key, source=0, jump=-1, segment=["h3_01", "s3_x1", "h3_11", "s3_1x", "s1_x0", "h1_00"])],
            "h4_01": [dict(key, flow_id=8, source=0, segment=["h4_01", "s4_x1", "h1_01"])],   # another flow's
            "h1_01": [dict(key, flow_id=9, source=1, segment=["h1_01", "s1_0x", "h1_02"]),   # a loop, never followed
                      dict(key, flow_id=9, source=0, segment=["h1_02", "s1_0x", "h1_01"])]}
    ip = {"h0_00": "10.0.0.1", "h1_00": "10.0.0.5"}
    flows = {f["flow_id"]: f for f in chained_flows(segs, lambda n: ip[n])}
    assert set(flows) == {7, 9}
    f = flows[7]
    assert f["path"] == ["h0_00", "s0_x0", "s3_0x", "h3_01", "s3_x1", "h3_11", "s3_1x", "s1_x0", "h1_00"]
    assert (f["server"], f["src"], f["dst"], f["complete"]) == ("h0_00", "10.0.0.1", "10.0.0.5", True)
    assert flows[9]["complete"] is False and flows[9]["path"] == ["h1_01", "s1_0x", "h1_02", "s1_0x", "h1_01"]
