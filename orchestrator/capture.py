"""Packet captures on the testbed's ports: one tcpdump per port, started in
the namespace the port lives in (a server's, or the root namespace for a
switch port), writing one pcap file per port, packet-buffered (`-U`) so that
the file is complete up to the last packet whenever it is read; ended by PID
(`capture stop`, or first thing at teardown). Used by `dcn_testbed.py
--capture` and the CLI's `capture` command (docs/inspection.md)."""
from __future__ import annotations

import datetime
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterable

from . import netops, state
from .errors import TestbedError

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_PARENT = os.path.join(REPO, "results", "captures")
RUN_DIR = state.STATE_DIR


def default_dir() -> str:
    """results/captures/<UTC date-time>/: one folder per testbed run."""
    return os.path.join(DEFAULT_PARENT, datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S"))


def split_ports(values: Iterable[str]) -> list[str]:
    """`--capture h01,h10-eth0 --capture s0_0-eth1` -> the names, in order."""
    out = []
    for v in values or ():
        out += [p for p in re.split(r"[,\s]+", v) if p]
    return out


def _owner():
    """The user behind sudo, who should be able to open the files."""
    try:
        return int(os.environ["SUDO_UID"]), int(os.environ["SUDO_GID"])
    except (KeyError, ValueError):
        return None


def _makedirs_owned(path):
    """os.makedirs, giving each folder it creates to the user behind sudo."""
    made = []
    p = os.path.abspath(path)
    while not os.path.isdir(p):
        made.append(p)
        p = os.path.dirname(p)
    os.makedirs(path, exist_ok=True)
    owner = _owner()
    if owner:
        for d in made:
            try:
                os.chown(d, *owner)
            except OSError:
                pass


class Captures:
    """Mixin of Testbed. self.captures: label -> dict(proc, path, ifname, log)."""

    # ------------------------------------------------------------- names
    def _port_table(self):
        """label -> (node, ifname, server?) for every port of the testbed.
        Labels are NODE-eth<port> in the library's node names (h00-eth0,
        s0_0-eth1); the emulated interface names (dcn0-eth1, x5-eth0) are
        accepted as well."""
        w = self.wiring
        table, alias = {}, {}
        for l in w.links:
            for end, port, ifn in ((l["a"], l["a_port"], l["a_if"]), (l["b"], l["b_port"], l["b_if"])):
                label = f"{end}-eth{port:d}"
                table[label] = (end, ifn, w.is_server(end))
                alias[ifn] = label
        return table, alias

    def resolve_ports(self, names: list[str]) -> list[str]:
        """Port labels for the given names: a port (h00-eth0, s0_0-eth1,
        dcn0-eth1), or a node name for all its ports (h01, s0_0). One
        TestbedError naming the first unknown name."""
        if self.wiring is None:
            raise TestbedError("the testbed is not up")
        table, alias = self._port_table()
        out = []
        for n in names:
            if n in table:
                found = [n]
            elif n in alias:
                found = [alias[n]]
            elif n in self.wiring.servers or n in self.wiring.switches:
                found = sorted((lb for lb, v in table.items() if v[0] == n),
                               key=lambda lb: int(lb.rsplit("-eth", 1)[1]))
            else:
                ex = sorted(table)
                raise TestbedError(f'no port named {n} (ports are NODE-ethP, e.g. {next(x for x in ex if table[x][2])}, '
                                   f'{next((x for x in ex if not table[x][2]), "-")}; or a node name for all '
                                   "its ports; `wiring` lists them)")
            out += [lb for lb in found if lb not in out]
        if not out:
            raise TestbedError("no ports to capture on")
        return out

    @staticmethod
    def check_capture_tool() -> None:
        if not shutil.which("tcpdump"):
            raise TestbedError("capture needs tcpdump (apt install tcpdump)")

    def prepare_capture_dir(self, directory: str | None = None) -> str:
        """The folder of this run's captures, created (with a clear error if
        it cannot be)."""
        d = os.path.abspath(directory or self.capture_dir or default_dir())
        try:
            _makedirs_owned(d)
        except OSError as e:
            raise TestbedError(f"capture folder {d}: {e.strerror or e}") from None
        if not os.access(d, os.W_OK):
            raise TestbedError(f"capture folder {d} is not writable")
        self.capture_dir = d
        return d

    def _capture_path(self, label):
        base = re.sub(r"[^A-Za-z0-9_.-]", "_", label)
        path = os.path.join(self.capture_dir, base + ".pcap")
        i = 2
        while os.path.exists(path) or any(c["path"] == path for c in self.captures.values()):
            path = os.path.join(self.capture_dir, f"{base}-{i:d}.pcap")
            i += 1
        return path

    # ------------------------------------------------------------- start/stop
    def capture_start(self, names: list[str]) -> list:
        """Start a tcpdump on each port named; returns [(label, path)] once
        every one of them listens. Ports already captured are an error."""
        self.check_capture_tool()
        labels = self.resolve_ports(names)
        busy = [lb for lb in labels if lb in self.captures]
        if busy:
            raise TestbedError(f'already capturing on {", ".join(busy)} (capture stop first)')
        self.prepare_capture_dir(self.capture_dir)
        table, _ = self._port_table()
        os.makedirs(os.path.join(RUN_DIR, "logs"), exist_ok=True)
        started = []
        try:
            for lb in labels:
                node, ifn, is_server = table[lb]
                path = self._capture_path(lb)
                logf = os.path.join(RUN_DIR, "logs", f'capture-{re.sub(r"[^A-Za-z0-9_.-]", "_", lb)}.stderr')
                # -p: leave the port's promiscuous setting alone (a packet
                # socket sees every frame of a veth anyway); --immediate-mode:
                # each frame handed over at once, not when a ring block fills
                # or times out (SIGTERM ends tcpdump without draining the
                # ring: a short capture of light traffic came out empty);
                # -U: each frame written at once; -Z root: keep root, so the
                # file can go into any folder root may write.
                cmd = ["tcpdump", "-i", ifn, "-p", "-U", "--immediate-mode", "-n", "-Z", "root", "-w", path]
                with open(logf, "wb") as errf:
                    if is_server:
                        p = self._spawn(self.hosts[node], cmd, "capture " + lb, stderr=errf)
                    else:
                        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                             stderr=errf, start_new_session=True)
                        self.state.add_proc(p.pid, "capture " + lb, save=False)
                self.captures[lb] = {"proc": p, "path": path, "ifname": ifn, "log": logf}
                started.append(lb)
            self.state.save()
            self._wait_listening(started)
        except TestbedError:
            self.capture_stop(started, quiet=True)
            raise
        for lb in started:
            self.log(f'*** capturing on {lb} ({self.captures[lb]["ifname"]}) into {self.captures[lb]["path"]}')
        return [(lb, self.captures[lb]["path"]) for lb in started]

    def _wait_listening(self, labels, timeout=10.0):
        """Until each tcpdump says it listens (its capture is then open, so
        no frame sent afterwards is missed)."""
        pending = list(labels)
        deadline = time.time() + timeout
        while pending:
            for lb in list(pending):
                c = self.captures[lb]
                text = _read(c["log"])
                if "listening on" in text:
                    pending.remove(lb)
                elif c["proc"].poll() is not None:
                    last = [l for l in text.splitlines() if l.strip()]
                    why = last[-1] if last else f'tcpdump exited with status {c["proc"].returncode:d}'
                    raise TestbedError(f"capture on {lb}: {why}")
            if pending and time.time() > deadline:
                raise TestbedError(f"capture on {pending[0]}: tcpdump did not start within {timeout:.0f} s")
            if pending:
                time.sleep(0.02)

    def capture_stop(self, names: list[str] | None = None, quiet: bool = False) -> list[tuple[str, str, int | None]]:
        """Stop the captures on the ports named (all without names): SIGTERM
        by PID, tcpdump writes out its last packets and exits. Returns
        [(label, path, packets or None)]."""
        if names is None:
            labels = list(self.captures)
        else:
            labels = []
            for lb in self.resolve_ports(names):
                if lb not in self.captures:
                    raise TestbedError(f"not capturing on {lb}")
                labels.append(lb)
        procs = [self.captures[lb]["proc"] for lb in labels]
        netops.stop_popens(procs)
        owner = _owner()
        out = []
        for lb in labels:
            c = self.captures.pop(lb)
            self.state.drop_proc(c["proc"].pid, save=False)
            m = re.search(r"(\d+) packets? captured", _read(c["log"]))
            n = int(m.group(1)) if m else None
            if owner and os.path.exists(c["path"]):
                try:
                    os.chown(c["path"], *owner)
                except OSError:
                    pass
            out.append((lb, c["path"], n))
            if not quiet:
                self.log(f'*** capture on {lb} stopped: {"?" if n is None else n} packets in {c["path"]}')
        if labels:
            self.state.save()
        return out

    def capture_list(self) -> list:
        return [(lb, c["ifname"], c["path"]) for lb, c in self.captures.items()]


def _read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""
