#!/usr/bin/python3
"""One markdown file in results/ shared by several measuring runs, each of
which owns one section and rewrites only that one.

results/reliability.md holds the fuzzing run's figures (tests/fuzz/run_fuzz.sh
--report) and the soak's (experiments/soak). A section sits between

    <!-- begin NAME: written by WRITER; do not edit by hand -->
    ...
    <!-- end NAME -->

and a run replaces its own section in place, or appends it, keeping every
other byte of the file. A file without markers (written before sections
existed) is kept whole, and the section is appended after it.

From a shell:  mdsection.py FILE NAME WRITER [--title T --preamble P] < BODY
"""
from __future__ import annotations

import argparse
import os
import re
import sys

TITLE = "# Reliability figures"
PREAMBLE = ("Each section below is written by the run that measured it, which the marker above it names; "
            "do not edit by hand.")


def begin_marker(name: str, writer: str) -> str:
    return f"<!-- begin {name}: written by {writer}; do not edit by hand -->"


def end_marker(name: str) -> str:
    return f"<!-- end {name} -->"


def check_name(name: str) -> None:
    if not re.fullmatch(r"[a-z][a-z0-9-]*", name):
        raise ValueError(f"section name {name!r}: lower-case letters, digits and '-' only")


def replace_section(text: str, name: str, writer: str, body: str) -> str:
    """The file's text with section NAME holding BODY. Raises ValueError on a
    section whose markers are unpaired, rather than guess what to keep."""
    check_name(name)
    block = "%s\n%s\n%s\n" % (begin_marker(name, writer), body.strip("\n"), end_marker(name))
    begin = re.compile(r"^<!-- begin %s: .*-->\n" % re.escape(name), re.M)
    end = re.compile(r"^%s\n?" % re.escape(end_marker(name)), re.M)
    bs, es = list(begin.finditer(text)), list(end.finditer(text))
    if not bs and not es:
        sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        return text + sep + block
    if len(bs) != 1 or len(es) != 1 or es[0].start() < bs[0].end():
        raise ValueError(f"section {name!r}: markers unpaired ({len(bs)} begin, {len(es)} end)")
    return text[:bs[0].start()] + block + text[es[0].end():]


def write_section(path: str, name: str, writer: str, body: str, title: str = TITLE, preamble: str = PREAMBLE) -> None:
    """Writes section NAME of PATH (created with TITLE and PREAMBLE when
    missing) through a temporary file, so that a killed run leaves the old
    file or the new one, never half of one."""
    if os.path.exists(path):
        with open(path) as f:
            text = f.read()
    else:
        text = f"{title}\n\n{preamble}\n\n"
    text = replace_section(text, name, writer, body)
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = os.path.join(d, f".{os.path.basename(path)}.tmp")
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Replace one section of a shared results page with standard input.")
    ap.add_argument("file")
    ap.add_argument("name")
    ap.add_argument("writer", help="the command that measured the section, named in its marker")
    ap.add_argument("--title", default=TITLE)
    ap.add_argument("--preamble", default=PREAMBLE)
    a = ap.parse_args(argv)
    try:
        write_section(a.file, a.name, a.writer, sys.stdin.read(), a.title, a.preamble)
    except (ValueError, OSError) as e:
        print(f"mdsection: {a.file}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
