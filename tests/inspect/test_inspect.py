#!/usr/bin/python3
"""Inspection tests: the captures written by gen_capture (frames made by the
agent's engine and codec, plus malformed ones) decoded by dcn-dump and by
the Wireshark dissector, compared field by field with what the generator
wrote (.expect), and with each other. Also runs every `$ ` command of
docs/inspection.md and compares its output where the page shows it.

  --part dcn_dump   dcn-dump against the expectations, and the docs' dcn-dump commands
  --part tshark     tshark -X lua_script:dcn.lua against the expectations and against
                    dcn-dump (also on mutated frames and on the fuzzers' corpus and
                    regression inputs in tests/fuzz/), and the docs' tshark commands;
                    exit 77 without tshark (1 with DCN_TEST_NO_SKIP set, as make test
                    sets it: it installs tshark first)
"""
import argparse
import os
import random
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

from pcaptools import pcap_frames, tshark_env, tshark_fields, write_pcap

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PATH_TOKENS = {"bad-src", "not-neighbor", "loop", "wrong-dst"}  # need the topology
TOPO = {"bcube": "bcube n=4 k=1", "mdcube": "mdcube n=2 k=1 m=2x2", "mdcube-hier": "mdcube n=2 k=1 m=5"}
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def expectations(path):
    keys = ["num", "type", "src", "dst", "nhi", "nhops", "named", "raw", "malformed", "ext", "ipsrc", "ipdst",
            "srcid", "dstid", "segflag", "segstart", "unreach"]
    rows = []
    with open(path) as f:
        for line in f:
            rows.append(dict(zip(keys, line.rstrip("\n").split("\t"))))
    return rows


LINE = re.compile(r"^(?P<time>\d\d:\d\d:\d\d\.\d{6}) (?P<type>\S+) (?P<src>\S+) > (?P<dst>\S+) id (?P<id>\d+) "
                  r"nhi (?P<nhi>\d+)/(?P<nhops>\d+) path (?P<path>\S+) len (?P<len>\d+)(?P<rest>.*)$")
HEADERLESS = re.compile(r"^(?P<time>\S+) (dcn|ether)( version \d+)? MALFORMED (?P<why>\S+) \(\d+ bytes\)$")


def dcn_dump(dump, pcap, *args):
    out = subprocess.run([dump, "-r", pcap, *args], capture_output=True, text=True, timeout=60)
    check(out.returncode == 0, f"dcn-dump {pcap} {args}: exit {out.returncode}: {out.stderr.strip()}")
    lines = out.stdout.splitlines()
    frames = [l for l in lines if re.match(r"^\d\d:\d\d:\d\d\.", l)]
    summary = [l for l in lines if not re.match(r"^\d\d:\d\d:\d\d\.", l)]
    parsed = []
    for l in frames:
        m = LINE.match(l)
        if m:
            d = m.groupdict()
            w = re.search(r" MALFORMED (\S+)$", d["rest"])
            d["malformed"] = w.group(1) if w else "-"
            e = re.search(r" mdcube (\d+)/(\d+) flow (0x[0-9a-f]+)(?: segment (\d+))? containers (\S+)", d["rest"])
            d["ext"] = "/".join(e.group(1, 2, 3, 5)) if e else "-"
            d["segment"] = (e.group(4) or "-") if e else "-"
            u = re.search(r" flow (0x[0-9a-f]+) to (\S+): container (\d+) to (\d+) down", d["rest"])
            d["unreach"] = "/".join(u.groups()) if u else "-"
            ip = re.search(r" ip (\d+\.\d+\.\d+\.\d+)\S* > (\d+\.\d+\.\d+\.\d+)", d["rest"])
            d["ipsrc"], d["ipdst"] = ip.groups() if ip else ("-", "-")
            d["line"] = l
            parsed.append(d)
            continue
        m = HEADERLESS.match(l)
        check(m is not None, f"dcn-dump line not understood: {l}")
        parsed.append({"type": "-", "malformed": m.group("why") if m else "?", "line": l})
    return parsed, summary


