"""Prints how many BPF programs are attached at TCX ingress (or egress) of an
interface (BPF_PROG_QUERY; iproute2 6.1 does not show TCX). For the kernel
relay's tests: the agent's program must be there while it runs and gone
after it.
Usage: tcx_progs.py IFNAME [ingress|egress]   (in the interface's network
namespace, root)"""
import ctypes
import os
import socket
import struct
import sys

SYS_BPF = {"x86_64": 321, "aarch64": 280}[os.uname().machine]
BPF_PROG_QUERY = 16
BPF_TCX = {"ingress": 46, "egress": 47}


def tcx_count(ifname, where="ingress"):
    attr = ctypes.create_string_buffer(struct.pack("=IIII", socket.if_nametoindex(ifname), BPF_TCX[where], 0, 0), 128)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(SYS_BPF, BPF_PROG_QUERY, attr, 64) != 0:
        raise OSError(ctypes.get_errno(), "BPF_PROG_QUERY on %s: %s" % (ifname, os.strerror(ctypes.get_errno())))
    return struct.unpack_from("=I", attr.raw, 24)[0]


if __name__ == "__main__":
    print(tcx_count(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "ingress"))
