"""Captures from the testbed (issue 12, inspection 3): the example of
docs/inspection.md, "Captures from the testbed", run as written (the
`--capture` option, then the CLI's `capture` command on a pseudo-terminal),
then every pcap file decoded by the Wireshark dissector (tshark) and by
dcn-dump, and the fields checked: DCN addresses, NHI and path at each port
of the relay, packet types, checksums, the inner IPv4 packet; dcn-dump
agreeing with tshark frame by frame. Also: bad `--capture` input, and the
captures of a killed run ending with `make clean-testbed`. Root only; run by
tests/integration/run.sh under the machine-wide lock."""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from orchestrator import state
from orchestrator.topology import tool_path
from tests.support import testing
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "inspect"))
from pcaptools import tshark_env, tshark_fields  # noqa: E402
from tb_harness import (ENTRY, alive, clean_testbed, kill_hard, no_traceback, read_until,  # noqa: E402
                        start_held, start_on_pty)

BUILD = testing.build_dir()
REPO = testing.REPO
DOC = os.path.join(REPO, "docs", "inspection.md")
DOC_DIR = "/tmp/dcn-capture"  # the folder the documented commands use; the test's own replaces it
LUA = os.path.join(REPO, "tools", "wireshark", "dcn.lua")
DUMP = tool_path(os.path.join(BUILD, "agent", "src", "dump"), "dcn-dump")

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)"),
    pytest.mark.skipif(not shutil.which("tcpdump"), reason="needs tcpdump"),
]
needs_agent = pytest.mark.skipif(not testing.agent_built(BUILD) or "bcube" not in testing.families(BUILD),
                                 reason="needs dcn-agent and the bcube family")


def doc_example():
    """The block of the section "Captures from the testbed": a list of
    (kind, command, shown output lines), kind "$" (shell) or "dcn>" (CLI)."""
    text = open(DOC).read()
    sec = text[text.index("## Captures from the testbed"):]
    block = sec[sec.index("```\n") + 4:]
    block = block[:block.index("```\n")]
    steps = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append(["$", line[2:], []])
        elif line.startswith("dcn> "):
            steps.append(["dcn>", line[5:], []])
        else:
            steps[-1][2].append(line)
    return steps


def check_shown(cmd, shown, out):
    """Every output line the page shows is in the real output ("..." elides;
    a line ending in "..." is checked up to there)."""
    for line in shown:
        want = line[:-3].rstrip() if line.endswith("...") else line
        if want:
            assert want in out, "docs: `%s` shows %r, not in its output:\n%s" % (cmd, line, out)


def local(cmd, tmp):
    """A documented shell command as this checkout runs it."""
    words = shlex.split(cmd.replace(DOC_DIR, tmp))
    if words[0] == "sudo":  # the test runs as root already
        words = words[1:]
    if words[0] == "orchestrator/dcn_testbed.py":
        return [sys.executable, ENTRY, "--build-dir", BUILD] + words[1:]
    if words[0] == "dcn-dump":
        return [DUMP] + words[1:]
    return words


# ----------------------------------------------------------------- decoding
FIELDS = ["frame.number", "dcn.type_name", "dcn.src", "dcn.dst", "dcn.src_name", "dcn.dst_name", "dcn.id",
          "dcn.nhi", "dcn.nhops", "dcn.path", "dcn.checksum.status", "dcn.malformed", "_ws.malformed",
          "ip.src", "ip.dst", "icmp.type", "icmp.seq", "tcp.srcport", "tcp.dstport"]


def tshark_rows(pcap, tmp):
    r, rows = tshark_fields(LUA, pcap, FIELDS, tmp, ["-o", "dcn.bcube_n:2", "-o", "dcn.bcube_k:1", "-E", "occurrence=f"],
                            timeout=60)
    assert r.returncode == 0 and "Lua" not in r.stderr, "tshark %s: %s" % (pcap, r.stderr[-400:])
    return rows


