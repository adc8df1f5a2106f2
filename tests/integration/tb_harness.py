"""The entry script (orchestrator/dcn_testbed.py) as a user runs it, for the
root tests that drive it from outside: on a pseudo-terminal, held up and
killed, cleaned with --clean; and what they check of the processes it
leaves. Shared by test_testbed_capture.py and test_testbed_edges.py."""
import os
import pty
import select
import signal
import subprocess
import sys
import time

import pytest

from tests.support import testing

ENTRY = os.path.join(testing.REPO, "orchestrator", "dcn_testbed.py")
HOLDING = "holding the testbed up"


def alive(pid):
    """Running, i.e. not gone and not a zombie (the container's init may reap
    an orphan's zombie late)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            st = f.read()
    except OSError:
        return False
    return st[st.rindex(")") + 2] != "Z"


def no_traceback(text):
    assert "Traceback" not in text and "Exception ignored" not in text, text


def read_until(fd, needle, timeout=90, at_end=False):
    """What fd gives until needle is in it (at_end: until it ends with
    needle, as a prompt does); the test fails at end of file or timeout.
    needle None: all it gives until end of file or timeout."""
    buf = b""
    deadline = time.time() + timeout
    while time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 0.5)
        if r:
            try:
                d = os.read(fd, 65536)
            except OSError:
                break
            if not d:
                break
            buf += d
            if needle is not None:
                text = buf.decode(errors="replace")
                if (text.endswith(needle) if at_end else needle in text):
                    return text
    if needle is None:
        return buf.decode(errors="replace")
    pytest.fail("no %r in the output:\n%s" % (needle, buf.decode(errors="replace")))


def start_on_pty(argv, ctty=False, cwd=None):
    """argv with a pty as stdin and a pipe as stdout and stderr, as `sudo
    make testbed 2>&1 | tee log` on a terminal, in its own session. ctty: the
    pty is the child's controlling terminal (else only its stdin). Returns
    (the process, the pty's master, the pipe's read end)."""
    master, slave = pty.openpty()
    out_r, out_w = os.pipe()

    def child_setup():
        os.setsid()
        if ctty:
            import fcntl
            import termios
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    p = subprocess.Popen(argv, stdin=slave, stdout=out_w, stderr=out_w, cwd=cwd, preexec_fn=child_setup)
    os.close(slave)
    os.close(out_w)
    return p, master, out_r


def start_held(args, timeout=60):
    """The entry script with args (which include --hold) and no terminal,
    read until it holds the testbed up (or ends, or timeout passes).
    Returns (the process, its output so far)."""
    p = subprocess.Popen([sys.executable, ENTRY] + args, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = ""
    deadline = time.time() + timeout
    while HOLDING not in out and time.time() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        out += line
    return p, out


def kill_hard(p):
    """SIGKILL, as a killed run: no teardown."""
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    p.stdout.close()


def clean_testbed():
    """`make clean-testbed`; it must succeed."""
    r = subprocess.run([sys.executable, ENTRY, "--clean"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert r.returncode == 0, r.stdout
