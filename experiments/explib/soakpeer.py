#!/usr/bin/python3
"""The soak's traffic end in one emulated server (run inside its namespace by
experiments/soak, one process per server): a TCP sink on --bind:--port and
the sending side of the connections the controller asks for, in one
single-threaded select loop, with byte counting at both ends.

Controller -> peer (stdin, one command a line):
  send ID IP PORT BYTES   open a TCP connection to IP:PORT and send BYTES
  abort ID                close connection ID (either side) without a verdict
  quit                    exit

Peer -> controller (stdout, one JSON object a line), every time in Unix seconds:
  {"ev": "tx_conn", "id", "t", "sport"}          connected, from source port sport
  {"ev": "tx_done", "id", "sent", "t"}           the receiver acknowledged every byte
  {"ev": "tx_err", "id", "sent", "t", "err"}     connect or send failed / reset
  {"ev": "rx_done", "id", "bytes", "t_start", "t_first", "t_last", "gaps"}
  {"ev": "rx_err", "id", "bytes", "t_last", "gaps", "err"}
  {"ev": "prog", "t", "rx_total", "tx_total", "rx": {ID: [bytes, t_last]}, "tx": {ID: sent}}
                                                 about every second

A connection starts with a 28-byte header: b"DCNS", its id (u64), its
payload size (u64) and the sender's start time (f64); the receiver answers
b"K" once it has the whole payload, and only then does the sender count the
connection as done. gaps: every interval of more than GAP_S seconds between
two reads with data (or between the sender's start and the first data), as
[start, end] pairs; the soak's longest stall comes from them."""
from __future__ import annotations

import argparse
import errno
import json
import os
import select
import socket
import struct
import sys
import time

HDR = struct.Struct("!4sQQd")
MAGIC = b"DCNS"
GAP_S = 0.5
CHUNK = 65536
PAYLOAD = memoryview(bytes(CHUNK))


