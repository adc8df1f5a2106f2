#!/usr/bin/python3
"""Writes the seed corpora of the fuzz harnesses (tests/fuzz/corpus/) from
the frames the inspection tests decode: gen_capture's captures, made by the
agent's engine for every server of a BCube_1(n=4) and a 2x2 MDCube, plus
the malformed frames of the engine suite's corpus. The MDCube frames of
hierarchical routing (segmented data frames, flags bit 1, and type 6
"unreachable", docs/protocol.md) are derived here from the source-routed
MDCube capture: a data path cut after its first fibre hop, the rest of it
with the segment start of the server that extended it, and a probe
response turned into an unreachable message. The control-socket requests
(fuzz_ctl) are listed below; fuzz_sequence's seeds are made of
fuzz_frame's. Run after changing the generator or the harness input
formats, and commit the result:

  tests/fuzz/make_seeds.py build-test/tests/inspect/gen_capture
  tests/fuzz/make_seeds.py --sequences    (fuzz_sequence's alone)
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "inspect"))
from pcaptools import pcap_frames  # noqa: E402

TOPO_BIT = {"bcube": 0, "mdcube": 1}  # fuzz_frame.c byte 0, bit 0
DUMP_TOPO = {"bcube": 1, "mdcube": 2}  # fuzz_dump.c byte 0 % 3
SPECS = ["bcube n=4 k=1", "bcube n=2 k=3", "bcube n=4 k=1 parts=2", "bcube n=8 k=3 parts=4", "mdcube n=2 k=1 m=2x2",
         "mdcube n=2 k=1 m=5", "mdcube n=4 k=1 m=3x3", "hcn n=4 h=1", "hcn n=4 h=2", "bcn alpha=4 beta=4 h=1 gamma=1",
         "bcn alpha=2 beta=1 h=1 gamma=1 rule=4", "bcdc n=4", "dcell n=4 k=1", "fattree k=4", "ficonn n=4 k=2",
         "tree leaves=4 per_leaf=4", "bcube n=1", "bcube n=4 k=1 k=2", "mdcube m=3x", "hcn n=4 h=99", "nosuch n=1",
         "bcube n=4 k=1 h13", "mdcube n=2 k=1 m=2x2 h1_01", "bcube n=04 k=+1", "tree leaves=0x10"]


# fuzz_ctl.c: requests, sent directly (ctl_parse/ctl_render) to both
# topologies and through the control server, at once and in pieces.
CTL_REQUESTS = [b"status\n", b"status --json\n", b"neighbors\n", b"neighbors --json\n", b"flows\n",
                b"flows --json\n", b"counters\n", b"counters --json\n", b"segments\n", b"segments --json\n",
                b"--json paths h13\n", b"paths h13 --json\n", b"paths h1_01\n", b"paths h3_11 --json\n", b"\tstatus\r\n",
                b"status", b"", b"\n", b"frobnicate\n", b"paths\n", b"paths a b\n", b"paths nosuch\n",
                b"paths h00\n", b"status extra words\n", b"x" * 300 + b"\n", b"status\x00neighbors\n",
                b"status\nneighbors\n", b"\xff\xfe\n", b"paths " + b"h" * 70 + b"\n", b"s" * 40 + b"\n"]
MDC_SERVERS_PER_CONTAINER = 4  # mdcube n=2 k=1: BCube_1(n=2) containers
MDC_FIBRE_INDEX = 2  # NHA index >= n: the hop crosses a fibre (docs/protocol.md, NHA)


def hdr_len(h):
    nhops, flags = h[3], h[2]
    hl = 28 + max(8, (nhops + 3) // 4 * 4)
    if flags & 1:
        hl += 8 + 4 * h[hl]
    return hl


def checksum(h):
    h = bytearray(h)
    h[18:20] = b"\0\0"
    if len(h) % 2:
        h.append(0)
    s = sum(struct.unpack(f">{len(h) // 2}H", bytes(h)))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return struct.pack(">H", ~s & 0xFFFF)


def make_hdr(base, *, type_=None, flags=None, nha=None, nhi=None, seg_start=None, payload_len=None):
    """A header from base (an encoded header) with fields replaced and a fresh checksum."""
    old_hl = hdr_len(base)
    fixed = bytearray(base[:28])
    ext = bytearray(base[28 + max(8, (base[3] + 3) // 4 * 4):old_hl])
    old_nha = bytes(base[28:28 + base[3]])
    nha = old_nha if nha is None else nha
    if type_ is not None:
        fixed[1] = type_
    if flags is not None:
        fixed[2] = flags
    fixed[3] = len(nha)
    if nhi is not None:
        fixed[20] = nhi
    if payload_len is not None:
        fixed[16:18] = struct.pack(">H", payload_len)
    if seg_start is not None:
        ext[2] = seg_start
    body = bytes(fixed) + nha + bytes(max(8, (len(nha) + 3) // 4 * 4) - len(nha)) + bytes(ext)
    return body[:18] + checksum(body) + body[20:]


def hier_frames(mdc):
    """Segmented data frames and unreachable messages from the source-routed MDCube frames."""
    out, groups = [], {}
    for f in mdc:
        if len(f) < 14 + 36 or f[12:14] != b"\x88\xb5":
            continue
        h = f[14:]
        if h[1] == 1 and h[2] == 1:
            groups.setdefault((h[4:8], h[8:12], h[12:14]), {})[h[20]] = f
        elif h[1] == 3 and h[2] == 0 and len(out) < 40:  # probe response dst -> src: the owner's reverse path
            owner = struct.unpack_from(">I", h, 4)[0]
            c = owner // MDC_SERVERS_PER_CONTAINER
            pl = struct.pack(">IIII", 0x5eed0000 + owner, owner, c, (c + 1) % 4)
            out.append(("unreach", f[:14] + make_hdr(h, type_=6, payload_len=len(pl)) + pl))
    for key in sorted(groups):
        g = groups[key]
        first = g.get(1)
        if first is None:
            continue
        h = first[14:]
        nha = bytes(h[28:28 + h[3]])
        cut = next((i + 1 for i, a in enumerate(nha) if MDC_FIBRE_INDEX <= (a & 63) < 63), None)
        if cut is None:
            continue
        for nhi, f in sorted(g.items()):
            hf = f[14:]
            payload = f[14 + hdr_len(hf):]
            if nhi <= cut:  # the source's segment: the path ends after the fibre
                out.append(("seg", f[:14] + make_hdr(hf, flags=3, nha=nha[:cut], seg_start=0) + payload))
            else:  # extended at the segment end: the whole path, the segment start of its writer
                out.append(("segx", f[:14] + make_hdr(hf, flags=3, seg_start=cut) + payload))
    return out


def inner_ip(f):
    """The IPv4 packet of a well-formed data frame, or None."""
    if len(f) < 14 + 28 or f[12:14] != b"\x88\xb5" or f[15] != 1:
        return None
    nhops, flags = f[17], f[16]
    hl = 28 + max(8, (nhops + 3) // 4 * 4)
    if flags & 1:
        if len(f) < 14 + hl + 1:
            return None
        hl += 8 + 4 * f[14 + hl]
    ip = f[14 + hl:]
    return ip if len(ip) >= 20 and ip[0] >> 4 == 4 else None


def write(d, name, data):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as fh:
        fh.write(data)


def record(op, data):
    """One event of a fuzz_sequence.c input: operation, 16-bit length, data."""
    return struct.pack(">BH", op, len(data)) + data


def sequence_seeds(corpus, every=2):
    """fuzz_sequence's seeds from fuzz_frame's (every `every`-th): the server
    the frame is for gets it, half a second passes, it gets it again, a
    port's carrier goes and comes back, and it gets it a third time; a TUN
    seed is sent twice with time between. Byte 0 keeps the topology."""
    out = os.path.join(corpus, "fuzz_sequence")
    shutil.rmtree(out, ignore_errors=True)
    tick = record(2, struct.pack(">H", 50))
    for i, name in enumerate(sorted(os.listdir(os.path.join(corpus, "fuzz_frame")))):
        if i % every:
            continue
        with open(os.path.join(corpus, "fuzz_frame", name), "rb") as fh:
            seed = fh.read()
        topo, body = seed[0] & 1, seed[1:]
        if seed[0] & 2 and body:  # a TUN packet from server body[0]
            ev = record(1, body[1:])
            data = bytes([topo, body[0]]) + ev + tick + ev + tick
        elif len(body) >= 14:  # a frame for the server its destination MAC names, on its port
            self_id, port = (body[2] << 16 | body[3] << 8 | body[4]) & 0xFF, body[5]
            ev = record(0, bytes([port]) + body)
            carrier = record(3, bytes([port, 0])) + tick + record(3, bytes([port, 1]))
            data = bytes([topo, self_id]) + ev + tick + ev + carrier + ev
        else:
            continue
        write(out, name, data)


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--sequences":  # fuzz_sequence's only, from fuzz_frame's
        sequence_seeds(os.path.join(HERE, "corpus"))
        return 0
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    corpus = os.path.join(HERE, "corpus")
    for h in ("fuzz_frame", "fuzz_dump", "fuzz_topo_params", "fuzz_ctl"):
        shutil.rmtree(os.path.join(corpus, h), ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.argv[1], tmp], check=True, capture_output=True)
        for base in ("bcube", "mdcube"):
            for i, f in enumerate(pcap_frames(os.path.join(tmp, base + ".pcap")), 1):
                write(os.path.join(corpus, "fuzz_frame"), f"{base}-{i:03d}", bytes([TOPO_BIT[base]]) + f)
                write(os.path.join(corpus, "fuzz_dump"), f"{base}-{i:03d}", bytes([DUMP_TOPO[base]]) + f)
                if i <= 3:
                    write(os.path.join(corpus, "fuzz_dump"), f"{base}-raw-{i:03d}", bytes([0]) + f)
                ip = inner_ip(f)
                if ip is not None and f[14 + 20] == 1:  # sent by its source (NHI 1): the source's TUN packet
                    src = struct.unpack_from(">I", f, 14 + 4)[0]
                    write(os.path.join(corpus, "fuzz_frame"), f"{base}-tun-{i:03d}",
                          bytes([TOPO_BIT[base] | 2, src & 255]) + ip)
        for i, (kind, f) in enumerate(hier_frames(pcap_frames(os.path.join(tmp, "mdcube.pcap"))), 1):
            write(os.path.join(corpus, "fuzz_frame"), f"mdcube-hier-{kind}-{i:03d}", bytes([TOPO_BIT["mdcube"]]) + f)
            write(os.path.join(corpus, "fuzz_dump"), f"mdcube-hier-{kind}-{i:03d}", bytes([DUMP_TOPO["mdcube"]]) + f)
    for i, r in enumerate(CTL_REQUESTS):
        for topo in (0, 1):
            write(os.path.join(corpus, "fuzz_ctl"), f"direct-{topo}-{i:02d}", bytes([topo]) + r)
        write(os.path.join(corpus, "fuzz_ctl"), f"server-{i:02d}", bytes([2 | (i & 1)]) + r)
        if i % 3 == 0:
            write(os.path.join(corpus, "fuzz_ctl"), f"server-pieces-{i:02d}", bytes([2 | (i & 1) | 3 << 2]) + r)
    for i, s in enumerate(SPECS):
        write(os.path.join(corpus, "fuzz_topo_params"), f"spec-{i:02d}", s.encode())
    sequence_seeds(corpus)
    print("seeds written under", corpus)
    return 0


if __name__ == "__main__":
    sys.exit(main())
