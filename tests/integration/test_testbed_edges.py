"""The testbed's rough edges (issue 9, section 5): the entry script with a
terminal that fails (EIO), Ctrl-D, a closed or non-terminal stdin, a dead
stdout (`| tee` killed); processes left in the hosts' namespaces (daemons
started from the CLI) at teardown and after a killed run. Root only; run by
tests/integration/run.sh under the machine-wide lock."""
import os
import signal
import subprocess
import sys
import time

import pytest

from orchestrator import state
from orchestrator.testbed import Testbed
from tests.support import testing
from tb_harness import (ENTRY, alive, clean_testbed, kill_hard, no_traceback, read_until,
                        start_held, start_on_pty)

BUILD = testing.build_dir()
SMALL = ["--build-dir", BUILD, "--topo", "tree leaves=1 per_leaf=2", "--switch", "lxbr", "--no-smoke"]
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)")


def quiet(_msg):
    pass


def assert_nothing_left(data):
    assert testing.leftovers_of_state(data) == {}
    assert state.load() is None


def start_small_on_pty(ctty):
    """The entry script on a pty (tb_harness.start_on_pty)."""
    return start_on_pty([sys.executable, ENTRY] + SMALL, ctty=ctty)


def wait_blocked_reading_stdin(pid, timeout=10):
    """Until pid's main thread sits in read(0, ...) (x86-64 and arm64 syscall
    numbers of read: 0 and 63)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with open("/proc/%d/syscall" % pid) as f:
                fields = f.read().split()
        except OSError:
            fields = []
        if len(fields) > 1 and fields[0] in ("0", "63") and int(fields[1], 16) == 0:
            return
        time.sleep(0.05)
    pytest.fail("the CLI never blocked reading its terminal")


def finish(p, out_r, timeout=60):
    p.wait(timeout)
    rest = b""
    while True:
        d = os.read(out_r, 65536)
        if not d:
            break
        rest += d
    os.close(out_r)
    return rest.decode(errors="replace")


def test_terminal_that_fails_with_eio_ends_in_one_line_and_a_teardown():
    """The pty's master goes away while the CLI waits for input: the read on
    the terminal fails with EIO. Before: a traceback from input()."""
    p, master, out_r = start_small_on_pty(ctty=False)
    out = read_until(out_r, "dcn> ")
    data = state.load()
    assert data and data["owner"]["pid"] == p.pid
    # close the master while the CLI is blocked reading the terminal: that
    # read fails with EIO (once the hangup has completed, a new read would
    # see end-of-file instead, which is Ctrl-D)
    wait_blocked_reading_stdin(p.pid)
    os.close(master)
    out += finish(p, out_r)
    no_traceback(out)
    assert p.returncode == 0, out
    assert "dcn_testbed: cannot read the terminal (Input/output error); tearing down" in out
    assert "teardown done" in out
    assert_nothing_left(data)


def test_ctrl_d_in_the_cli_tears_down():
    p, master, out_r = start_small_on_pty(ctty=True)
    out = read_until(out_r, "dcn> ")
    data = state.load()
    os.write(master, b"\x04")  # Ctrl-D: the terminal's EOF character
    out += finish(p, out_r)
    os.close(master)
    no_traceback(out)
    assert p.returncode == 0, out
    assert "teardown done" in out
    assert_nothing_left(data)


@pytest.mark.parametrize("stdin", ["closed", "devnull", "pipe-eof"])
def test_no_terminal_on_stdin_runs_without_cli(stdin):
    """Closed stdin (`<&-`: sys.stdin is None; before: AttributeError), or
    not a terminal: no CLI, exit 0 after the bring-up."""
    kw = {}
    if stdin == "closed":
        kw["preexec_fn"] = lambda: os.close(0)
        kw["stdin"] = None
    elif stdin == "devnull":
        kw["stdin"] = subprocess.DEVNULL
    else:
        kw["stdin"] = subprocess.PIPE
    p = subprocess.Popen([sys.executable, ENTRY] + SMALL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, **kw)
    out, _ = p.communicate(input="" if stdin == "pipe-eof" else None, timeout=120)  # "": EOF at once
    no_traceback(out)
    assert p.returncode == 0, out
    assert "*** CLI" not in out and "teardown done" in out
    assert state.load() is None


def test_dead_stdout_does_not_stop_the_teardown():
    """`make testbed | tee log` and Ctrl-C: tee dies with the run, every later
    print hits a closed pipe (EPIPE). Before: BrokenPipeError in the teardown's
    first log line, and everything stayed up."""
    r_fd, w_fd = os.pipe()
    p = subprocess.Popen([sys.executable, ENTRY, "--hold"] + SMALL, stdin=subprocess.DEVNULL,
                         stdout=w_fd, stderr=subprocess.PIPE, text=True)
    os.close(w_fd)
    buf = read_until(r_fd, "holding the testbed up")
    data = state.load()
    assert data and data["owner"]["pid"] == p.pid, buf
    os.close(r_fd)  # tee is gone
    os.kill(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=60)
    no_traceback(err)
    assert p.returncode == 130, err
    assert_nothing_left(data)


def _iperf_daemon(run, pidfile, port):
    """`h01 iperf3 -s -D` as typed in the CLI: through the host's shell."""
    if os.path.exists(pidfile):
        os.unlink(pidfile)
    run("iperf3 -s -D -p %d -I %s" % (port, pidfile))
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            with open(pidfile) as f:
                pid = int(f.read().strip().strip("\0"))
            if alive(pid):
                return pid
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    pytest.fail("iperf3 -D did not start")


