"""Link classes into tc commands (no root needed): a queue size without
netem, which this kernel does not have; small frames first; the tbf shaper
(and, with root, a tbf-shaped tree carrying TCP at its rate)."""
import os

import pytest

from orchestrator import linkclass, smoke
from orchestrator.testbed import Testbed
from tests.support import testing


def test_queue_size_is_a_pfifo_under_the_shaper():
    lines = linkclass.tc_lines("h00-eth0", {"bw": 20.0, "max_queue_size": 16})
    assert lines[0] == "qdisc add dev h00-eth0 root handle 5:0 htb default 1"
    assert lines[1].startswith("class add dev h00-eth0 parent 5:0 classid 5:1 htb rate 20.000000Mbit")
    assert lines[2] == "qdisc add dev h00-eth0 parent 5:1 handle 10: pfifo limit 16"
    assert not any("netem" in l for l in lines)


def test_queue_in_bytes_is_a_bfifo_under_every_shaper():
    """A switch port's buffer is bytes, not frames: a bfifo, which wins
    over a packet count, under htb, tbf and the small-frames class alike."""
    p = {"bw": 20.0, "queue_bytes": 131072, "max_queue_size": 16}
    assert linkclass.tc_lines("x", p)[2] == "qdisc add dev x parent 5:1 handle 10: bfifo limit 131072"
    assert linkclass.tc_lines("x", dict(p, shaper="tbf"))[1] == "qdisc add dev x parent 5:1 handle 10: bfifo limit 131072"
    assert "qdisc add dev x parent 5:11 handle 11: bfifo limit 131072" in linkclass.tc_lines(
        "x", dict(p, small_first=True))
    assert linkclass.tc_lines("x", {"bw": None, "queue_bytes": 65536}) == ["qdisc add dev x root handle 10: bfifo limit 65536"]
    assert "FIFO of 131072 bytes" in linkclass.describe(p)
    assert linkclass.parse_override("queue_bytes=65536", linkclass.DEFAULT_SERVER)["queue_bytes"] == 65536
    for bad in ("queue_bytes=100", "queue_bytes=%d" % (linkclass.QUEUE_BYTES_MAX + 1)):
        with pytest.raises(ValueError):   # under one jumbo frame, or a host's memory rather than a switch's
            linkclass.parse_override(bad, linkclass.DEFAULT_SERVER)


def test_queue_size_on_an_unshaped_link_is_the_root():
    assert linkclass.tc_lines("x", {"bw": None, "max_queue_size": 8}) == ["qdisc add dev x root handle 10: pfifo limit 8"]


def test_no_queue_size_leaves_the_kernels_queue():
    lines = linkclass.tc_lines("x", {"bw": 20.0})
    assert len(lines) == 2 and not any("pfifo" in l or "netem" in l for l in lines)


def test_delay_still_goes_to_netem():
    assert any("netem" in l for l in linkclass.tc_lines("x", {"bw": 20.0, "delay": "1ms", "max_queue_size": 8}))


def test_bad_queue_sizes_are_refused():
    with pytest.raises(ValueError):
        linkclass.parse_override("max_queue_size=0", linkclass.DEFAULT_SERVER)
    assert linkclass.parse_override("max_queue_size=12", linkclass.DEFAULT_SERVER)["max_queue_size"] == 12
    assert "queue 12 pkts" in linkclass.describe({"bw": 20.0, "max_queue_size": 12})


def test_small_frames_first_splits_the_link_class():
    lines = linkclass.tc_lines("s0-eth1", {"bw": 20.0, "max_queue_size": 50, "small_first": True})
    assert lines[0] == "qdisc add dev s0-eth1 root handle 5:0 htb default 1"
    small = [l for l in lines if "classid 5:10" in l][0]
    bulk = [l for l in lines if "classid 5:11" in l][0]
    assert "prio 0" in small and "ceil 20.000000Mbit" in small
    assert "prio 1" in bulk and "rate 19.000000Mbit" in bulk
    assert "qdisc add dev s0-eth1 parent 5:11 handle 11: pfifo limit 50" in lines
    # IPv4 total length (offset 2) and the project header's payload length (offset 16) under 128 bytes
    assert any("protocol ip " in l and "match u16 0 0xff80 at 2 flowid 5:10" in l for l in lines)
    assert any("protocol 0x88b5 " in l and "match u16 0 0xff80 at 16 flowid 5:10" in l for l in lines)
    assert lines[-1].endswith("u32 match u32 0 0 flowid 5:11")  # everything else: the data class
    assert "small frames first" in linkclass.describe({"bw": 20.0, "small_first": True})


