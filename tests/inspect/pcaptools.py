"""Classic pcap files and the Wireshark dissector (tshark) as the tests use
them: tests/inspect/test_inspect.py, tests/integration/test_testbed_capture.py
and tests/fuzz/make_seeds.py."""
import os
import struct
import subprocess


def pcap_frames(path):
    """The frames of a little-endian classic pcap file."""
    data = open(path, "rb").read()
    off, frames = 24, []
    while off + 16 <= len(data):
        caplen = struct.unpack_from("<I", data, off + 8)[0]
        frames.append(data[off + 16:off + 16 + caplen])
        off += 16 + caplen
    return frames


def write_pcap(path, frames):
    """frames as a classic pcap file of Ethernet frames, one a second."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(fr), len(fr)))
            f.write(fr)


def tshark_env(tmp):
    """The environment for tshark: a HOME in tmp, so no personal plugins or
    preferences."""
    env = dict(os.environ)
    env["HOME"] = os.path.join(tmp, "home")
    env.pop("XDG_CONFIG_HOME", None)
    os.makedirs(env["HOME"], exist_ok=True)
    return env


def tshark_fields(lua, pcap, fields, tmp, opts=(), timeout=120):
    """tshark with the dissector lua on pcap, fields (a list) one frame a
    line, tab-separated; opts go before them (-o preferences, -E options).
    Returns (the finished process, its rows as dicts by field); the caller
    checks the process."""
    cmd = ["tshark", "-X", "lua_script:" + lua, *opts, "-r", pcap, "-T", "fields", "-E", "separator=/t"]
    for f in fields:
        cmd += ["-e", f]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=tshark_env(tmp))
    return r, [dict(zip(fields, line.split("\t"))) for line in r.stdout.splitlines()]
