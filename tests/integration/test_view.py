"""The live view as a user sees it (docs/view.md): BCube_1 n=4 up with the
view, its page open in headless Chromium. The page draws 16 servers, 8
switches and 32 links at the library's places; `link_down h03 s0_0` is
drawn as failed within 2 s; a running iperf3's path is drawn, around the
failed link; selecting h03 lists its neighbours and the failed link.
Root: network namespaces. A missing chromium fails (make deps installs it)."""
import os
import time

import pytest

from orchestrator.testbed import Testbed
from orchestrator.view import View
from orchestrator.view.browser import Browser
from tests.support import testing

BUILD = testing.build_dir()
pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not testing.agent_built(BUILD),
                                reason="needs root and a built agent")

FAILED_DRAWN_WITHIN_S = 2.0
COUNT = "document.querySelectorAll(%r).length"


def link_id(page, a, b):
    ids = page.eval("[...document.querySelectorAll('.link')].filter(e => (e.dataset.a == %r && e.dataset.b == %r) || "
                    "(e.dataset.a == %r && e.dataset.b == %r)).map(e => e.dataset.id)" % (a, b, b, a))
    assert len(ids) == 1, ids
    return ids[0]


def test_view_draws_the_network_its_failures_and_a_flow(tmp_path):
    with Testbed(BUILD, "bcube n=4 k=1", switch="lxbr", log=lambda _m: None) as tb, \
            View(0, log=lambda _m: None) as view, Browser() as page:
        view.attach(tb)
        page.open(view.url)
        _, waited = page.wait_for("document.body.dataset.stateT", timeout=60)
        assert waited is not None, "the page drew no state in 60 s"
        assert [page.eval(COUNT % sel) for sel in (".node.server", ".node.switch", ".link")] == [16, 8, 32]
        shot = tmp_path / "bcube.png"
        page.screenshot(str(shot))
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10000

        # a failure is drawn at the page's next state
        lid = link_id(page, "h03", "s0_0")
        failed = "document.querySelector('.link[data-id=\"%s\"]').classList.contains('failed')" % lid
        assert page.eval(failed) is False
        tb.link_down("h03", "s0_0")
        _, waited = page.wait_for(failed, timeout=30)
        assert waited is not None and waited <= FAILED_DRAWN_WITHIN_S, \
            f"link h03-s0_0 drawn failed after {waited} s, not within {FAILED_DRAWN_WITHIN_S} s"
        assert page.eval(COUNT % ".link.failed") == 1

        # a flow's path, as the source's agent holds it
        dst_ip = tb.wiring.ip_of("h33")
        tb.spawn_in("h33", ["iperf3", "-s", "-1", "-B", dst_ip], "iperf3 -s in h33")
        time.sleep(1)
        tb.spawn_in("h00", ["iperf3", "-c", dst_ip, "-t", "60", "-b", "2M"], "iperf3 -c in h00")
        path, waited = page.wait_for(
            "[...document.querySelectorAll('.flow')].filter(e => e.dataset.dst == %r && "
            "e.dataset.path.startsWith('h00 ')).map(e => e.dataset.path)[0]" % dst_ip, timeout=60)
        assert waited is not None, "no path of the iperf3 flow drawn in 60 s"
        hops = path.split()
        assert hops[0] == "h00" and hops[-1] == "h33" and len(hops) == 5, hops
        assert "h03 s0_0" not in path and "s0_0 h03" not in path, path   # not across the failed link

        # selecting a server shows what its agent holds
        page.eval("document.querySelector('.node.server[data-name=\"h03\"]')"
                  ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
        text, waited = page.wait_for("(t => t.includes('h13') && t.includes('s0_0') && t.includes('local') && t)"
                                     "(document.getElementById('server-panel').textContent)", timeout=30)
        assert waited is not None, f"h03's panel lacks its neighbour h13 or its failed link: {text!r}"