def test_small_frames_first_needs_a_shaper():
    assert not any("5:10" in l for l in linkclass.tc_lines("x", {"bw": None, "small_first": True}))
    assert not any("5:10" in l for l in linkclass.tc_lines("x", {"bw": 20.0, "small_first": False}))
    assert linkclass.parse_override("small_first=on", linkclass.DEFAULT_SERVER)["small_first"] is True
    with pytest.raises(ValueError):
        linkclass.parse_override("small_first=yes", linkclass.DEFAULT_SERVER)


def test_tbf_shaper_is_a_token_bucket_over_the_same_queue():
    p = linkclass.parse_override("bw=20,shaper=tbf", linkclass.DEFAULT_SERVER)
    lines = linkclass.tc_lines("s0-eth1", p)
    assert lines[0].startswith("qdisc add dev s0-eth1 root handle 5:0 tbf rate 20.000000Mbit burst 15k")
    assert lines[1] == "qdisc add dev s0-eth1 parent 5:1 handle 10: pfifo limit 1000"  # the kernel's default
    assert not any("htb" in l for l in lines)
    assert linkclass.tc_lines("x", dict(p, max_queue_size=50))[1].endswith("pfifo limit 50")
    assert "tbf shaper" in linkclass.describe(p)
    # htb stays the default, as every committed result ran on it
    assert linkclass.DEFAULT_SERVER["shaper"] == "htb"
    assert "htb" in linkclass.tc_lines("x", linkclass.DEFAULT_SERVER)[0]
    assert linkclass.tc_lines("x", dict(p, bw=None)) == []


def test_tbf_shaper_takes_a_rate_only():
    for bad in ("shaper=tbf,small_first=on", "shaper=tbf,delay=1ms", "shaper=tbf,loss=1", "shaper=cake"):
        with pytest.raises(ValueError):
            linkclass.parse_override(bad, linkclass.DEFAULT_SERVER)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)")
def test_tbf_shaper_holds_the_rate_across_a_tree():
    """The same TCP transfer as the testbed's smoke check, across both
    leaves and the root, on 20 Mb/s tbf links: at most the rate, and most of it."""
    server = linkclass.parse_override("bw=20,shaper=tbf", linkclass.DEFAULT_SERVER)
    with Testbed(testing.build_dir(), "tree leaves=2 per_leaf=2", switch="lxbr", server_link=server,
                 log=lambda _m: None) as tb:
        rc, out, _ = tb.run_in("h0", ["tc", "qdisc", "show", "dev", "h0-eth0"])
        assert rc == 0 and "tbf" in out and "htb" not in out, out
        r = smoke.iperf(tb, "h0", "h3", seconds=3)
        assert 14 <= r["mbps"] <= 20.5, r


def test_rates_under_a_megabit_and_bad_numbers_are_refused():
    # the agents' --capacity-mbps is whole Mb/s: 0.5 became 0 and every agent died
    for bad in ("bw=0.5", "bw=0", "bw=abc", "bw=1e9", "loss=101", "max_queue_size=x", "queue_bytes=1k"):
        with pytest.raises(ValueError, match="link option"):
            linkclass.parse_override(bad, linkclass.DEFAULT_SERVER)
    assert linkclass.parse_override("bw=1", linkclass.DEFAULT_SERVER)["bw"] == 1.0


def test_delay_and_jitter_must_be_times():
    # they go into tc's batch lines as given
    for bad in ("delay=1ms;reboot", "delay=1 ms", "delay=1", "jitter=abc", "delay=11s", "delay=-1ms"):
        with pytest.raises(ValueError, match="a time such as"):
            linkclass.parse_override(bad, linkclass.DEFAULT_SERVER)
    p = linkclass.parse_override("delay=250us,jitter=.5ms", linkclass.DEFAULT_SERVER)
    assert (p["delay"], p["jitter"]) == ("250us", ".5ms")
