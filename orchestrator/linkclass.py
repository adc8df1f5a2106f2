"""Link classes (server links, MDCube high-speed switch-switch fibres) given as
Mininet TCLink options (bw in Mb/s, delay, jitter, loss, max_queue_size) and
turned into tc commands with Mininet's own TCIntf command builders; the
commands then run in batches instead of one shell round trip each."""
from __future__ import annotations

import re
from collections.abc import Iterable

from mininet.link import TCIntf

# Scaled-down defaults this 2-core box sustains: the papers use 1 Gb/s server
# links and 10 Gb/s container links; the userspace OVS datapath forwards
# about 1 Gb/s per flow here, and every relay hop is a userspace agent.
DEFAULT_SERVER = {"bw": 100.0, "delay": None, "jitter": None, "loss": None, "max_queue_size": None,
                  "queue_bytes": None, "small_first": False, "shaper": "htb"}

# The shaper of a link with a rate only (no delay, loss or small frames
# first): "htb", Mininet's own (a qdisc and a class), or "tbf" (a token
# bucket with a pfifo child, as Mininet's use_tbf option gives). Each htb
# qdisc and class is a tc filter block, and this kernel walks a list of
# every block on the box each time one is made or removed, so shaping the
# n-th interface costs time growing with n (tests/bench/tc_blocks.sh); tbf
# has no filter block. htb stays the default: every committed result ran on
# it. docs/testbed.md ("Bring-up benchmark").
SHAPERS = ("htb", "tbf")
TBF_BURST = "15k"  # Mininet's htb burst; a tbf drops frames larger than its burst
DEFAULT_QUEUE_PKTS = 1000  # the kernel's: htb's leaf pfifo takes the interface's txqueuelen
# a queue in bytes must hold one jumbo frame and stay a switch's buffer, not a host's
QUEUE_BYTES_MIN, QUEUE_BYTES_MAX = 9100, 64 << 20

# "small frames first" (small_first): on a shaped link, frames whose IPv4
# packet (or project header payload) is under SMALL_BYTES bytes, i.e. TCP
# ACKs and the agents' hellos, probes and failure messages, get an htb class
# of their own with priority over the data. At the scaled-down link rates a
# queue deep enough for tens of TCP windows holds seconds of data, and ACKs
# waiting behind it stall the connections in the other direction; at the
# papers' 1 Gb/s the same queue drains in milliseconds. docs/experiments.md
# ("Small frames first") has the measurement.
SMALL_BYTES = 128
SMALL_CLASS_MBPS = 1.0  # guaranteed to the small class; it borrows up to the link rate
DCN_ETHERTYPE = 0x88B5  # agent/src/agent/core/proto.h
DCN_PAYLOAD_LEN_OFFSET = 16  # docs/protocol.md: the header's payload length
DEFAULT_MTU = 1500

# Families whose switch-switch links are the papers' high-speed links. Only
# MDCube's inter-container fibres are: the BCube and MDCube papers' tree
# baseline is built of GbE mini-switches, so its leaf-to-root uplinks run at
# the server link rate, and so does every other switch-switch link.
HIGHSPEED_FAMILIES = ("mdcube",)
HIGHSPEED_FACTOR = 2  # MDCube testbed: a bundle of 2 switch ports per fibre


def highspeed_default(server: dict) -> dict:
    """The MDCube testbed's inter-container link: twice the server rate."""
    out = dict(server)
    if out.get("bw") is not None:
        out["bw"] = HIGHSPEED_FACTOR * out["bw"]
    return out


def params_for(family: str, kind: str, server: dict, highspeed: dict) -> dict:
    """The class of one link, by the family's paper setup."""
    if kind == "switch-switch" and family in HIGHSPEED_FAMILIES:
        return highspeed
    return server


def plan_lines(family: str, kinds: Iterable[str], server: dict, highspeed: dict, mtu: int) -> list[str]:
    """What the plan printed at start says about link classes."""
    out = [f"server links: {describe(server)}, MTU {mtu:d}"]
    if kinds.get("switch-switch"):
        if family in HIGHSPEED_FAMILIES:
            out.append(f"inter-container links (switch-switch): {describe(highspeed)}")
        else:
            out.append(f"switch-switch links ({family} uplinks): {describe(server)}, the server link rate as in the "
                       "papers' "
                       "tree of GbE mini-switches")
    return out


