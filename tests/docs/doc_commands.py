#!/usr/bin/python3
"""Every command shown in README.md and docs/**/*.md: the lines of indented
(4-space) and fenced code blocks that are shell commands (`$ ` prompts,
`sudo ...`, `make ...`, dcn-topo, dcn-sim, dcn-agent, scripts under
experiments/, tests/, tools/, orchestrator/, build/, ...) and the testbed
CLI's lines (`dcn> ...`, `mininet> ...`). Trailing `# comments`, prompts and
backslash continuations are taken off; a command of a prompt block keeps the
output lines the page shows after it.

Blocks that hold no command (C, Python, JSON, diagrams, output listings,
formulas) are recognised and left out: a fenced block tagged with a
language other than a shell's, or a block none of whose lines (at the
block's own indentation) starts like a command. A block of commands without
prompts must hold only commands, comments and continuation lines; anything
else there is an error (DocError), so that a half-recognised block cannot
hide a command.

A command is a synopsis when it shows placeholders instead of values
(`[--opt X]`, `a|b`, `FILE`, `SRC`, `<host>`, `...`).

  tests/docs/doc_commands.py [--json] [FILE.md ...]   list them (default: README.md and docs/)

tests/docs/test_doc_commands.py runs or maps each of them (docs/contributing.md).
"""
import argparse
import dataclasses
import glob
import json
import os
import re
import shlex
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROMPTS = ("$ ", "dcn> ", "mininet> ")
# fenced blocks with these tags never hold commands
NON_SHELL_LANGS = {"c", "h", "python", "py", "json", "lua", "yaml", "toml", "diff", "csv", "make", "makefile",
                   "cmake", "text", "txt", "output"}
PROGRAMS = ("sudo make cmake ctest cd nice env flock git ip ping iperf3 ethtool tshark tcpdump wireshark python3 "
            "gen_capture mn ovs-vsctl ovs-ofctl apt-get apt kill tc ss ls cat grep chmod install").split()
LEAD = re.compile(r"^(?:"
                  r"(?:%s)(?=\s|$)" % "|".join(re.escape(p) for p in PROGRAMS) +
                  r"|/usr/bin/python3(?=\s|$)"
                  r"|dcn-[a-z]+(?=\s|$)"
                  r"|(?:\./|build/|build-test/|experiments/|tools/|tests/|orchestrator/|agent/)\S+"
                  r"|[A-Z_][A-Z0-9_]*=\S*\s+\S"     # VAR=value command
                  r")")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
LIST_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])(\s+)\S")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*(\.\.\.)?$")


class DocError(Exception):
    pass


@dataclasses.dataclass
class Command:
    path: str              # relative to the repository
    line: int              # 1-based line of the command's first line
    text: str              # the command: prompt and comments taken off, continuations joined
    prompt: str = ""       # "$", "dcn>", "mininet>" or ""
    section: str = ""      # the last "## " heading above it
    output: list = dataclasses.field(default_factory=list)   # lines shown after it (prompt blocks)
    comment: str = ""      # its trailing comment(s), without "#"
    synopsis: bool = False

    @property
    def where(self):
        return "%s:%d" % (self.path, self.line)

    @property
    def words(self):
        return split(self.text)

    def as_dict(self):
        return dataclasses.asdict(self)


def split(text):
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def strip_comment(line):
    """(line without its trailing `# comment`, the comment): a # that starts
    a word outside quotes."""
    quote, prev, escaped = None, " ", False
    for i, ch in enumerate(line):
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and prev.isspace():
            return line[:i].rstrip(), line[i + 1:].strip()
        prev = ch
    return line.rstrip(), ""


def is_synopsis(text):
    for w in split(text):
        if w in ("|", "...") or w.endswith("..."):
            return True
        if re.search(r"\s", w):      # a quoted argument with spaces (a -c script, a spec)
            continue
        if w.startswith(("[", "(", "<")) or w.endswith(("]", ")", ">")):
            return True
        if re.search(r"[\w:-]\|[\w:-]", w):           # alternatives: a|b
            return True
        if w.startswith("-"):
            continue
        value = w.split("=", 1)[1] if re.match(r"^[A-Za-z_][\w.]*=", w) else w
        for piece in re.split(r"[\s:=,/()+]+", value):
            if piece and PLACEHOLDER.match(piece):
                return True
    return False


def indent_of(line):
    """Columns of leading white space (a tab to the next multiple of 4)."""
    lead = line[:len(line) - len(line.lstrip(" \t"))]
    return len(lead.expandtabs(4))


def dedent(line, n):
    """line without its first n columns of leading white space (no more
    than it has); tabs after them, as in shown output, stay."""
    i = 0
    while i < len(line) and line[i] in " \t" and indent_of(line[:i + 1]) <= n:
        i += 1
    return line[i:]


@dataclasses.dataclass
class Block:
    lines: list            # [(lineno, text)] with the block's indentation removed
    lang: str = ""
    fenced: bool = False
    section: str = ""