def compare_dump(rows, got, topo, name):
    check(len(got) == len(rows), f"{name}: {len(got)} lines for {len(rows)} frames")
    for e, g in zip(rows, got):
        where = f"{name} frame {e['num']} ({g['line']})"
        want_bad = e["malformed"] if topo or e["malformed"] not in PATH_TOKENS else "-"
        check(g["malformed"] == want_bad, f"{where}: malformed {g['malformed']}, expected {want_bad}")
        if e["type"] == "-":
            check(g["type"] == "-", f"{where}: expected a headerless malformed line")
            continue
        check(g["type"] == e["type"], f"{where}: type {g['type']}, expected {e['type']}")
        src, dst = (e["src"], e["dst"]) if topo else (e["srcid"], e["dstid"])
        if not topo and e["dst"] == "*":
            dst = "*"
        check((g["src"], g["dst"]) == (src, dst), f"{where}: {g['src']} > {g['dst']}, expected {src} > {dst}")
        check((g["nhi"], g["nhops"]) == (e["nhi"], e["nhops"]), f"{where}: nhi {g['nhi']}/{g['nhops']}")
        path = e["named"] if topo and e["named"] != "-" else e["raw"]
        check(g["path"] == path, f"{where}: path {g['path']}, expected {path}")
        check(g["ext"] == e["ext"], f"{where}: mdcube {g['ext']}, expected {e['ext']}")
        # the segment start is printed for a segmented header's extension only
        seg = e["segstart"] if e["ext"] != "-" and e["segflag"] == "1" else "-"
        check(g["segment"] == seg, f"{where}: segment {g['segment']}, expected {seg}")
        if e["ipsrc"] != "-":
            check((g["ipsrc"], g["ipdst"]) == (e["ipsrc"], e["ipdst"]), f"{where}: inner ip {g['ipsrc']} > {g['ipdst']}")
        unreach = "-"
        if e["unreach"] != "-":  # flow/dst number/dst name/from/to
            flow, dstid, dstname, cfrom, cto = e["unreach"].split("/")
            unreach = "/".join([flow, dstname if topo else dstid, cfrom, cto])
        check(g["unreach"] == unreach, f"{where}: unreachable {g['unreach']}, expected {unreach}")


def check_hier_capture(rows):
    """The hierarchical MDCube capture holds what the checks are for: a
    well-formed "unreachable" message with its payload, segmented frames
    from the source (segment start 0) and extended by a relay (above 0),
    and the unreachable message with a short payload."""
    good = [r for r in rows if r["malformed"] == "-"]
    check(any(r["unreach"] != "-" for r in good), "mdcube-hier: no well-formed unreachable frame")
    check(any(r["type"] == "unreachable" and r["unreach"] == "-" for r in good),
          "mdcube-hier: no unreachable frame with a short payload")
    check(any(r["segflag"] == "1" and r["segstart"] == "0" for r in good), "mdcube-hier: no segmented frame of a source")
    check(any(r["segflag"] == "1" and r["segstart"] not in ("-", "0") for r in good),
          "mdcube-hier: no segmented frame extended by a relay")


