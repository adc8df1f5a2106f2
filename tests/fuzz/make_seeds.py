#!/usr/bin/python3
"""Writes the seed corpora of the fuzz harnesses (tests/fuzz/corpus/) from
the frames the inspection tests decode: gen_capture's captures, made by the
agent's engine for every server of a BCube_1(n=4) and a 2x2 MDCube, plus
the malformed frames of the engine suite's corpus. Run after changing the
generator or the harness input formats, and commit the result:

  tests/fuzz/make_seeds.py build-test/tests/inspect/gen_capture
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOPO_BIT = {"bcube": 0, "mdcube": 1}  # fuzz_frame.c byte 0, bit 0
DUMP_TOPO = {"bcube": 1, "mdcube": 2}  # fuzz_dump.c byte 0 % 3
SPECS = ["bcube n=4 k=1", "bcube n=2 k=3", "bcube n=4 k=1 parts=2", "bcube n=8 k=3 parts=4", "mdcube n=2 k=1 m=2x2",
         "mdcube n=2 k=1 m=5", "mdcube n=4 k=1 m=3x3", "hcn n=4 h=1", "hcn n=4 h=2", "bcn alpha=4 beta=4 h=1 gamma=1",
         "bcn alpha=2 beta=1 h=1 gamma=1 rule=4", "bcdc n=4", "dcell n=4 k=1", "fattree k=4", "ficonn n=4 k=2",
         "tree leaves=4 per_leaf=4", "bcube n=1", "bcube n=4 k=1 k=2", "mdcube m=3x", "hcn n=4 h=99", "nosuch n=1",
         "bcube n=4 k=1 h13", "mdcube n=2 k=1 m=2x2 h1_01", "bcube n=04 k=+1", "tree leaves=0x10"]


def frames(path):
    data = open(path, "rb").read()
    off, out = 24, []
    while off + 16 <= len(data):
        caplen = struct.unpack_from("<I", data, off + 8)[0]
        out.append(data[off + 16:off + 16 + caplen])
        off += 16 + caplen
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


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    corpus = os.path.join(HERE, "corpus")
    for h in ("fuzz_frame", "fuzz_dump", "fuzz_topo_params"):
        shutil.rmtree(os.path.join(corpus, h), ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.argv[1], tmp], check=True, capture_output=True)
        for base in ("bcube", "mdcube"):
            for i, f in enumerate(frames(os.path.join(tmp, base + ".pcap")), 1):
                write(os.path.join(corpus, "fuzz_frame"), f"{base}-{i:03d}", bytes([TOPO_BIT[base]]) + f)
                write(os.path.join(corpus, "fuzz_dump"), f"{base}-{i:03d}", bytes([DUMP_TOPO[base]]) + f)
                if i <= 3:
                    write(os.path.join(corpus, "fuzz_dump"), f"{base}-raw-{i:03d}", bytes([0]) + f)
                ip = inner_ip(f)
                if ip is not None and f[14 + 20] == 1:  # sent by its source (NHI 1): the source's TUN packet
                    src = struct.unpack_from(">I", f, 14 + 4)[0]
                    write(os.path.join(corpus, "fuzz_frame"), f"{base}-tun-{i:03d}",
                          bytes([TOPO_BIT[base] | 2, src & 255]) + ip)
    for i, s in enumerate(SPECS):
        write(os.path.join(corpus, "fuzz_topo_params"), f"spec-{i:02d}", s.encode())
    print("seeds written under", corpus)
    return 0


if __name__ == "__main__":
    sys.exit(main())
