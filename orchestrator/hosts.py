"""Mininet hosts for emulated servers, with interfaces registered without
running a command per interface (the veths are made in batches)."""
from mininet.link import TCIntf
from mininet.node import Host


class BatchIntf(TCIntf):
    """A TCIntf whose veth already exists in the right namespace: registering
    it runs nothing. Everything else (ifconfig, IP(), tc helpers) is Mininet's."""

    def __init__(self, name, node, port, link=None, **params):  # pylint: disable=super-init-not-called
        self.node = node
        self.name = name
        self.link = link
        self.mac = None
        self.ip, self.prefixLen = None, None
        self.params = params
        node.addIntf(self, port=port, moveIntfFn=lambda *a, **k: True)


class TunIntf:
    """Stands for the agent's dcn0 device, so that Mininet's CLI substitutes a
    host name by its DCN address (`h00 ping h13`) without an IP on the raw ports."""

    def __init__(self, node, ip, name="dcn0"):
        self.node = node
        self.name = name
        self.ip = ip

    def IP(self):
        return self.ip

    def updateIP(self):
        return self.ip

    def MAC(self):
        return None

    def isUp(self):
        return True

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"<TunIntf {self.name} {self.ip}>"


class DcnHost(Host):
    """One emulated server. dcn_ip: its address (docs/interfaces.md);
    agent_mode: the address lives on dcn0, not on a port."""

    def __init__(self, name, dcn_id, dcn_ip, agent_mode, **params):
        self.dcn_id = dcn_id
        self.dcn_ip = dcn_ip
        self.agent_mode = agent_mode
        self.tun = TunIntf(self, dcn_ip)
        Host.__init__(self, name, inNamespace=True, **params)

    def defaultIntf(self):
        if self.agent_mode:
            return self.tun
        return Host.defaultIntf(self)

    def IP(self, intf=None):
        if intf is None:
            return self.dcn_ip
        return Host.IP(self, intf)