class _TcCmdBuilder(TCIntf):
    bwParamMax = 100000

    def __init__(self):  # pylint: disable=super-init-not-called
        self.node = None
        self.name = "?"


_BUILDER = _TcCmdBuilder()


def leaf_fifo(params: dict) -> str | None:
    """The FIFO under the shaper: "bfifo limit B" for a queue in bytes (a
    switch port's buffer), "pfifo limit N" for one in packets, or None
    (the kernel's: a pfifo of txqueuelen, 1000 packets)."""
    p = params or {}
    if p.get("queue_bytes") is not None:
        return f'bfifo limit {p["queue_bytes"]:d}'
    if p.get("max_queue_size") is not None:
        return f'pfifo limit {p["max_queue_size"]:d}'
    return None


def tc_lines(ifname: str, params: dict) -> list[str]:
    """`tc -batch` lines shaping ifname's egress like TCLink would."""
    p = params or {}
    if p.get("bw") is None and not p.get("delay") and not p.get("loss") and leaf_fifo(p) is None:
        return []
    netem = p.get("delay") or p.get("jitter") or p.get("loss")
    fifo = leaf_fifo(p)
    if p.get("shaper") == "tbf" and p.get("bw") is not None and not netem and not p.get("small_first"):
        return tbf_lines(ifname, p["bw"], fifo)
    cmds, parent = _BUILDER.bwCmds(bw=p.get("bw"))
    if p.get("small_first") and p.get("bw") is not None and not netem:
        return [(c % ("", ifname)).strip() for c in cmds] + small_first_lines(ifname, p["bw"], fifo)
    if fifo is not None and not netem:
        # A sized queue without netem (this kernel has none, and Mininet
        # sizes queues only through netem): a FIFO in packets or bytes as
        # the htb class's leaf, or as the root when the link is unshaped.
        more = ["%s qdisc add dev %s " + (parent.strip() if parent.strip() else "root") +
                " handle 10: " + fifo]
    else:
        more, parent = TCIntf.delayCmds(parent, delay=p.get("delay"), jitter=p.get("jitter"),
                                        loss=p.get("loss"), max_queue_size=p.get("max_queue_size"))
    return [(c % ("", ifname)).strip() for c in cmds + more]


def tbf_lines(ifname: str, bw: float, fifo: str | None) -> list:
    """A token bucket at bw Mb/s over `fifo` (leaf_fifo(); the kernel's
    pfifo of 1000 packets when None), as the htb class and its leaf would give."""
    return [f"qdisc add dev {ifname} root handle 5:0 tbf rate {bw:f}Mbit burst {TBF_BURST} limit 15000",
            f"qdisc add dev {ifname} parent 5:1 handle 10: "
            f"{f'pfifo limit {DEFAULT_QUEUE_PKTS:d}' if fifo is None else fifo}"]


def small_first_lines(ifname: str, bw: float, fifo: str | None) -> list[str]:
    """Below Mininet's htb class 5:1 (the link rate): 5:10 for small frames,
    priority 0, and 5:11 for the rest, priority 1 (with `fifo`, leaf_fifo(),
    when given); u32 filters sort the frames. 5:1's own leaf goes."""
    mask = 0x10000 - SMALL_BYTES  # a 16-bit length under SMALL_BYTES (a power of 2) has these bits clear
    small = min(SMALL_CLASS_MBPS, bw / 2.0)
    out = [f"class add dev {ifname} parent 5:1 classid 5:10 htb rate {small:f}Mbit ceil {bw:f}Mbit prio 0",
           f"class add dev {ifname} parent 5:1 classid 5:11 htb rate {bw - small:f}Mbit ceil {bw:f}Mbit prio 1"]
    if fifo is not None:
        out.append(f"qdisc add dev {ifname} parent 5:11 handle 11: {fifo}")
    out += [f"filter add dev {ifname} parent 5: protocol ip prio 1 u32 match u16 0 0x{mask:04x} at 2 flowid 5:10",
            f"filter add dev {ifname} parent 5: protocol 0x{DCN_ETHERTYPE:04x} prio 2 u32 match u16 0 0x{mask:04x} "
            f"at {DCN_PAYLOAD_LEN_OFFSET:d} flowid 5:10",
            f"filter add dev {ifname} parent 5: protocol all prio 3 u32 match u32 0 0 flowid 5:11"]
    return out