LINE = re.compile(r"^\S+ (?P<type>\S+) (?P<src>\S+) > (?P<dst>\S+) id (?P<id>\d+) nhi (?P<nhi>\d+)/(?P<nhops>\d+) "
                  r"path (?P<path>\S+) len \d+")


def dump_rows(pcap):
    r = subprocess.run([DUMP, "-r", pcap, "--topo", "bcube n=2 k=1"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, "dcn-dump %s: %s" % (pcap, r.stderr)
    lines = r.stdout.splitlines()
    end = next(i for i, l in enumerate(lines) if l.startswith("summary: "))
    return lines[:end], lines[end:]


def check_file(pcap, tmp):
    """Both decoders on one file; returns tshark's rows."""
    rows = tshark_rows(pcap, tmp)
    assert rows, "%s: no frames" % pcap
    types = {r["dcn.type_name"] for r in rows}
    assert "hello" in types, "%s: types %s" % (pcap, types)
    for r in rows:
        where = "%s frame %s" % (os.path.basename(pcap), r["frame.number"])
        assert r["dcn.type_name"], "%s: not decoded as DCN" % where
        assert r["dcn.checksum.status"] == "1", "%s: checksum status %r" % (where, r["dcn.checksum.status"])
        assert not r["dcn.malformed"] and not r["_ws.malformed"], "%s: malformed %r" % (where, r["dcn.malformed"])
        if r["dcn.type_name"] == "hello":
            assert r["dcn.dst"] == "4294967295" and r["dcn.nhops"] == "0", where
        if r["dcn.type_name"] == "data":
            assert r["ip.src"] and r["ip.dst"], "%s: inner IPv4 not decoded" % where
    # dcn-dump reads the same frames, with the same fields
    lines, summary = dump_rows(pcap)
    assert len(lines) == len(rows), "%s: dcn-dump %d frames, tshark %d" % (pcap, len(lines), len(rows))
    n = len(rows)
    assert summary[0] == "summary: %d frames, %d DCN, 0 malformed, 0 other" % (n, n), summary
    for r, l in zip(rows, lines):
        m = LINE.match(l)
        assert m, "%s: dcn-dump line %r" % (pcap, l)
        d = m.groupdict()
        want = {"type": r["dcn.type_name"], "src": r["dcn.src_name"], "dst": r["dcn.dst_name"], "id": r["dcn.id"],
                "nhi": r["dcn.nhi"], "nhops": r["dcn.nhops"], "path": r["dcn.path"] or "-"}
        assert d == want, "%s frame %s: dcn-dump %s, tshark %s" % (pcap, r["frame.number"], d, want)
    return rows


# relay -> (its port towards h00, its port towards h11) in BCube_1(n=2)
RELAYS = {"h01": ("h01-eth0", "h01-eth1"), "h10": ("h10-eth1", "h10-eth0")}


def check_relayed(files, rows_of):
    """The ping's requests and replies, and the TCP segments of iperf3,
    through whichever relay carried them: NHI 1 on the port they enter by,
    2 on the port they leave by, the path naming that relay."""
    seen = {"request": set(), "reply": set()}
    tcp = {"h00": 0, "h11": 0}
    ips = {"h00": "10.0.0.1", "h11": "10.0.0.4"}
    for relay, (west, east) in RELAYS.items():
        w, e = rows_of[files[west]], rows_of[files[east]]
        for kind, icmp, src, dst, enter, leave in (("request", "8", "h00", "h11", w, e),
                                                   ("reply", "0", "h11", "h00", e, w)):
            ids = {"h00": "0", "h11": "3"}
            got = {}
            for port, rows, nhi in (("enter", enter, "1"), ("leave", leave, "2")):
                pkts = [r for r in rows if r["dcn.type_name"] == "data" and r["icmp.type"] == icmp]
                for r in pkts:
                    where = "%s %s at %s (%s)" % (kind, r["icmp.seq"], relay, port)
                    assert [r["dcn.src"], r["dcn.dst"]] == [ids[src], ids[dst]], where
                    assert [r["dcn.src_name"], r["dcn.dst_name"]] == [src, dst], where
                    assert [r["ip.src"], r["ip.dst"]] == [ips[src], ips[dst]], where
                    assert [r["dcn.nhi"], r["dcn.nhops"]] == [nhi, "2"], where
                    path = "%s,[%s],%s" % (src, relay, dst) if nhi == "1" else "%s,%s,[%s]" % (src, relay, dst)
                    assert r["dcn.path"] == path, "%s: path %s, expected %s" % (where, r["dcn.path"], path)
                got[port] = {r["icmp.seq"] for r in pkts}
            assert got["enter"] == got["leave"], "%s: %ss in %s, out %s" % (relay, kind, got["enter"], got["leave"])
            seen[kind] |= got["enter"]
        # TCP of iperf3 (data to port 5201, ACKs back): what leaves entered
        for field, src, dst, enter, leave in (("tcp.dstport", "h00", "h11", w, e),
                                              ("tcp.srcport", "h11", "h00", e, w)):
            segs = {}
            for port, rows, nhi in (("enter", enter, "1"), ("leave", leave, "2")):
                pkts = [r for r in rows if r["dcn.type_name"] == "data" and r[field] == "5201"]
                for r in pkts:
                    assert [r["dcn.src_name"], r["dcn.dst_name"], r["dcn.nhi"]] == [src, dst, nhi], r
                    assert [r["ip.src"], r["ip.dst"]] == [ips[src], ips[dst]], r
                    path = "%s,[%s],%s" % (src, relay, dst) if nhi == "1" else "%s,%s,[%s]" % (src, relay, dst)
                    assert r["dcn.path"] == path, r
                segs[port] = {r["dcn.id"] for r in pkts}
            assert segs["leave"] <= segs["enter"], "%s: TCP segments left without entering" % relay
            tcp[src] += len(segs["enter"])
    assert seen == {"request": {"1", "2", "3"}, "reply": {"1", "2", "3"}}, seen
    # about 80 full segments reach the server before iperf3 -n 200K ends its test
    assert tcp["h00"] >= 50 and tcp["h11"] >= 20, "TCP segments through the relays: %s" % tcp


@needs_agent
@pytest.mark.skipif(not shutil.which("tshark") or not DUMP, reason="needs tshark and dcn-dump")
def test_documented_capture_decoded_by_both_decoders():
    tmp = tempfile.mkdtemp(prefix="dcn-capture-test-")
    _run_documented(tmp)
    shutil.rmtree(tmp, ignore_errors=True)  # kept when a check failed, to look at


def _run_documented(tmp):
    steps = doc_example()
    assert steps[0][0] == "$" and "dcn_testbed.py" in steps[0][1], steps[0]
    p, master, out_r = start_on_pty(local(steps[0][1], tmp), cwd=REPO)
    t0 = time.time()
    try:
        out = read_until(out_r, "dcn> ", timeout=60, at_end=True)
        no_traceback(out)
        check_shown(steps[0][1], steps[0][2], out.replace(tmp, DOC_DIR))
        data = state.load()
        assert data and data["owner"]["pid"] == p.pid
        caps = [r for r in data["procs"] if r["what"].startswith("capture ")]
        assert sorted(r["what"] for r in caps) == ["capture h01-eth0", "capture h01-eth1"], caps
        i = 1
        while steps[i][0] == "dcn>":
            cmd, shown = steps[i][1], steps[i][2]
            os.write(master, (cmd + "\n").encode())
            if cmd == "exit":
                out = read_until(out_r, None, timeout=60)
                p.wait(30)
            else:
                out = read_until(out_r, "dcn> ", timeout=60, at_end=True)
                out = out[:-len("dcn> ")]
                if cmd == "capture start h10 s0_0-eth1":  # every tcpdump the run started
                    caps = [r for r in state.load()["procs"] if r["what"].startswith("capture ")]
                    assert len(caps) == 5, caps
            no_traceback(out)
            check_shown(cmd, shown, out.replace(tmp, DOC_DIR))
            i += 1
        assert p.returncode == 0, out
        assert "teardown done" in out
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.close(master)
        os.close(out_r)
    print("testbed with captures: %.1f s" % (time.time() - t0))
    # no tcpdump outlives the run, nothing else either
    assert not [r for r in caps if alive(r["pid"]) and state.same_process(r)]
    assert testing.leftovers_of_state(data) == {}
    assert state.load() is None
    # one file per port, each complete
    files = {lb: os.path.join(tmp, lb + ".pcap") for lb in
             ("h01-eth0", "h01-eth1", "h10-eth0", "h10-eth1", "s0_0-eth1")}
    assert sorted(os.listdir(tmp)) == sorted(os.path.basename(f) for f in files.values()), os.listdir(tmp)
    # the documented decoding commands (the ping crossed one of the relays)
    icmp_lines = []
    for kind, cmd, shown in steps[i:]:
        assert kind == "$", cmd
        r = subprocess.run(local(cmd, tmp), capture_output=True, text=True, timeout=60, cwd=REPO, env=tshark_env(tmp))
        assert r.returncode == 0 and "Lua" not in r.stderr, "docs: `%s`: exit %d %s" % (cmd, r.returncode, r.stderr[-300:])
        check_shown(cmd, shown, r.stdout)
        if "dcn-dump" in cmd:
            assert "summary: " in r.stdout, r.stdout
        else:
            icmp_lines += r.stdout.splitlines()
    assert len(icmp_lines) == 6, icmp_lines  # 3 requests leaving the relay, 3 replies entering it
    assert sorted(l.split()[0] + l.split()[-1] for l in icmp_lines) == ["10"] * 3 + ["28"] * 3, icmp_lines
    check_captures(tmp, files)


def check_captures(tmp, files):
    """Every file through both decoders, and what the run must have left in
    them."""
    t1 = time.time()
    rows_of = {f: check_file(f, tmp) for f in files.values()}
    check_relayed(files, rows_of)
    for f in files.values():
        if os.path.basename(f).startswith("h"):
            assert "data" in {r["dcn.type_name"] for r in rows_of[f]}, "%s: no data frames" % f
    # hellos of the two servers on s0_0, at both ends of h01's cable to it;
    # the switch port's frames (captured for a while) are those of h01-eth0
    for f in (files["h01-eth0"], files["s0_0-eth1"]):
        hellos = {r["dcn.src_name"] for r in rows_of[f] if r["dcn.type_name"] == "hello"}
        assert hellos == {"h00", "h01"}, (f, hellos)

    def key(r):
        return (r["dcn.type_name"], r["dcn.src"], r["dcn.id"], r["dcn.nhi"])
    on_switch, on_server = [key(r) for r in rows_of[files["s0_0-eth1"]]], {key(r) for r in rows_of[files["h01-eth0"]]}
    assert not [k for k in on_switch if k not in on_server], "frames on s0_0-eth1 that h01-eth0 did not see"
    # --capture started before the agents: h01's first frame (packet id 0,
    # a hello) is in one of its files
    ids = [int(r["dcn.id"]) for f in ("h01-eth0", "h01-eth1") for r in rows_of[files[f]] if r["dcn.src_name"] == "h01"]
    assert min(ids) == 0, "h01's first frame is missing (its lowest packet id: %d)" % min(ids)
    print("decoded %d frames in %.1f s" % (sum(len(r) for r in rows_of.values()), time.time() - t1))


def test_bad_capture_input_is_one_line_and_builds_nothing(tmp_path):
    base = [sys.executable, ENTRY, "--build-dir", BUILD, "--topo", "tree leaves=1 per_leaf=2", "--switch", "lxbr",
            "--no-smoke"]
    blocker = tmp_path / "file"
    blocker.write_text("")
    for extra, want in ((["--capture", "h1,h9-eth0"], "dcn_testbed: --capture: no port named h9-eth0 ("),
                        (["--capture", "s0-eth7"], "dcn_testbed: --capture: no port named s0-eth7 ("),
                        (["--capture", "h1", "--capture-dir", str(blocker / "sub")],
                         "dcn_testbed: --capture: capture folder %s: Not a directory" % (blocker / "sub"))):
        r = subprocess.run(base + extra, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        no_traceback(r.stderr)
        assert r.returncode == 2, (extra, r.stdout, r.stderr)
        assert r.stderr.strip().splitlines() == [r.stderr.strip()] and r.stderr.startswith(want), (extra, r.stderr)
        assert "*** hosts" not in r.stdout and state.load() is None, (extra, r.stdout)
    assert os.listdir(tmp_path) == ["file"]


def test_captures_of_a_killed_run_go_with_make_clean_testbed(tmp_path):
    """SIGKILL leaves the tcpdumps running (each in its own session); the
    state file lists them, so --clean ends them. The switch port captured is
    h1's own link (s0-eth1): the tcpdump on h1-eth0 keeps h1's namespace, and
    so both ends of that veth, alive. A switch port of another host would
    vanish when that host's shell exits with the killed run (its namespace
    goes, and the veth with it), and its tcpdump would end by itself with
    "The interface disappeared", sooner or later after the kill (seen in CI
    with s0-eth0)."""
    p, out = start_held(["--build-dir", BUILD, "--topo", "tree leaves=1 per_leaf=2", "--switch", "lxbr", "--no-smoke",
                         "--hold", "--capture", "h1,s0-eth1", "--capture-dir", str(tmp_path)])
    assert "holding the testbed up" in out, out
    data = state.load()
    caps = [r for r in data["procs"] if r["what"].startswith("capture ")]
    assert sorted(r["what"] for r in caps) == ["capture h1-eth0", "capture s0-eth1"], caps
    kill_hard(p)
    assert all(alive(r["pid"]) for r in caps)
    clean_testbed()
    assert not [c for c in caps if alive(c["pid"])], "a tcpdump survived make clean-testbed"
    assert testing.leftovers_of_state(data) == {}
    assert sorted(os.listdir(tmp_path)) == ["h1-eth0.pcap", "s0-eth1.pcap"]


def test_default_folder_restart_and_stop_errors():
    """Without --capture-dir the files go to results/captures/<UTC
    date-time>/; a second capture on a port gets a new file; stopping a port
    not captured is an error; the packet count comes back."""
    from orchestrator.errors import TestbedError
    from orchestrator.testbed import Testbed
    made = None
    try:
        with Testbed(BUILD, "tree leaves=1 per_leaf=2", switch="lxbr", log=lambda _m: None) as tb:
            (label, path), = tb.capture_start(["h0-eth0"])
            made = os.path.dirname(path)
            assert label == "h0-eth0" and os.path.dirname(made) == os.path.join(REPO, "results", "captures")
            assert re.fullmatch(r"\d{8}-\d{6}", os.path.basename(made)), made
            tb.hosts["h0"].cmd("ping -c 2 -i 0.2 10.0.0.2")
            with pytest.raises(TestbedError, match="already capturing on h0-eth0"):
                tb.capture_start(["h0"])
            with pytest.raises(TestbedError, match="not capturing on h1-eth0"):
                tb.capture_stop(["h1-eth0"])
            (_, p1, n), = tb.capture_stop(["h0"])
            assert p1 == path and n >= 4, n  # 2 requests, 2 replies (and ARP)
            (_, p2), = tb.capture_start(["h0-eth0"])
            assert p2 == os.path.join(made, "h0-eth0-2.pcap")
            assert [c[0] for c in tb.capture_list()] == ["h0-eth0"]
        assert sorted(os.listdir(made)) == ["h0-eth0-2.pcap", "h0-eth0.pcap"]
        owner = os.environ.get("SUDO_UID")
        if owner:  # under sudo the files are the user's
            assert all(os.stat(os.path.join(made, f)).st_uid == int(owner) for f in os.listdir(made))
    finally:
        if made:
            shutil.rmtree(made, ignore_errors=True)
            try:
                os.rmdir(os.path.dirname(made))  # results/captures/, if this test made it and it is empty
            except OSError:
                pass
