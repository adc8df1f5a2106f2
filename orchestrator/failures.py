"""Failure injection: links, servers and switches down and up, each logged
with a timestamp (the experiments' timelines read these events)."""
from __future__ import annotations

import datetime

from . import linkclass, netops
from .cluster_testbed import ClusterTestbed
from .errors import TestbedError

# A silent fault: the egress of a link direction replaced by an 8 bit/s HTB
# class over a FIFO of no packets (this kernel has neither netem nor tc
# classifiers and actions), so its frames are dropped while both ends keep
# their carrier. Only missed hellos tell the agents. The FIFO holds none: a
# frame held would keep its TCP segment "in the host queue", and Linux does
# not retransmit such a segment (skb_still_in_host_queue), so its
# connection would stall until the fault ended, as no cable makes it.
SILENT_HANDLE = "7:"


def silent_lines(ifname: str) -> list:
    return [f"qdisc replace dev {ifname} root handle {SILENT_HANDLE} htb default 1",
            f"class add dev {ifname} parent {SILENT_HANDLE} classid {SILENT_HANDLE}1 htb rate 8bit ceil 8bit burst 1 "
            "cburst 1",
            f"qdisc add dev {ifname} parent {SILENT_HANDLE}1 handle 70: pfifo limit 0"]


def _now_iso():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


class Failures(ClusterTestbed):
    """Mixin of Testbed."""

    def event(self, what: str, *args: str) -> None:
        line = f'{_now_iso()} {what} {" ".join(args)}'
        self.events.append(line)
        self.log("[event] " + line)
        try:
            with open(self.event_log, "a") as f:
                f.write(line + "\n")
        except OSError:
            pass

    def _node_kind(self, name):
        if name in self.wiring.servers:
            return "server"
        if name in self.wiring.switches:
            return "switch"
        raise TestbedError(f"no node named {name}")

    def _set_end(self, node, ifn, up):
        return self._ns_set_up(node, [ifn], up)

    def _links(self, a, b):
        self._node_kind(a), self._node_kind(b)
        links = self.wiring.links_between(a, b)
        if not links:
            raise TestbedError(f"no link between {a} and {b}")
        return links

    def _set_link(self, a, b, up):
        links = self._links(a, b)
        for l in links:
            self._set_end(l["a"], l["a_if"], up)
            self._set_end(l["b"], l["b_if"], up)
        return links

    def link_down(self, a: str, b: str) -> None:
        self._set_link(a, b, False)
        self.failed_links[frozenset((a, b))] = "down"
        self.event("link_down", a, b)

    def link_up(self, a: str, b: str) -> None:
        self._set_link(a, b, True)
        self.failed_links.pop(frozenset((a, b)), None)
        self.event("link_up", a, b)

    def _silent_ends(self, a, b, direction):
        """(node, interface, link) of each egress that carries the chosen
        direction(s) of the links between a and b: "both", or "A>B" (the
        frames a sends towards b)."""
        links = self._links(a, b)
        if direction not in ("both", f"{a}>{b}", f"{b}>{a}"):
            raise TestbedError(f"direction {direction}: expected both, {a}>{b} or {b}>{a}")
        senders = {a, b} if direction == "both" else {direction.split(">")[0]}
        out = []
        for l in links:
            for end, ifn in ((l["a"], l["a_if"]), (l["b"], l["b_if"])):
                if end in senders:
                    out.append((end, ifn, l))
        return out

    def _tc(self, node, lines):
        self._ns_batch(node, "tc", lines, check=False)

    def link_silent(self, a: str, b: str, direction: str = "both") -> None:
        """A silent failure of the link(s) between a and b: every frame of
        the direction(s) dropped, the carrier up on both ends (the agents
        find it by missed hellos only). direction: "both" or "A>B"."""
        ends = self._silent_ends(a, b, direction)
        for node, ifn, _l in ends:
            self._tc(node, silent_lines(ifn))
            self.silenced.add((node, ifn))
        self.failed_links[frozenset((a, b))] = "silent" if direction == "both" else f"silent {direction}"
        self.event("link_silent", a, b, direction)

    def link_unsilent(self, a: str, b: str) -> None:
        """The link(s) between a and b carry frames again, shaped as before."""
        for node, ifn, l in self._silent_ends(a, b, "both"):
            if (node, ifn) in self.silenced:
                self._tc(node, [f"qdisc del dev {ifn} root"] + linkclass.tc_lines(ifn, self._link_params(l)))
                self.silenced.discard((node, ifn))
        self.failed_links.pop(frozenset((a, b)), None)
        self.event("link_unsilent", a, b)

    def _server_ports(self, name):
        return [l["a_if"] if l["a"] == name else l["b_if"] for l in self.wiring.links_of(name)]

    def server_down(self, name: str) -> None:
        """Server failure: its agent stopped, all its ports down."""
        if self._node_kind(name) != "server":
            raise TestbedError(f"{name} is not a server")
        self.stop_agent(name)
        self._ns_set_up(name, self._server_ports(name), False)
        self.failed_nodes[name] = "server"
        self.event("server_down", name)

    def server_up(self, name: str, wait: bool = False) -> None:
        if self._node_kind(name) != "server":
            raise TestbedError(f"{name} is not a server")
        self._ns_set_up(name, self._server_ports(name), True)
        self.failed_nodes.pop(name, None)
        if self.agent_mode and name not in self.agents:
            self.start_agent(name)
            self.state.save()
        self.event("server_up", name)
        if wait and self.agent_mode:
            self.wait_ready([name])

    def _switch_ports(self, name):
        return [l["a_if"] if l["a"] == name else l["b_if"] for l in self.wiring.links_of(name)]

    def switch_down(self, name: str) -> None:
        """Switch failure: every port of the bridge down (its peers lose carrier)."""
        if self._node_kind(name) != "switch":
            raise TestbedError(f"{name} is not a switch")
        netops.set_up(self._switch_ports(name), None, False)
        self.failed_nodes[name] = "switch"
        self.event("switch_down", name)

    def switch_up(self, name: str) -> None:
        if self._node_kind(name) != "switch":
            raise TestbedError(f"{name} is not a switch")
        netops.set_up(self._switch_ports(name), None, True)
        self.failed_nodes.pop(name, None)
        self.event("switch_up", name)
