"""Every script under tools/ that a developer runs answers --help with
exit 0 (tools/probes/stall_replay.py once declared --runs twice, beside
the experiments' shared option, and died in argparse before its help)."""
import os
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _python_tools():
    out = []
    for root, _dirs, files in os.walk(os.path.join(REPO, "tools")):
        for f in files:
            p = os.path.join(root, f)
            if not os.access(p, os.X_OK):
                continue
            with open(p, "rb") as fh:
                first = fh.readline()
            if first.startswith(b"#!") and b"python" in first:
                out.append(os.path.relpath(p, REPO))
    return sorted(out)


@pytest.mark.parametrize("tool", _python_tools())
def test_python_tool_answers_help(tool):
    r = subprocess.run([os.path.join(REPO, tool), "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    assert r.returncode == 0, f"{tool} --help: exit {r.returncode}: {r.stderr[-400:]}"
    assert r.stdout.strip(), f"{tool} --help printed nothing"
