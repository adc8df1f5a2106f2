"""The ctest entries that skip (exit 77) when a tool is missing (clang and
libFuzzer, tshark, valgrind) fail instead under `make test`, which installs
them first (make deps) and sets DCN_TEST_NO_SKIP: a CI run without them must
not pass quietly. Run here with a PATH that lacks the tool. No root needed."""
import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CASES = {
    "fuzz_short": ["bash", os.path.join(REPO, "tests/fuzz/run_fuzz.sh"), "--build", "/nonexistent", "--seconds", "1",
                   "--ci"],
    "inspect_tshark": [sys.executable, os.path.join(REPO, "tests/inspect/test_inspect.py"), "--part", "tshark",
                       "--gen", "/nonexistent", "--dump", "/nonexistent", "--lua", "/nonexistent"],
    "agent_relay_callgrind": ["bash", os.path.join(REPO, "tests/unit/callgrind_relay.sh"), "/nonexistent"],
}


@pytest.fixture(scope="module")
def bare_path(tmp_path_factory):
    """A PATH with the shell tools these scripts use, and none of the tools they need."""
    d = tmp_path_factory.mktemp("bin")
    for t in ("bash", "cat", "sed", "dirname", "mktemp", "rm", "git", "date", "cut", "nproc", "find", "wc"):
        p = shutil.which(t)
        if p:
            os.symlink(p, d / t)
    return str(d)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("no_skip,rc", [(None, 77), ("1", 1)])
def test_a_missing_tool_skips_only_outside_make_test(bare_path, name, no_skip, rc):
    env = {k: v for k, v in os.environ.items() if k != "DCN_TEST_NO_SKIP"}
    env["PATH"] = bare_path
    if no_skip:
        env["DCN_TEST_NO_SKIP"] = no_skip
    r = subprocess.run(CASES[name], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == rc, (r.stdout, r.stderr)


def test_make_test_sets_it():
    r = subprocess.run(["make", "-n", "-C", REPO, "test-unit"], capture_output=True, text=True)
    assert "DCN_TEST_NO_SKIP=1 ctest" in r.stdout, r.stdout
