"""Mininet hosts for emulated servers, with interfaces registered without
running a command per interface (the veths are made in batches)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mininet.link import TCIntf
from mininet.node import Host

if TYPE_CHECKING:
    from mininet.link import Intf, Link
    from mininet.node import Node


class BatchIntf(TCIntf):
    """A TCIntf whose veth already exists in the right namespace: registering
    it runs nothing. Everything else (ifconfig, IP(), tc helpers) is Mininet's."""

    def __init__(self, name: str, node: Node, port: int, link: Link | None = None, **params: Any) -> None:  # pylint: disable=super-init-not-called
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

    def __init__(self, node: Node, ip: str, name: str = "dcn0") -> None:
        self.node = node
        self.name = name
        self.ip = ip

    def IP(self) -> str:
        return self.ip

    def updateIP(self) -> str:
        return self.ip

    def MAC(self) -> None:
        return None

    def isUp(self) -> bool:
        return True

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"<TunIntf {self.name} {self.ip}>"


class DcnHost(Host):
    """One emulated server. dcn_ip: its address (docs/interfaces.md);
    agent_mode: the address lives on dcn0, not on a port."""

    def __init__(self, name: str, dcn_id: int, dcn_ip: str, agent_mode: bool, **params: Any) -> None:
        self.dcn_id = dcn_id
        self.dcn_ip = dcn_ip
        self.agent_mode = agent_mode
        self.tun = TunIntf(self, dcn_ip)
        Host.__init__(self, name, inNamespace=True, **params)

    def defaultIntf(self) -> Intf:
        if self.agent_mode:
            return self.tun
        return Host.defaultIntf(self)

    def IP(self, intf: Intf | None = None) -> str:
        if intf is None:
            return self.dcn_ip
        return Host.IP(self, intf)
