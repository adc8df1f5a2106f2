"""The queue sampler's rtnetlink reader (experiments/explib/nlqdisc.py)
against `tc -s -j qdisc show` of the same namespace: the same root qdiscs,
bytes and packets sent, bytes queued, drops and overlimits. With root, in a namespace of this test's own
(`unshare --net`, gone with its process) whose shaper holds a queue that
does not move while both are read; the parser also on a made-up message."""
import json
import os
import struct
import subprocess
import time

import pytest

from explib import nlqdisc

# a veth whose egress is a token bucket of 8 kbit/s: the first frames go
# out, the rest wait in its queue for minutes, so the counters stand still
# (IPv6 off in the namespace: its router solicitations would join the queue)
SETUP = """
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip link add nlqa type veth peer name nlqb
ip link set nlqa up && ip link set nlqb up
ip addr add 10.99.0.1/24 dev nlqa
ip neigh add 10.99.0.9 lladdr 02:00:00:00:00:09 dev nlqa
tc qdisc add dev nlqa root handle 1: tbf rate 8kbit burst 2k limit 200000
/usr/bin/python3 -c "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); [s.sendto(bytes(1200), ('10.99.0.9', 9)) for _ in range(30)]"
echo ready
exec sleep 120
"""


def attr(typ, payload):
    ln = 4 + len(payload)
    return struct.pack("=HH", ln, typ) + payload + b"\0" * ((4 - ln % 4) % 4)


def qdisc_msg(ifindex, parent, kind, sent, backlog, packets=7, drops=0, overlimits=0):
    stats = attr(nlqdisc.TCA_STATS_BASIC, struct.pack("=QI", sent, packets) + b"\0" * 4) + \
        attr(nlqdisc.TCA_STATS_QUEUE, struct.pack("=IIIII", 3, backlog, drops, 0, overlimits))
    return struct.pack("=BxxxiIII", 0, ifindex, 0x10000, parent, 1) + attr(nlqdisc.TCA_KIND, kind + b"\0") + \
        attr(nlqdisc.TCA_STATS2 | 0x8000, stats)


def test_the_parser_takes_root_qdiscs_only():
    assert nlqdisc.root_qdisc(qdisc_msg(5, nlqdisc.TC_H_ROOT, b"htb", 123456789012, 9000)) == \
        (5, "htb", 123456789012, 9000)
    assert nlqdisc.root_qdisc(qdisc_msg(5, 0x50001, b"bfifo", 1, 2)) is None  # a leaf under a class
    assert nlqdisc.root_qdisc(b"\0" * 10) is None                              # cut short
    assert nlqdisc.root_qdisc_counters(qdisc_msg(5, nlqdisc.TC_H_ROOT, b"htb", 9014, 0, 1, 42, 17)) == \
        {"ifindex": 5, "kind": "htb", "bytes": 9014, "packets": 1, "backlog": 0, "drops": 42, "overlimits": 17}


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (a network namespace)")
def test_counters_match_tc_in_another_namespace():
    p = subprocess.Popen(["unshare", "--net", "sh", "-ec", SETUP], stdout=subprocess.PIPE, text=True)
    reader = None
    try:
        assert p.stdout.readline().strip() == "ready"
        reader = nlqdisc.QdiscReader(p.pid)
        got = reader.read()
        tc = subprocess.run(["nsenter", "-t", str(p.pid), "-n", "tc", "-s", "-j", "qdisc", "show"],
                            capture_output=True, text=True, check=True)
        roots = [q for q in json.loads(tc.stdout) if q.get("root")]
        want = {q["dev"]: (q["kind"], q["bytes"], q["backlog"]) for q in roots}
        assert got == want
        keys = ("bytes", "packets", "backlog", "drops", "overlimits")
        assert {n: {k: c[k] for k in keys} for n, c in reader.counters().items()} == \
            {q["dev"]: {k: q[k] for k in keys} for q in roots}
        kind, sent, queued = got["nlqa"]
        assert kind == "tbf" and sent > 0 and queued > 10000, got   # frames went out, more wait
        here = nlqdisc.QdiscReader()
        assert "nlqa" not in here.read()                            # this namespace has no such port
        here.close()
        time.sleep(0.2)
        assert reader.read()["nlqa"] == got["nlqa"]                 # a second dump on the same socket
    finally:
        if reader:
            reader.close()
        p.kill()
        p.wait()
