"""The orchestrator's one error type: a message for the user, no traceback;
and one-line command-line errors."""
import argparse


class TestbedError(RuntimeError):
    pass


class OneLineParser(argparse.ArgumentParser):
    """argparse whose errors are one line, `PROG: error: MESSAGE (see
    --help)`, exit status 2, instead of the usage block and the message."""

    def error(self, message):
        self.exit(2, "%s: error: %s (see --help)\n" % (self.prog, message))


def missing_module(prog, e):
    """The one line for a Python dependency that is not installed."""
    pkg = {"mininet": "mininet", "matplotlib": "python3-matplotlib"}.get((e.name or "").split(".")[0])
    return "%s: missing dependency: Python module %s%s; sudo make deps" % (
        prog, e.name, " (Debian package %s)" % pkg if pkg else "")
