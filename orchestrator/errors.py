"""The orchestrator's one error type: a message for the user, no traceback;
and one-line command-line errors."""
from __future__ import annotations

import argparse


class TestbedError(RuntimeError):
    pass


class OneLineParser(argparse.ArgumentParser):
    """argparse whose errors are one line, `PROG: error: MESSAGE (see
    --help)`, exit status 2, instead of the usage block and the message."""

    def error(self, message: str) -> None:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def missing_module(prog: str, e: BaseException) -> str:
    """The one line for a Python dependency that is not installed."""
    pkg = {"mininet": "mininet", "matplotlib": "python3-matplotlib"}.get((e.name or "").split(".")[0])
    debian = f" (Debian package {pkg})" if pkg else ""
    return f"{prog}: missing dependency: Python module {e.name}{debian}; sudo make deps"