def part_dcn_dump(a, tmp):
    for base in ("bcube", "mdcube", "mdcube-hier"):
        pcap, rows = os.path.join(tmp, base + ".pcap"), expectations(os.path.join(tmp, base + ".expect"))
        got, summary = dcn_dump(a.dump, pcap, "--topo", TOPO[base])
        compare_dump(rows, got, True, f"dcn-dump --topo {base}")
        got, _ = dcn_dump(a.dump, pcap)
        compare_dump(rows, got, False, f"dcn-dump {base}")
        got, _ = dcn_dump(a.dump, pcap, "-n", "--topo", TOPO[base])
        for e, g in zip(rows, got):
            if e["type"] != "-" and e["dst"] != "*":
                check((g["src"], g["dst"]) == (e["srcid"], e["dstid"]), f"-n {base} frame {e['num']}: numbers")
        got, _ = dcn_dump(a.dump, pcap, "-c", "3")
        check(len(got) == 3, f"-c 3 printed {len(got)} frames")
        if base == "bcube":
            text = "\n".join(summary)
            bad = sum(1 for r in rows if r["malformed"] != "-")
            check(f"{len(rows)} frames, {len(rows)} DCN, {bad} malformed, 0 other" in text, f"summary: {text}")
            check("flows: 2, path switches: 1" in text, f"flows and switches: {text}")
            check("flow h00 > h13 udp 1000 > 2000: 7 frames, 700 bytes, 2 paths, 1 switches" in text, text)
            switched = [g["line"] for g in dcn_dump(a.dump, pcap, "--topo", TOPO[base])[0] if "[path switch]" in g["line"]]
            check(len(switched) == 1 and "path h00,[h10],h13" in switched[0], f"path switch lines: {switched}")
        if base == "mdcube-hier":
            check_hier_capture(rows)
            text = "\n".join(summary)
            check("types: data 8 path-failure 1 unreachable 3" in text, f"mdcube-hier summary: {text}")
    # live on lo (needs the right to capture): frames printed, the summary on SIGINT
    if os.geteuid() == 0:
        p = subprocess.Popen([a.dump, "-i", "lo", "--topo", TOPO["bcube"]], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind(("lo", 0))
        for f in pcap_frames(os.path.join(tmp, "bcube.pcap"))[4:6]:
            s.send(f)
        s.close()
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        try:
            out, err = p.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        check(p.returncode == 0 and "summary: 2 frames, 2 DCN, 0 malformed, 0 other" in out and
              "data h00 > h13 id 8 nhi 1/2 path h00,[h03],h13" in out,
              f"dcn-dump -i lo, then SIGINT: exit {p.returncode}, output {out!r} {err!r}")
    else:
        print("live capture on lo not tried (not root)")
    # bad usage: one line, exit 2; an unreadable file: exit 1
    for args, code in ((["-c", "0", "-r", "x"], 2), (["-r", "a", "-i", "b"], 2), ([], 2), (["-r", "x", "y"], 2),
                       (["-r", os.path.join(tmp, "bcube.pcap"), "--topo", "bcube n=1"], 2),
                       (["-r", os.path.join(tmp, "missing.pcap")], 1)):
        r = subprocess.run([a.dump, *args], capture_output=True, text=True, timeout=30)
        check(r.returncode == code and len(r.stderr.strip().splitlines()) == 1 and r.stdout == "",
              f"dcn-dump {args}: exit {r.returncode} (want {code}), stderr {r.stderr!r}")


TSHARK_FIELDS = ["frame.number", "dcn.type_name", "dcn.src", "dcn.dst", "dcn.src_name", "dcn.dst_name", "dcn.nhi",
                 "dcn.nhops", "dcn.path", "dcn.path_raw", "dcn.malformed", "dcn.mdcube.index", "dcn.mdcube.count",
                 "dcn.mdcube.flow", "dcn.mdcube.container", "dcn.checksum.status", "ip.src", "ip.dst", "_ws.malformed",
                 "dcn.flags.segmented", "dcn.mdcube.segment_start", "dcn.unreach.flow", "dcn.unreach.orig_dst",
                 "dcn.unreach.from_container", "dcn.unreach.to_container", "dcn.payload_short"]
UNREACH_FIELDS = ["dcn.unreach.flow", "dcn.unreach.orig_dst", "dcn.unreach.from_container", "dcn.unreach.to_container"]
BOOL = {"1": "1", "True": "1", "0": "0", "False": "0"}  # tshark 4.0 prints 1/0, later versions True/False


def tshark(a, tmp, pcap, prefs):
    out, rows = tshark_fields(a.lua, pcap, TSHARK_FIELDS, tmp, prefs)
    check(out.returncode == 0, f"tshark {pcap}: exit {out.returncode}: {out.stderr.strip()[-400:]}")
    check("Lua" not in out.stderr and "rror" not in out.stderr, f"tshark stderr: {out.stderr.strip()[-400:]}")
    return rows


def compare_tshark(rows, got, named, name):
    check(len(got) == len(rows), f"{name}: {len(got)} frames for {len(rows)}")
    for e, g in zip(rows, got):
        where = f"{name} frame {e['num']}"
        want_bad = e["malformed"] if named or e["malformed"] not in PATH_TOKENS else "-"
        check((g["dcn.malformed"] or "-") == want_bad, f"{where}: malformed {g['dcn.malformed']!r}, expected {want_bad}")
        if e["type"] == "-":
            continue
        check(g["dcn.type_name"] == e["type"], f"{where}: type {g['dcn.type_name']}")
        want = [e["srcid"], e["dstid"] if e["dst"] != "*" else "4294967295"]
        check([g["dcn.src"], g["dcn.dst"]] == want, f"{where}: addresses {g['dcn.src']} > {g['dcn.dst']}")
        if named:
            check([g["dcn.src_name"], g["dcn.dst_name"]] == [e["src"], e["dst"]],
                  f"{where}: names {g['dcn.src_name']} > {g['dcn.dst_name']}, expected {e['src']} > {e['dst']}")
        check([g["dcn.nhi"], g["dcn.nhops"]] == [e["nhi"], e["nhops"]], f"{where}: nhi {g['dcn.nhi']}/{g['dcn.nhops']}")
        check(g["dcn.path_raw"] == e["raw"], f"{where}: raw path {g['dcn.path_raw']}, expected {e['raw']}")
        if named and e["named"] != "-":
            check(g["dcn.path"] == e["named"], f"{where}: path {g['dcn.path']}, expected {e['named']}")
        csum = {"bad-checksum": "0", "-": "1"}.get(e["malformed"])
        if csum and e["malformed"] not in PATH_TOKENS:
            check(g["dcn.checksum.status"] == csum, f"{where}: checksum status {g['dcn.checksum.status']}")
        seg = BOOL.get(g["dcn.flags.segmented"], g["dcn.flags.segmented"])
        check(seg == e["segflag"], f"{where}: segmented flag {g['dcn.flags.segmented']!r}, expected {e['segflag']}")
        if e["ext"] != "-":
            idx, count, flow, cont = e["ext"].split("/")
            got_ext = [g["dcn.mdcube.index"], g["dcn.mdcube.count"], g["dcn.mdcube.flow"], g["dcn.mdcube.container"] or "-"]
            check(got_ext == [idx, count, flow, cont], f"{where}: mdcube {got_ext}, expected {e['ext']}")
            check(g["dcn.mdcube.segment_start"] == e["segstart"],
                  f"{where}: segment start {g['dcn.mdcube.segment_start']!r}, expected {e['segstart']}")
        got_unreach = [g[k] for k in UNREACH_FIELDS]
        if e["unreach"] != "-":
            flow, dstid, _, cfrom, cto = e["unreach"].split("/")
            want_unreach = [flow, dstid, cfrom, cto]
        else:
            want_unreach = ["", "", "", ""]
        check(got_unreach == want_unreach, f"{where}: unreachable {got_unreach}, expected {want_unreach}")
        if e["malformed"] == "-":  # of the well-formed frames, only the cut unreachable message is short
            short = e["type"] == "unreachable" and e["unreach"] == "-"
            check(bool(g["dcn.payload_short"]) == short, f"{where}: payload_short {g['dcn.payload_short']!r}")
        if e["ipsrc"] != "-":
            check([g["ip.src"], g["ip.dst"]] == [e["ipsrc"], e["ipdst"]], f"{where}: ip {g['ip.src']} > {g['ip.dst']}")


def mutated_frames(tmp, count=600, seed=12):
    """The captures' frames (all three) with a few header bytes changed (half of them
    with the checksum fixed again, so the later checks are reached), or cut."""
    rng = random.Random(seed)
    base = [f for b in ("bcube", "mdcube", "mdcube-hier") for f in pcap_frames(os.path.join(tmp, b + ".pcap"))]
    out = []
    for _ in range(count):
        f = bytearray(rng.choice(base))
        for _ in range(rng.randint(1, 4)):
            i = 14 + min(rng.randrange(48), len(f) - 15)
            f[i] = rng.randrange(256)
        if rng.random() < 0.5 and len(f) >= 14 + 28:
            nhops, flags = f[17], f[16]
            hl = 28 + max(8, (nhops + 3) // 4 * 4)
            if flags & 1 and len(f) > 14 + hl:
                hl += 8 + 4 * f[14 + hl]
            if len(f) >= 14 + hl:
                f[14 + 18:14 + 20] = b"\0\0"
                total = sum((f[14 + i] << 8) | (f[15 + i] if i + 1 < hl else 0) for i in range(0, hl, 2))
                while total > 0xFFFF:
                    total = (total & 0xFFFF) + (total >> 16)
                f[14 + 18:14 + 20] = struct.pack(">H", ~total & 0xFFFF)
        if rng.random() < 0.2:
            f = f[:rng.randrange(len(f) + 1)]
        out.append(bytes(f))
    return out


def differential(a, tmp, pcap, prefs, topo, name, count):
    """One file through both decoders: neither fails, both read count frames
    and give each the same malformed token and path. Returns how many are
    malformed."""
    t_rows, (d_rows, _) = tshark(a, tmp, pcap, prefs), dcn_dump(a.dump, pcap, *topo)
    check(len(t_rows) == len(d_rows) == count, f"{name}: {len(t_rows)} tshark, {len(d_rows)} dcn-dump frames, "
                                               f"{count} in the file")
    flagged = 0
    for t, d in zip(t_rows, d_rows):
        where = f"{name} frame {t['frame.number']} {prefs}"
        flagged += d["malformed"] != "-"
        if d["line"].split(" ")[1] == "ether":  # shorter than Ethernet: Wireshark's own Ethernet dissector flags it
            check(t["_ws.malformed"] != "", f"{where}: not flagged malformed by tshark ({d['line']})")
            continue
        check((t["dcn.malformed"] or "-") == d["malformed"],
              f"{where}: tshark {t['dcn.malformed']!r} vs dcn-dump {d['malformed']!r} ({d['line']})")
        if d["type"] != "-":
            tpath = t["dcn.path"] if topo and t["dcn.path"] else t["dcn.path_raw"]
            check(tpath == d["path"], f"{where}: path {tpath} vs dcn-dump {d['path']}")
    print(f"{name} {prefs}: {flagged} of {len(d_rows)} flagged malformed by both")
    return flagged


def fuzz_corpus_frames():
    """The frames of the fuzzers' seed corpus and regression inputs in the
    tree (tests/fuzz/: the engine's frames, the engine suite's malformed
    corpus, MDCube hierarchical routing, crashes found), by topology; the
    fuzz_frame inputs that enter from TUN are IP packets, not frames."""
    root = os.path.join(REPO, "tests", "fuzz")
    out = {"bcube": [], "mdcube": [], "none": []}
    seen = set()
    for kind in ("corpus", "regressions"):
        for harness in ("fuzz_dump", "fuzz_frame"):
            d = os.path.join(root, kind, harness)
            for name in sorted(os.listdir(d)) if os.path.isdir(d) else ():
                data = open(os.path.join(d, name), "rb").read()
                if not data:
                    continue
                if harness == "fuzz_dump":
                    which = ("none", "bcube", "mdcube")[data[0] % 3]
                elif data[0] & 2:
                    continue
                else:
                    which = ("bcube", "mdcube")[data[0] & 1]
                if data[1:] not in seen:
                    seen.add(data[1:])
                    out[which].append(data[1:])
    return out


def part_tshark(a, tmp):
    bc = ["-o", "dcn.bcube_n:4", "-o", "dcn.bcube_k:1"]
    # differential: mutated frames through both decoders, with and without the topology
    fuzz = os.path.join(tmp, "mutated.pcap")
    write_pcap(fuzz, mutated_frames(tmp))
    for prefs, topo in (([], []), (bc, ["--topo", TOPO["bcube"]])):
        differential(a, tmp, fuzz, prefs, topo, "mutated", 600)
    # the fuzzers' corpus and regressions in the tree: the same, and every
    # malformed frame of the engine suite's corpus among them is flagged
    corpus = fuzz_corpus_frames()
    check(sum(len(v) for v in corpus.values()) >= 100, f"fuzz corpus: {[len(v) for v in corpus.values()]} frames")
    for which, frames in corpus.items():
        if not frames:
            continue
        pcap = os.path.join(tmp, f"corpus-{which}.pcap")
        write_pcap(pcap, frames)
        differential(a, tmp, pcap, [], [], f"fuzz corpus ({which})", len(frames))
        if which == "bcube":  # gen_capture's malformed frames (the engine suite's 13 cases) are among these
            n = differential(a, tmp, pcap, bc, ["--topo", TOPO["bcube"]], f"fuzz corpus ({which})", len(frames))
            check(n >= 13, f"fuzz corpus: {n} frames flagged malformed, the engine suite's corpus has 13")
    for base in ("bcube", "mdcube", "mdcube-hier"):
        pcap, rows = os.path.join(tmp, base + ".pcap"), expectations(os.path.join(tmp, base + ".expect"))
        raw = tshark(a, tmp, pcap, [])
        compare_tshark(rows, raw, False, f"tshark {base}")
        # the two decoders agree with each other too, frame by frame
        dumped, _ = dcn_dump(a.dump, pcap)
        for t, d in zip(raw, dumped):
            check((t["dcn.malformed"] or "-") == d["malformed"], f"{base} frame {t['frame.number']}: tshark "
                  f"{t['dcn.malformed']!r} vs dcn-dump {d['malformed']!r}")
            if d["type"] != "-":
                check(t["dcn.path_raw"] == d["path"], f"{base} frame {t['frame.number']}: paths differ")
        if base == "bcube":
            compare_tshark(rows, tshark(a, tmp, pcap, bc), True, "tshark bcube (BCube preferences)")


def run_live(words, tmp):
    """dcn-dump -i lo: started, two frames of the capture sent on lo with a
    packet socket, its output returned. Needs the right to capture (root)."""
    p = subprocess.Popen(words, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind(("lo", 0))
    frames = pcap_frames(os.path.join(tmp, "bcube.pcap"))
    for f in frames[2:4]:
        s.send(f)
    s.close()
    try:
        out, err = p.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    return subprocess.CompletedProcess(words, p.returncode, out, err)


def doc_commands(tmp, a, want_tshark):
    """Every `$ ` command of docs/inspection.md whose program is dcn-dump,
    gen_capture, tshark or `make wireshark-plugin`, run in the captures'
    folder; output compared where the page shows it (the lines after the
    command; "..." stands for lines left out, otherwise the output must be
    exactly what is shown)."""
    doc = os.path.join(REPO, "docs", "inspection.md")
    if not os.path.exists(doc):
        check(False, "docs/inspection.md is missing")
        return
    blocks, cur, inside, section = [], None, False, ""
    for line in open(doc):
        line = line.rstrip("\n")
        if line.startswith("## ") and not inside:
            section = line
        if section == "## Captures from the testbed":
            continue  # needs a testbed: tests/integration/test_testbed_capture.py runs it
        if line.startswith("```"):
            inside = not inside
            cur = None
            continue
        if not inside:
            continue
        if line.startswith("$ "):
            cur = [line[2:], []]
            blocks.append(cur)
        elif cur is not None:
            cur[1].append(line)
    ran = 0
    plugin_home = os.path.join(tmp, "home-plugin")
    for cmd, shown in blocks:
        words = shlex.split(cmd)
        prog = os.path.basename(words[0])
        tshark_side = prog in ("tshark", "make")
        if prog not in ("dcn-dump", "tshark", "gen_capture", "make") or tshark_side != want_tshark:
            continue
        env, cwd = tshark_env(tmp), tmp
        if prog == "dcn-dump":
            words[0] = a.dump
        elif prog == "gen_capture":
            words[0] = a.gen
        elif prog == "make":
            check(words == ["make", "wireshark-plugin"], f"docs: unexpected make command {cmd}")
            words, cwd = ["make", "-C", REPO, "wireshark-plugin"], REPO
        words = [w.replace("lua_script:tools/wireshark/dcn.lua", "lua_script:" + a.lua) for w in words]
        if prog in ("make", "tshark") and not any(w.startswith("lua_script:") for w in words):
            env["HOME"] = plugin_home  # the plugin that `make wireshark-plugin` installed
            os.makedirs(plugin_home, exist_ok=True)
        if prog == "dcn-dump" and "-i" in words:
            if os.geteuid() != 0:
                print(f"docs: `{cmd}` needs the right to capture: not run (not root)")
                continue
            r = run_live(words, tmp)
            check(r.returncode == 0 and len([l for l in r.stdout.splitlines() if " probe h00 > h13 " in l]) == 2,
                  f"docs: `{cmd}`: exit {r.returncode}, output {r.stdout!r} {r.stderr!r}")
            ran += 1
            continue
        r = subprocess.run(words, cwd=cwd, capture_output=True, text=True, timeout=120, env=env)
        ran += 1
        check(r.returncode == 0, f"docs: `{cmd}` exited {r.returncode}: {r.stderr.strip()[-300:]}")
        out = r.stdout.splitlines()
        if not shown:
            continue
        if "..." in shown:
            ok = all(l in out for l in shown if l != "...")
        else:
            ok = out == shown
        check(ok, f"docs: `{cmd}` printed\n" + "\n".join(out[:60]) + "\nbut the page shows\n" + "\n".join(shown))
    check(ran > 0, "docs: no command run")
    print(f"docs: {ran} commands run")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=("dcn_dump", "tshark"), required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--dump", required=True)
    ap.add_argument("--lua", required=True)
    a = ap.parse_args()
    a.gen, a.dump, a.lua = (os.path.abspath(x) for x in (a.gen, a.dump, a.lua))
    if a.part == "tshark" and not shutil.which("tshark"):
        if os.environ.get("DCN_TEST_NO_SKIP"):
            print("tshark is not installed, and make test installs it (make deps): failed")
            return 1
        print("tshark is not installed (sudo make deps): skipped")
        return 77
    with tempfile.TemporaryDirectory(prefix="dcn-inspect-") as tmp:
        r = subprocess.run([a.gen, tmp], capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            print(r.stderr)
            return 1
        if a.part == "dcn_dump":
            part_dcn_dump(a, tmp)
        else:
            part_tshark(a, tmp)
        doc_commands(tmp, a, a.part == "tshark")
    if FAILURES:
        print(f"{len(FAILURES)} failed checks")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
