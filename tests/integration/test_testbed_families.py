"""Every server-centric family the library has, brought up with one dcn-agent
per server: all agents ready, all-pairs reachability through the agents, an
iperf3 TCP transfer over a relayed (multi-hop) path, nothing left after
teardown. Families or the agent not built yet are skipped with the reason."""
import os

import pytest

from orchestrator import smoke, state
from orchestrator.testbed import Testbed
from tests.support import testing

BUILD = testing.build_dir()
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)")

# Small instances (the papers' testbeds where they fit) keep the suite quick.
CASES = [
    "bcube n=4 k=1",
    "mdcube n=2 k=1 m=5",
    "hcn n=4 h=1",
    "bcn alpha=2 beta=1 h=1 gamma=1",
    "bcdc n=3",
]


def quiet(_msg):
    pass


def _require(spec):
    fam = spec.split()[0]
    if fam not in testing.families(BUILD):
        pytest.skip("family %s is not in the library build yet" % fam)
    ok, err = testing.spec_valid(BUILD, spec)
    if not ok:
        pytest.skip("library rejects %r: %s" % (spec, err))
    if not testing.agent_built(BUILD):
        pytest.skip("dcn-agent/dcn-ctl not built yet")


@pytest.mark.parametrize("spec", CASES)
def test_family_up_reachable_relayed_tcp_and_clean(spec):
    _require(spec)
    tb = Testbed(BUILD, spec, log=quiet, hello_ms=100)
    try:
        tb.start()
        assert tb.agent_mode and len(tb.agents) == len(tb.wiring.server_list)
        for name in list(tb.hosts)[:3]:
            st = tb.agent_status(name)
            assert st and st["ready"] and st["name"] == name
            assert st["ip"] == tb.wiring.ip_of(name)
        servers = [s["name"] for s in tb.wiring.server_list]
        pairs = smoke.choose_pairs(servers, max_pairs=10 ** 6)
        ok, failed = smoke.ping_pairs(tb, pairs)
        assert not failed, "unreachable: %s" % failed[:20]
        src, dst, hops = smoke.far_pair(tb)
        assert hops >= 2, "no relayed pair in %s" % spec
        r = smoke.iperf(tb, src, dst, seconds=2)
        assert r["mbps"] > 1, r
        agent_pids = [p.pid for p in tb.agents.values()]
        data = dict(tb.state.data)
    finally:
        tb.stop()
    assert testing.leftovers_of_state(data) == {}
    assert all(state.proc_start_time(p) is None for p in agent_pids)


def test_bcube_server_down_up_restarts_agent():
    spec = "bcube n=4 k=1"
    _require(spec)
    with Testbed(BUILD, spec, log=quiet, hello_ms=100) as tb:
        old = tb.agents["h01"].pid
        tb.server_down("h01")
        assert "h01" not in tb.agents and state.proc_start_time(old) is None
        assert tb.agent_status("h01") is None
        tb.server_up("h01", wait=True)
        assert tb.agent_status("h01")["ready"]
        tb.wait_ready()
        ok, failed = smoke.ping_pairs(tb, [("h00", "h01"), ("h01", "h33")])
        assert not failed
        assert [e.split()[1] for e in tb.events] == ["server_down", "server_up"]
