"""A running agent keeps only CAP_NET_RAW, CAP_NET_ADMIN and CAP_BPF, with
no_new_privs set (agent/src/agent/os/privs.h, issue 40) and its system
calls limited by a seccomp filter (os/syscall_filter.h), and still does
its work with them: the smoke check passes on the default data path, a
link failure is routed around and the link's return is taken up, and no
agent had a call refused on the way.
Root: a BCube_1 n=2 testbed on Linux bridges."""
import os
import time

import pytest

from orchestrator import smoke
from orchestrator.testbed import Testbed
from tests.support import testing

BUILD = testing.build_dir()
KEPT = (1 << 12) | (1 << 13) | (1 << 39)  # CAP_NET_ADMIN, CAP_NET_RAW, CAP_BPF
pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not testing.agent_built(BUILD),
                                reason="needs root and a built agent")


def status(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = v.strip()
    return out


def test_running_agents_hold_only_what_they_use():
    with Testbed(BUILD, "bcube n=2 k=1", switch="lxbr", log=lambda _m: None) as tb:
        for name, proc in tb.agents.items():
            st = status(proc.pid)
            for field in ("CapEff", "CapPrm", "CapBnd"):
                assert int(st[field], 16) == KEPT, (name, field, st[field])
            assert int(st["CapInh"], 16) == 0, (name, st["CapInh"])
            assert st["NoNewPrivs"] == "1", (name, st["NoNewPrivs"])
            assert st["Seccomp"] == "2", (name, st["Seccomp"])  # a filter
        assert smoke.smoke(tb, log=lambda _m: None)["passed"]
        tb.link_down("h00", "s0_0")
        tb.link_up("h00", "s0_0")
        tb.wait_ready()
        assert smoke.smoke(tb, log=lambda _m: None)["passed"]
        time.sleep(1.5)  # a tick: the agents copy the filter's count into their counters
        for name in tb.agents:
            answer = tb.agent_request(name, "counters")
            assert answer is not None, name
            assert answer["counters"]["syscall_denied"] == 0, (name, answer["counters"])