def blocks(text):
    """The code blocks of a Markdown text: fenced ones, and indented ones
    (4 spaces past the enclosing list item's content, after a blank line)."""
    out, lines = [], text.split("\n")
    stack = []            # content indents of the open list items
    prev_blank = True
    section = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            prev_blank = True
            i += 1
            continue
        ind = indent_of(line)
        while stack and ind < stack[-1]:
            stack.pop()
        base = stack[-1] if stack else 0
        m = FENCE.match(line)
        if m and ind < base + 4:
            fence, find = m.group(2), len(m.group(1))
            body, j = [], i + 1
            while j < len(lines) and not lines[j].strip().startswith(fence[0] * len(fence)):
                body.append((j + 1, dedent(lines[j], find)))
                j += 1
            out.append(Block(body, m.group(3).lower(), True, section))
            i, prev_blank = j + 1, True
            continue
        if prev_blank and ind >= base + 4:
            body, j = [], i
            while j < len(lines):
                ln = lines[j]
                if ln.strip() and indent_of(ln) < base + 4:
                    break
                body.append((j + 1, ln))
                j += 1
            while body and not body[-1][1].strip():
                body.pop()
            cut = min(indent_of(t) for _, t in body if t.strip())
            out.append(Block([(n, dedent(t, cut)) for n, t in body], "", False, section))
            i, prev_blank = j, False
            continue
        if line.startswith("#"):
            stack, section = [], line.strip() if line.startswith("## ") else section
        else:
            li = LIST_ITEM.match(line)
            if li:
                stack.append(len(li.group(1)) + len(li.group(2)) + len(li.group(3)))
        prev_blank = False
        i += 1
    return out


def _prompt_of(text):
    for p in PROMPTS:
        if text.startswith(p):
            return p.strip(), text[len(p):]
        if text == p.strip():
            return p.strip(), ""
    return None, None


def commands_of_block(block, path):
    if block.fenced and block.lang in NON_SHELL_LANGS:
        return []
    body = [(n, t) for n, t in block.lines if t.strip()]
    if any(_prompt_of(t)[0] for _, t in body):
        return _prompt_block(body, path, block.section)
    if not any(indent_of(t) == 0 and LEAD.match(t) for _, t in body):
        return []
    cmds, cont = [], False
    for n, t in body:
        code, comment = strip_comment(t)
        if cont or (cmds and indent_of(t) > 0 and code.lstrip().startswith(("[", "-"))):
            c = cmds[-1]
            c.text = (c.text[:-1].rstrip() if c.text.endswith("\\") else c.text) + " " + code.strip()
            c.comment = " ".join(x for x in (c.comment, comment) if x)
        elif indent_of(t) == 0 and t.startswith("#"):
            pass
        elif indent_of(t) == 0 and LEAD.match(t):
            cmds.append(Command(path, n, code, "", block.section, [], comment))
        else:
            raise DocError("%s:%d: a block of commands holds a line that is neither a command, a comment nor a "
                           "continuation: %r (start it like a command, or move it out of the block)" % (path, n, t))
        cont = cmds[-1].text.endswith("\\") if cmds else False
    return _finish(cmds)


def _prompt_block(body, path, section):
    cmds, cont = [], False
    for n, t in body:
        prompt, rest = _prompt_of(t)
        if cont:
            code, comment = strip_comment(t)
            c = cmds[-1]
            c.text = c.text[:-1].rstrip() + " " + code.strip()
            c.comment = " ".join(x for x in (c.comment, comment) if x)
        elif prompt:
            code, comment = strip_comment(rest)
            cmds.append(Command(path, n, code, prompt, section, [], comment))
        elif cmds:
            cmds[-1].output.append(t)
        else:
            raise DocError("%s:%d: output before any command in a block of prompts: %r" % (path, n, t))
        cont = bool(cmds) and cmds[-1].text.endswith("\\") and not cmds[-1].output
    return _finish(cmds)


def _finish(cmds):
    for c in cmds:
        c.text = c.text.strip()
        c.synopsis = c.prompt in ("", "$") and is_synopsis(c.text)
    return [c for c in cmds if c.text]


def extract(path, repo=REPO):
    rel = os.path.relpath(os.path.abspath(path), repo)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out = []
    for b in blocks(text):
        out += commands_of_block(b, rel)
    return out


def doc_files(repo=REPO):
    files = [os.path.join(repo, "README.md")]
    files += sorted(glob.glob(os.path.join(repo, "docs", "**", "*.md"), recursive=True))
    return [f for f in files if os.path.isfile(f)]


def extract_all(repo=REPO, files=None):
    out = []
    for f in files or doc_files(repo):
        out += extract(f, repo)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="Markdown files (default: README.md and docs/**/*.md)")
    ap.add_argument("--json", action="store_true", help="one JSON object per command")
    a = ap.parse_args(argv)
    try:
        cmds = extract_all(REPO, [os.path.abspath(f) for f in a.files] or None)
    except DocError as e:
        print("doc_commands: %s" % e, file=sys.stderr)
        return 1
    for c in cmds:
        if a.json:
            print(json.dumps(c.as_dict()))
        else:
            kind = (c.prompt or "sh") + (" synopsis" if c.synopsis else "")
            print("%s\t%s\t%s" % (c.where, kind, c.text))
            for o in c.output:
                print("\t\t| %s" % o)
    return 0


if __name__ == "__main__":
    sys.exit(main())
