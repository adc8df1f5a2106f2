"""A stand-in for the agents' hellos: from every interface named on stdin
(one per line, in the current network namespace), one 64-byte Ethernet
broadcast frame per period, the sends spread evenly over the period, for
the given seconds. Used by tests/bench/ovs_split.py inside its server
namespace, to load the switches the way the agents' hellos do, without
agents. Prints one JSON line: frames sent, send errors, the achieved rate.

  ip netns exec NS python3 tests/bench/hello_load.py --period-ms 1000 --seconds 30 < ifnames

Needs root (AF_PACKET). Nothing reads the frames the switches flood back:
the receivers' wake-ups, which the agents would add, are not part of the
load."""
import argparse
import json
import socket
import sys
import time

ETH_P_DCN_STANDIN = 0x88B5   # IEEE local experimental EtherType
TICK_S = 0.005


def frame(mac):
    return b"\xff" * 6 + mac + ETH_P_DCN_STANDIN.to_bytes(2, "big") + b"hello".ljust(50, b"\0")


def open_socket(names):
    """One AF_PACKET socket for every interface (each frame names its
    interface): thousands of packet sockets would take minutes to close,
    one RCU grace period each."""
    frames = []
    for name in names:
        with open("/sys/class/net/%s/address" % name) as f:
            mac = bytes.fromhex(f.read().strip().replace(":", ""))
        frames.append(((name, ETH_P_DCN_STANDIN), frame(mac)))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)   # protocol 0: sends only, receives nothing
    s.setblocking(False)
    return s, frames


def run(sock, frames, period_s, seconds):
    sent = errors = 0
    t0 = time.monotonic()
    n = len(frames)
    i = 0
    while True:
        now = time.monotonic() - t0
        if now >= seconds:
            break
        due = int(now / period_s * n)   # sends due by now since the start
        while i < due:
            addr, f = frames[i % n]
            try:
                sock.sendto(f, addr)
                sent += 1
            except OSError:
                errors += 1
            i += 1
        time.sleep(TICK_S)
    elapsed = time.monotonic() - t0
    return {"interfaces": n, "period_ms": round(period_s * 1000), "seconds": round(elapsed, 2),
            "sent": sent, "errors": errors, "per_s": round(sent / elapsed, 1)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--period-ms", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=30.0)
    a = ap.parse_args()
    if a.period_ms < 1 or a.seconds <= 0:
        sys.exit("hello_load.py: --period-ms and --seconds must be positive")
    names = [line.strip() for line in sys.stdin if line.strip()]
    if not names:
        sys.exit("hello_load.py: no interface names on stdin")
    try:
        sock, frames = open_socket(names)
    except OSError as e:
        sys.exit("hello_load.py: %s" % e)
    print(json.dumps(run(sock, frames, a.period_ms / 1000.0, a.seconds)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