def describe(params: dict) -> str:
    p = params or {}
    parts = []
    parts.append(f'{p["bw"]:g} Mb/s' if p.get("bw") is not None else "unshaped")
    if p.get("delay"):
        parts.append("delay " + str(p["delay"]))
    if p.get("jitter"):
        parts.append("jitter " + str(p["jitter"]))
    if p.get("loss"):
        parts.append(f'loss {p["loss"]:g}%')
    if p.get("queue_bytes") is not None:
        parts.append(f'FIFO of {p["queue_bytes"]:d} bytes')
    elif p.get("max_queue_size") is not None:
        parts.append(f'queue {p["max_queue_size"]:d} pkts')
    if p.get("small_first") and p.get("bw") is not None:
        parts.append("small frames first")
    elif p.get("shaper", "htb") != "htb" and p.get("bw") is not None:
        parts.append(f'{p["shaper"]} shaper')
    return ", ".join(parts)


BW_MIN, BW_MAX = 1.0, float(_TcCmdBuilder.bwParamMax)
TIME_MAX_S = 10.0
_TIME = re.compile(r"^(\d+(\.\d*)?|\.\d+)(us|ms|s)$")


def _number(key, text, kind):
    try:
        return kind(text)
    except ValueError:
        raise ValueError(f'link option {key}={text}: not {"an integer" if kind is int else "a number"}') \
            from None


def _seconds(text):
    m = _TIME.match(text)
    return float(m.group(1)) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[m.group(3)]


def parse_override(text: str, base: dict) -> dict:
    """'bw=200,delay=1ms,loss=0.1,max_queue_size=100,queue_bytes=131072,small_first=on,shaper=tbf'
    (bw=none: unshaped)."""
    out = dict(base)
    if not text:
        return out
    for item in text.split(","):
        if not item.strip():
            continue
        if "=" not in item:
            raise ValueError(f"link option {item!r}: expected key=value")
        k, v = (x.strip() for x in item.split("=", 1))
        if k not in ("bw", "delay", "jitter", "loss", "max_queue_size", "queue_bytes", "small_first", "shaper"):
            raise ValueError(f"link option {k!r}: unknown (bw, delay, jitter, loss, max_queue_size, queue_bytes, "
                             "small_first, shaper)")
        if k == "shaper":
            if v.lower() not in SHAPERS:
                raise ValueError(f'link option shaper={v}: {" or ".join(SHAPERS)}')
            out[k] = v.lower()
        elif k == "small_first":
            if v.lower() not in ("on", "off"):
                raise ValueError(f"link option small_first={v}: on or off")
            out[k] = v.lower() == "on"
        elif v.lower() in ("none", ""):
            out[k] = None
        elif k == "bw":
            out[k] = _number(k, v, float)
            if not BW_MIN <= out[k] <= BW_MAX:  # the agents' --capacity-mbps is whole Mb/s, at least 1
                raise ValueError(f"link option bw={v}: {BW_MIN:g}..{BW_MAX:g} Mb/s (none: unshaped)")
        elif k == "loss":
            out[k] = _number(k, v, float)
            if not 0 <= out[k] <= 100:
                raise ValueError(f"link option loss={v}: 0..100 %")
        elif k == "max_queue_size":
            out[k] = _number(k, v, int)
            if out[k] < 1:
                raise ValueError(f"link option max_queue_size={v}: at least 1 packet")
        elif k == "queue_bytes":
            out[k] = _number(k, v, int)
            if not QUEUE_BYTES_MIN <= out[k] <= QUEUE_BYTES_MAX:
                raise ValueError(f"link option queue_bytes={v}: {QUEUE_BYTES_MIN:d}..{QUEUE_BYTES_MAX:d} bytes")
        else:  # delay, jitter: into tc's command lines, so a time and nothing else
            if not _TIME.match(v) or _seconds(v) > TIME_MAX_S:
                raise ValueError(f"link option {k}={v}: a time such as 1ms, 250us or 0.5s, at most {TIME_MAX_S:g} s")
            out[k] = v
    if out.get("shaper") == "tbf" and (out.get("small_first") or out.get("delay") or out.get("jitter")
                                       or out.get("loss")):
        raise ValueError("link option shaper=tbf: a rate only; small_first, delay, jitter and loss need htb")
    return out