def emit(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


class Tx:
    def __init__(self, cid: int, ip: str, port: int, nbytes: int, bind_ip: str) -> None:
        self.id, self.total = cid, nbytes
        self.sent = 0
        self.t_start = time.time()
        self.connected = False
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setblocking(False)
        self.sock.bind((bind_ip, 0))
        self.sport = self.sock.getsockname()[1]
        self.head = memoryview(HDR.pack(MAGIC, cid, nbytes, self.t_start))
        rc = self.sock.connect_ex((ip, port))
        if rc not in (0, errno.EINPROGRESS):
            raise OSError(rc, os.strerror(rc))


class Rx:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = b""
        self.id = None
        self.total = None
        self.got = 0
        self.t_start = self.t_first = self.t_last = None
        self.gaps = []


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bind", required=True)
    ap.add_argument("--port", type=int, required=True)
    a = ap.parse_args()
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind((a.bind, a.port))
    lsock.listen(256)
    lsock.setblocking(False)
    emit({"ev": "ready", "t": time.time()})
    txs, rxs = {}, {}          # fd -> Tx / Rx
    inbuf = b""
    rx_total = tx_total = 0
    next_prog = time.time() + 1.0
    recvbuf = bytearray(262144)

    def tx_fail(t, err):
        emit({"ev": "tx_err", "id": t.id, "sent": t.sent, "t": time.time(), "err": err})
        close_tx(t)

    def close_tx(t):
        fd = t.sock.fileno()
        txs.pop(fd, None)
        t.sock.close()

    def close_rx(r):
        fd = r.sock.fileno()
        rxs.pop(fd, None)
        r.sock.close()

    while True:
        rl = [sys.stdin.fileno(), lsock.fileno()] + list(rxs) + [fd for fd, t in txs.items() if t.sent >= t.total]
        wl = [fd for fd, t in txs.items() if t.sent < t.total]
        timeout = max(0.0, next_prog - time.time())
        try:
            r_ok, w_ok, _ = select.select(rl, wl, [], timeout)
        except InterruptedError:
            continue
        now = time.time()
        for fd in r_ok:
            if fd == sys.stdin.fileno():
                d = os.read(fd, 65536)
                if not d:
                    return 0
                inbuf += d
                while b"\n" in inbuf:
                    line, inbuf = inbuf.split(b"\n", 1)
                    parts = line.decode().split()
                    if not parts:
                        continue
                    if parts[0] == "quit":
                        return 0
                    if parts[0] == "send":
                        cid, ip, port, nb = int(parts[1]), parts[2], int(parts[3]), int(parts[4])
                        try:
                            t = Tx(cid, ip, port, nb, a.bind)
                            txs[t.sock.fileno()] = t
                        except OSError as e:
                            emit({"ev": "tx_err", "id": cid, "sent": 0, "t": time.time(), "err": str(e)})
                    elif parts[0] == "abort":
                        cid = int(parts[1])
                        for t in [t for t in txs.values() if t.id == cid]:
                            close_tx(t)
                        for r in [r for r in rxs.values() if r.id == cid]:
                            close_rx(r)
            elif fd == lsock.fileno():
                try:
                    s, _ = lsock.accept()
                    s.setblocking(False)
                    rxs[s.fileno()] = Rx(s)
                except OSError:
                    pass
            elif fd in rxs:
                r = rxs[fd]
                try:
                    n = r.sock.recv_into(recvbuf)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError as e:
                    if r.id is not None:
                        emit({"ev": "rx_err", "id": r.id, "bytes": r.got, "t_last": r.t_last, "gaps": r.gaps,
                              "err": str(e)})
                    close_rx(r)
                    continue
                if n == 0:
                    if r.id is not None and r.got < r.total:
                        emit({"ev": "rx_err", "id": r.id, "bytes": r.got, "t_last": r.t_last, "gaps": r.gaps,
                              "err": f"EOF after {r.got:d} of {r.total:d} bytes"})
                    close_rx(r)
                    continue
                data = recvbuf[:n]
                if r.id is None:
                    r.buf += bytes(data)
                    if len(r.buf) < HDR.size:
                        continue
                    magic, r.id, r.total, r.t_start = HDR.unpack(r.buf[:HDR.size])
                    if magic != MAGIC:
                        close_rx(r)
                        continue
                    n = len(r.buf) - HDR.size
                    r.buf = b""
                    r.t_last = r.t_start
                    if n == 0:
                        continue
                if n > 0:
                    if now - r.t_last > GAP_S:
                        r.gaps.append([round(r.t_last, 3), round(now, 3)])
                    if r.t_first is None:
                        r.t_first = now
                    r.t_last = now
                    r.got += n
                    rx_total += n
                    if r.got >= r.total:
                        try:
                            r.sock.send(b"K")
                        except OSError:
                            pass
                        emit({"ev": "rx_done", "id": r.id, "bytes": r.got, "t_start": r.t_start,
                              "t_first": r.t_first, "t_last": r.t_last, "gaps": r.gaps})
                        close_rx(r)
            elif fd in txs:      # a sender waiting for the receiver's acknowledgement
                t = txs[fd]
                try:
                    d = t.sock.recv(16)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError as e:
                    tx_fail(t, str(e))
                    continue
                if d.startswith(b"K"):
                    emit({"ev": "tx_done", "id": t.id, "sent": t.sent, "t": now})
                else:
                    emit({"ev": "tx_err", "id": t.id, "sent": t.sent, "t": now, "err": "closed without ack"})
                close_tx(t)
        for fd in w_ok:
            t = txs.get(fd)
            if t is None:
                continue
            if not t.connected:
                err = t.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    tx_fail(t, "connect: " + os.strerror(err))
                    continue
                t.connected = True
                emit({"ev": "tx_conn", "id": t.id, "t": now, "sport": t.sport})
            try:
                while t.head:
                    k = t.sock.send(t.head)
                    t.head = t.head[k:]
                while t.sent < t.total:
                    k = t.sock.send(PAYLOAD[:min(CHUNK, t.total - t.sent)])
                    t.sent += k
                    tx_total += k
            except (BlockingIOError, InterruptedError):
                pass
            except OSError as e:
                tx_fail(t, str(e))
        if now >= next_prog:
            emit({"ev": "prog", "t": now, "rx_total": rx_total, "tx_total": tx_total,
                  "rx": {str(r.id): [r.got, r.t_last] for r in rxs.values() if r.id is not None},
                  "tx": {str(t.id): t.sent for t in txs.values()}})
            next_prog = now + 1.0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(0)
