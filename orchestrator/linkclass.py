"""Link classes (server links, MDCube high-speed switch-switch fibres) given as
Mininet TCLink options (bw in Mb/s, delay, jitter, loss, max_queue_size) and
turned into tc commands with Mininet's own TCIntf command builders; the
commands then run in batches instead of one shell round trip each."""
from mininet.link import TCIntf

# Scaled-down defaults this 2-core box sustains: the papers use 1 Gb/s server
# links and 10 Gb/s container links; the userspace OVS datapath forwards
# about 1 Gb/s per flow here, and every relay hop is a userspace agent.
DEFAULT_SERVER = {"bw": 100.0, "delay": None, "jitter": None, "loss": None, "max_queue_size": None}
DEFAULT_MTU = 1500

# Families whose switch-switch links are the papers' high-speed links. Only
# MDCube's inter-container fibres are: the BCube and MDCube papers' tree
# baseline is built of GbE mini-switches, so its leaf-to-root uplinks run at
# the server link rate, and so does every other switch-switch link.
HIGHSPEED_FAMILIES = ("mdcube",)
HIGHSPEED_FACTOR = 2  # MDCube testbed: a bundle of 2 switch ports per fibre


def highspeed_default(server):
    """The MDCube testbed's inter-container link: twice the server rate."""
    out = dict(server)
    if out.get("bw") is not None:
        out["bw"] = HIGHSPEED_FACTOR * out["bw"]
    return out


def params_for(family, kind, server, highspeed):
    """The class of one link, by the family's paper setup."""
    if kind == "switch-switch" and family in HIGHSPEED_FAMILIES:
        return highspeed
    return server


def plan_lines(family, kinds, server, highspeed, mtu):
    """What the plan printed at start says about link classes."""
    out = ["server links: %s, MTU %d" % (describe(server), mtu)]
    if kinds.get("switch-switch"):
        if family in HIGHSPEED_FAMILIES:
            out.append("inter-container links (switch-switch): %s" % describe(highspeed))
        else:
            out.append("switch-switch links (%s uplinks): %s, the server link rate as in the papers' "
                       "tree of GbE mini-switches" % (family, describe(server)))
    return out


class _TcCmdBuilder(TCIntf):
    bwParamMax = 100000

    def __init__(self):  # pylint: disable=super-init-not-called
        self.node = None
        self.name = "?"


_BUILDER = _TcCmdBuilder()


def tc_lines(ifname, params):
    """`tc -batch` lines shaping ifname's egress like TCLink would."""
    p = params or {}
    if p.get("bw") is None and not p.get("delay") and not p.get("loss") and p.get("max_queue_size") is None:
        return []
    cmds, parent = _BUILDER.bwCmds(bw=p.get("bw"))
    if p.get("max_queue_size") is not None and not p.get("delay") and not p.get("jitter") and not p.get("loss"):
        # A queue of N packets without netem (this kernel has none, and
        # Mininet sizes queues only through netem): a pfifo of N packets as
        # the htb class's leaf, or as the root when the link is unshaped.
        more = ["%s qdisc add dev %s " + (parent.strip() if parent.strip() else "root") +
                " handle 10: pfifo limit %d" % p["max_queue_size"]]
    else:
        more, parent = TCIntf.delayCmds(parent, delay=p.get("delay"), jitter=p.get("jitter"),
                                        loss=p.get("loss"), max_queue_size=p.get("max_queue_size"))
    return [(c % ("", ifname)).strip() for c in cmds + more]


def describe(params):
    p = params or {}
    parts = []
    parts.append("%g Mb/s" % p["bw"] if p.get("bw") is not None else "unshaped")
    if p.get("delay"):
        parts.append("delay " + str(p["delay"]))
    if p.get("jitter"):
        parts.append("jitter " + str(p["jitter"]))
    if p.get("loss"):
        parts.append("loss %g%%" % p["loss"])
    if p.get("max_queue_size") is not None:
        parts.append("queue %d pkts" % p["max_queue_size"])
    return ", ".join(parts)


def parse_override(text, base):
    """'bw=200,delay=1ms,loss=0.1,max_queue_size=100' (bw=none: unshaped)."""
    out = dict(base)
    if not text:
        return out
    for item in text.split(","):
        if not item.strip():
            continue
        if "=" not in item:
            raise ValueError("link option %r: expected key=value" % item)
        k, v = (x.strip() for x in item.split("=", 1))
        if k not in ("bw", "delay", "jitter", "loss", "max_queue_size"):
            raise ValueError("link option %r: unknown (bw, delay, jitter, loss, max_queue_size)" % k)
        if v.lower() in ("none", ""):
            out[k] = None
        elif k in ("bw", "loss"):
            out[k] = float(v)
            if out[k] < 0 or (k == "loss" and out[k] > 100):
                raise ValueError("link option %s=%s out of range" % (k, v))
        elif k == "max_queue_size":
            out[k] = int(v)
            if out[k] < 1:
                raise ValueError("link option max_queue_size=%s: at least 1 packet" % v)
        else:
            out[k] = v
    return out
