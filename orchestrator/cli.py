"""Mininet's CLI plus failure-injection and inspection commands, and the
decision whether to open it at all (a terminal on stdin, usable)."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, TextIO

from mininet.cli import CLI
from mininet.log import output

from .errors import TestbedError

if TYPE_CHECKING:
    from .testbed import Testbed


class DcnCLI(CLI):
    prompt = "dcn> "

    def __init__(self, testbed: Testbed, **kw: Any) -> None:
        self.tb = testbed
        CLI.__init__(self, testbed.net, **kw)

    def _two(self, line, what):
        args = line.split()
        if len(args) != 2:
            output(f"usage: {what} NODE_A NODE_B\n")
            return None
        return args

    def _one(self, line, what):
        args = line.split()
        if len(args) != 1:
            output(f"usage: {what} NAME\n")
            return None
        return args[0]

    def _do(self, fn, *args):
        try:
            fn(*args)
        except TestbedError as e:
            output(f"*** {e}\n")

    def do_link_down(self, line: str) -> None:
        "link_down A B: cut the link(s) between nodes A and B (both ends down)."
        a = self._two(line, "link_down")
        if a:
            self._do(self.tb.link_down, *a)

    def do_link_up(self, line: str) -> None:
        "link_up A B: restore the link(s) between A and B."
        a = self._two(line, "link_up")
        if a:
            self._do(self.tb.link_up, *a)

    def do_link_silent(self, line: str) -> None:
        "link_silent A B [both|A>B]: drop the link's frames (one direction, or both) with the carrier up."
        args = line.split()
        if len(args) not in (2, 3):
            output("usage: link_silent NODE_A NODE_B [both|NODE_A>NODE_B]\n")
            return
        self._do(self.tb.link_silent, *args)

    def do_link_unsilent(self, line: str) -> None:
        "link_unsilent A B: the link between A and B carries frames again."
        a = self._two(line, "link_unsilent")
        if a:
            self._do(self.tb.link_unsilent, *a)

    def do_server_down(self, line: str) -> None:
        "server_down H: stop H's agent and take its ports down."
        n = self._one(line, "server_down")
        if n:
            self._do(self.tb.server_down, n)

    def do_server_up(self, line: str) -> None:
        "server_up H: ports up and agent restarted."
        n = self._one(line, "server_up")
        if n:
            self._do(self.tb.server_up, n)

    def do_switch_down(self, line: str) -> None:
        "switch_down S: every port of switch S down (library switch name)."
        n = self._one(line, "switch_down")
        if n:
            self._do(self.tb.switch_down, n)

    def do_switch_up(self, line: str) -> None:
        "switch_up S: switch S's ports up again."
        n = self._one(line, "switch_up")
        if n:
            self._do(self.tb.switch_up, n)

    def do_switches(self, _line: str) -> None:
        "switches: library switch names and their bridges."
        w = self.tb.wiring
        for s in w.switch_list:
            output(f'{s["name"]} -> {w.bridge[s["name"]]} ({s["ports"]:d} ports)\n')

    def do_wiring(self, line: str) -> None:
        "wiring [NODE]: links (all, or of one node) with their interfaces."
        w = self.tb.wiring
        node = line.strip()
        for l in (w.links_of(node) if node else w.links):
            output(f'{l["a"]}:{l["a_port"]:d} ({l["a_if"]}) <-> {l["b"]}:{l["b_port"]:d} ({l["b_if"]}) {l["kind"]}\n')

    def do_agents(self, _line: str) -> None:
        "agents: readiness of every agent."
        if not self.tb.agent_mode:
            output("no agents (plain IP baseline)\n")
            return
        for name in self.tb.hosts:
            st = self.tb.agent_status(name)
            if st is None:
                output(f'{name}: {"stopped" if name not in self.tb.agents else "unreachable"}\n')
            else:
                ready = " ready" if st.get("ready") else ""
                output(f'{name}: {st.get("ip")} {st.get("neighbors_up")}/{st.get("neighbors_total")} neighbours{ready}\n')

    def do_ctl(self, line: str) -> None:
        """ctl H [status|neighbors|flows|segments|counters|failures|paths DST] [--json]: dcn-ctl for
        server H's agent (`h00 dcn-ctl -n h00` does not work: Mininet turns the
        second h00 into its address)."""
        args = line.split()
        if len(args) < 2 or not self.tb.agent_mode:
            output("usage: ctl SERVER COMMAND [ARG] [--json] (agents only)\n")
            return
        if args[0] not in self.tb.hosts:
            output(f"*** no server named {args[0]}\n")
            return
        import subprocess
        r = subprocess.run([self.tb.ctl_bin, "-s", self.tb._sock(args[0])] + args[1:],  # pylint: disable=protected-access
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=10)
        output(r.stdout)

    def do_capture(self, line: str) -> None:
        """capture start PORT... | capture stop [PORT...] | capture [list]:
        tcpdump on testbed ports, one pcap file per port (NODE-ethP: h00-eth0,
        s0_0-eth1; or a node name for all its ports) in the run's capture
        folder (--capture-dir, default results/captures/<UTC date-time>/).
        stop without ports stops every capture; the teardown stops the rest.
        Decode the files with dcn-dump -r or tshark (docs/inspection.md)."""
        args = line.split()
        usage = "usage: capture start PORT... | capture stop [PORT...] | capture [list]\n"
        if not args or args == ["list"]:
            caps = self.tb.capture_list()
            if not caps:
                output("no captures running\n")
            for label, ifn, path in caps:
                output(f"{label} ({ifn}) -> {path}\n")
            return
        cmd, ports = args[0], args[1:]
        try:
            if cmd == "start" and ports:
                self.tb.capture_start(ports)
            elif cmd == "stop":
                if not ports and not self.tb.captures:
                    output("no captures running\n")
                self.tb.capture_stop(ports or None)
            else:
                output(usage)
        except TestbedError as e:
            output(f"*** {e}\n")

    def do_events(self, _line: str) -> None:
        "events: the failure-injection log of this run."
        for e in self.tb.events:
            output(e + "\n")


def terminal_stdin(stdin: TextIO | None) -> bool:
    """Whether stdin is an open terminal: False for a closed stdin (None, as
    Python sets it for `<&-`), a pipe, a file or /dev/null."""
    if stdin is None:
        return False
    try:
        return os.isatty(stdin.fileno())
    except (OSError, ValueError, AttributeError):
        return False


def run_cli(testbed: Testbed) -> str | None:
    """Mininet's CLI until `exit` or Ctrl-D (Mininet's do_EOF). Returns None,
    or a one-line reason when the terminal stopped answering: a read from a
    terminal that went away (its pty master closed, a hangup) or from one
    whose process group is orphaned fails with EIO, which Mininet does not
    catch."""
    try:
        DcnCLI(testbed)
    except EOFError:
        return None
    except OSError as e:
        return f"cannot read the terminal ({e.strerror or e})"
    return None
