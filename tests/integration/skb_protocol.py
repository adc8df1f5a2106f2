"""Counts the frames an interface sends, by the protocol the kernel holds
for each (skb->protocol, which qdiscs' tc filters key on), not by the
EtherType written in the frame: a packet socket with a classic BPF filter
that loads the protocol (SKF_AD_PROTOCOL). For the kernel relay's tests:
the frames the kernel sends must be DCN frames to the kernel, as the
agent's are.
Usage: skb_protocol.py IFNAME SECONDS   (in the interface's namespace, root)
Prints: "dcn N ipv4 M" (outgoing frames only)."""
import ctypes
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
SO_ATTACH_FILTER = 26
PACKET_OUTGOING = 4
SKF_AD_PROTOCOL = (-0x1000 + 0) & 0xffffffff  # SKF_AD_OFF + SKF_AD_PROTOCOL
PROTOCOLS = {"dcn": 0x88B5, "ipv4": 0x0800}


def socket_for(ifname, proto):
    """A packet socket on ifname that takes only the frames whose
    skb->protocol is proto (ld proto; jeq proto; ret 64 / ret 0)."""
    prog = [(0x28, 0, 0, SKF_AD_PROTOCOL), (0x15, 0, 1, proto), (0x06, 0, 0, 64), (0x06, 0, 0, 0)]
    insns = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *i) for i in prog))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, struct.pack("HL", len(prog), ctypes.addressof(insns)))
    s.bind((ifname, 0))
    s.setblocking(False)
    return s


def count(ifname, seconds):
    socks = {name: socket_for(ifname, proto) for name, proto in PROTOCOLS.items()}
    n = dict.fromkeys(socks, 0)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        ready, _, _ = select.select(list(socks.values()), [], [], 0.2)
        for name, s in socks.items():
            if s not in ready:
                continue
            while True:
                try:
                    _, addr = s.recvfrom(64)
                except BlockingIOError:
                    break
                n[name] += addr[2] == PACKET_OUTGOING
    for s in socks.values():
        s.close()
    return n


if __name__ == "__main__":
    c = count(sys.argv[1], float(sys.argv[2]))
    print("dcn %d ipv4 %d" % (c["dcn"], c["ipv4"]))
