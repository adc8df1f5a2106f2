"""Failure injection: links, servers and switches down and up, each logged
with a timestamp (the experiments' timelines read these events)."""
import datetime

from . import netops
from .errors import TestbedError


def _now_iso():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


class Failures:
    """Mixin of Testbed."""

    def event(self, what, *args):
        line = "%s %s %s" % (_now_iso(), what, " ".join(args))
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
        raise TestbedError("no node named %s" % name)

    def _set_end(self, node, ifn, up):
        pid = self.hosts[node].pid if self.wiring.is_server(node) else None
        return netops.set_up([ifn], pid, up)

    def _set_link(self, a, b, up):
        self._node_kind(a), self._node_kind(b)
        links = self.wiring.links_between(a, b)
        if not links:
            raise TestbedError("no link between %s and %s" % (a, b))
        for l in links:
            self._set_end(l["a"], l["a_if"], up)
            self._set_end(l["b"], l["b_if"], up)
        return links

    def link_down(self, a, b):
        self._set_link(a, b, False)
        self.event("link_down", a, b)

    def link_up(self, a, b):
        self._set_link(a, b, True)
        self.event("link_up", a, b)

    def _server_ports(self, name):
        return [l["a_if"] if l["a"] == name else l["b_if"] for l in self.wiring.links_of(name)]

    def server_down(self, name):
        """Server failure: its agent stopped, all its ports down."""
        if self._node_kind(name) != "server":
            raise TestbedError("%s is not a server" % name)
        self.stop_agent(name)
        netops.set_up(self._server_ports(name), self.hosts[name].pid, False)
        self.event("server_down", name)

    def server_up(self, name, wait=False):
        if self._node_kind(name) != "server":
            raise TestbedError("%s is not a server" % name)
        netops.set_up(self._server_ports(name), self.hosts[name].pid, True)
        if self.agent_mode and name not in self.agents:
            self.start_agent(name)
            self.state.save()
        self.event("server_up", name)
        if wait and self.agent_mode:
            self.wait_ready([name])

    def _switch_ports(self, name):
        return [l["a_if"] if l["a"] == name else l["b_if"] for l in self.wiring.links_of(name)]

    def switch_down(self, name):
        """Switch failure: every port of the bridge down (its peers lose carrier)."""
        if self._node_kind(name) != "switch":
            raise TestbedError("%s is not a switch" % name)
        netops.set_up(self._switch_ports(name), None, False)
        self.event("switch_down", name)

    def switch_up(self, name):
        if self._node_kind(name) != "switch":
            raise TestbedError("%s is not a switch" % name)
        netops.set_up(self._switch_ports(name), None, True)
        self.event("switch_up", name)
