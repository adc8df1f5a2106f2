"""Every link between the repository's markdown pages resolves: the file it
names exists and, when it names a heading (`page.md#some-heading`), the
page has that heading, by GitHub's rule for anchors (lower case, spaces
to hyphens, punctuation other than hyphens and underscores dropped).
Links to the web are not followed. No root needed.

  /usr/bin/python3 -m pytest tests/docs/test_doc_links.py
"""
import glob
import os
import re

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def pages():
    out = ["README.md", "CHANGELOG.md", "results/README.md", "results/NOTES.md"]
    for pattern in ("docs/**/*.md", "results/*/NOTES.md", "results/*/*/NOTES.md"):
        out += sorted(os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, pattern), recursive=True))
    return [p for p in out if os.path.isfile(os.path.join(REPO, p))]


def prose_lines(path):
    """(number, line) outside fenced code blocks and inline code."""
    fenced = False
    with open(os.path.join(REPO, path), encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                yield i, re.sub(r"`[^`]*`", "", line)


def slug(heading):
    h = re.sub(r"<[^>]+>", "", heading).strip().lower()
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def anchors(path):
    out, seen = set(), {}
    for _, line in prose_lines(path):
        m = HEADING.match(line)
        if not m:
            continue
        s = slug(m.group(1))
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else "%s-%d" % (s, n))
    return out


def links(path):
    for n, line in prose_lines(path):
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            yield n, target


def broken(path):
    out = []
    base = os.path.dirname(os.path.join(REPO, path))
    for n, target in links(path):
        file, _, frag = target.partition("#")
        dest = os.path.normpath(os.path.join(base, file)) if file else os.path.join(REPO, path)
        if not os.path.exists(dest):
            out.append("%s:%d: %s: no such file" % (path, n, target))
        elif frag and dest.endswith(".md") and frag not in anchors(os.path.relpath(dest, REPO)):
            out.append("%s:%d: %s: no heading #%s there" % (path, n, target, frag))
    return out


@pytest.mark.parametrize("path", pages())
def test_every_link_resolves(path):
    assert broken(path) == []


def test_the_check_sees_a_broken_link(tmp_path, monkeypatch):
    monkeypatch.setattr(__import__(__name__), "REPO", str(tmp_path))
    (tmp_path / "a.md").write_text("# Top part\n\n[ok](b.md#the-end) [top](#top-part) [bad](b.md#nowhere) "
                                   "[gone](c.md) `[code](x.md)` [web](https://example.org)\n")
    (tmp_path / "b.md").write_text("## The end\n")
    assert broken("a.md") == ["a.md:3: b.md#nowhere: no heading #nowhere there", "a.md:3: c.md: no such file"]