@pytest.mark.skipif(not testing.agent_built(BUILD) or "bcube" not in testing.families(BUILD),
                    reason="needs dcn-agent and the bcube family")
def test_daemon_started_in_a_host_ends_with_the_teardown_and_nothing_else_does():
    outsider = subprocess.Popen(["sleep", "300"])                       # root namespace
    foreign = subprocess.Popen(["unshare", "--net", "sleep", "300"])    # a namespace not ours
    try:
        with Testbed(BUILD, "bcube n=2 k=1", switch="lxbr", log=quiet) as tb:
            h = tb.hosts["h01"]
            pid = _iperf_daemon(h.cmd, "/run/dcn-testbed/test-iperf3-d.pid", 5399)
            assert state.netns_of(pid) == state.netns_of(h.pid)  # inside h01's namespace
            ns = state.netns_of(h.pid)
            data = dict(tb.state.data)
        assert not alive(pid), "iperf3 -D survived the teardown"
        assert not state.procs_in_netns([ns])
        left = tb.leftovers()
        assert left == {"bridges": [], "links": [], "hosts": [], "procs": []}, left
        assert_nothing_left(data)
        assert outsider.poll() is None and foreign.poll() is None  # only the testbed's own
    finally:
        for p in (outsider, foreign):
            p.kill()
            p.wait()


def test_daemon_of_a_killed_run_goes_with_make_clean_testbed():
    p, out = start_held(["--hold"] + SMALL)
    data = state.load()
    assert data and data["owner"]["pid"] == p.pid, out
    host = next(r for r in data["hosts"] if r["what"] == "host h1")
    nsenter = ["nsenter", "--net=/proc/%d/ns/net" % host["pid"]]

    def run(cmd):
        subprocess.run(nsenter + cmd.split(), check=True)
    pid = _iperf_daemon(run, "/run/dcn-testbed/test-iperf3-k.pid", 5398)
    kill_hard(p)
    # the host shells die with their pty master; the daemon keeps the namespace
    deadline = time.time() + 10
    while state.same_process(host) and time.time() < deadline:
        time.sleep(0.1)
    assert alive(pid)
    clean_testbed()
    assert not alive(pid), "iperf3 -D survived make clean-testbed"
    assert testing.leftovers_of_state(data) == {}
    assert state.load() is None
