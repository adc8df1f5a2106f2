#!/usr/bin/python3
"""docs/architecture.md checked against the code (issue 12: the page is
checked by walking a real frame and a real spec through it). No privileges,
no namespaces; about a second.

1. Names. Every `name()` the page writes is defined in the code: a C
   function (a definition found by brace matching, not a mere mention or a
   prototype) or a function-like macro under agent/src or tools/, or a
   Python function, method or class (by the ast) under orchestrator/,
   experiments/, agent/src or tools/; `Class.method()` must be that class's
   method, `module.func()` that module's function. `f()` (`file.c`),
   `f()` in `file.c` and `f()`, `file.c` claim the definition is in that
   file. EXTERNAL lists the few system and library calls the page names.
2. Paths. Every file or folder the page names, in backticks or in its
   fenced diagram, exists: relative to the repository, or to a folder the
   page names (`core/` is agent/src/agent/core/, `proto.c` is in it).
   Templates (`families/<name>.c`), run-time paths (/run/...) and build
   outputs (build/...) are skipped; GONE lists files the page names as
   deleted, which must stay deleted. Markdown links must resolve.
3. Identifiers. Every backticked snake_case or CamelCase word of the page,
   and every such word of its fenced diagram, occurs in the sources
   (a weak check: struct fields, constants, CMake targets, JSON keys).
4. Arrows. Every `a()` -> `b()` of the page is a call: b is called in the
   body of a (C: `b(` in a's braces; Python: b called or handed on, as
   BringUp.start() hands on its steps). `a()` -> `f` = `b()`: a calls the
   function pointer f, and f is bound to b (`.f = b`, or b passed to a as
   its parameter f). `a()` -> `prog sub`: a runs that command (its words
   are string constants in a's body); `prog sub` -> `main()` (`file.c`):
   prog is built from file.c and main's body knows the word sub.
5. Order. In the sections "Walk 1 as calls" and "Walk 2 as calls" (one
   numbered call chain per item, grouped per server in bold lines), the
   calls a function makes come in its body in the order listed.
6. The real spec. With dcn-topo (--dcn-topo, or found in build/), the
   walks' example is run: `dcn-topo export bcube n=4 k=1` has the JSON keys
   the page lists and, through orchestrator/topology.py's Wiring, the ids,
   addresses, bridge and interface names and cables Walks 1 and 2 quote;
   `dcn-topo paths` prints the relay path of Walk 1 among two; the bad
   spec's one line is the page's. Also the Makefile's testbed target and
   the dcn-agent command line of step 8 (each option in _agent_cmd() and
   in the agent's options.c).

Prints each failure with the page's line; exit 1 when any.
  --page FILE      check another copy of the page (mutation tests)
  --dcn-topo PATH  the dcn-topo binary (ctest passes it)
"""
import argparse
import ast
import glob
import json
import os
import re
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
C_DIRS = ("agent/src", "tools")
PY_DIRS = ("orchestrator", "experiments", "agent/src", "tools")
CORPUS_DIRS = ("agent", "orchestrator", "experiments", "tools", "tests")
CORPUS_EXT = (".c", ".h", ".py", ".txt", ".sh", ".lua", ".cmake")

# Called by the code the page describes, defined outside this repository.
EXTERNAL = {
    "read": "system call: on_tun() reads the TUN device",
    "recvmmsg": "system call behind rawsock_recv_batch()",
    "sendmmsg": "system call behind rawsock_flush()",
    "ev_run": "libev's loop, run by main()",
}
# Files the page names as deleted on purpose ("Build: the path selector").
GONE = {
    "path_select_fallback.c": "the second path selector, deleted in issue 12",
}

FAILURES = []
PAGE = ["docs/architecture.md"]  # the page's name in messages
PAGE_LINES = []  # offsets of the page's lines, for messages


def line_of(offset):
    lo, hi = 0, len(PAGE_LINES) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if PAGE_LINES[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1


def fail(offset, what):
    where = "%s:%d: " % (PAGE[0], line_of(offset)) if offset is not None else ""
    if where + what in FAILURES:  # a call list's chain is also one of the page's arrows
        return
    FAILURES.append(where + what)
    print("FAIL: " + where + what)


# ---------------------------------------------------------------- sources


def walk_files(dirs, exts):
    for d in dirs:
        for root, subdirs, files in os.walk(os.path.join(REPO, d)):
            subdirs[:] = sorted(s for s in subdirs if not s.startswith((".", "__pycache__", "build"))
                                and not os.path.exists(os.path.join(root, s, "CMakeCache.txt")))
            for f in sorted(files):
                if f.endswith(exts):
                    yield os.path.join(root, f)


def rel(path):
    return os.path.relpath(path, REPO)


def blank(m):
    return re.sub(r"[^\n]", " ", m.group(0))


C_TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
C_PREPROC = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)
C_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case", "defined"}


def match_close(s, i, op, cl):
    """Index of the bracket closing the one at s[i], or -1."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == op:
            depth += 1
        elif s[j] == cl:
            depth -= 1
            if depth == 0:
                return j
    return -1


def split_top(s, sep=","):
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


def param_name(p):
    m = re.search(r"\(\s*\*\s*(\w+)\s*\)", p)  # a function pointer: (*name)(...)
    if m:
        return m.group(1)
    ids = re.findall(r"[A-Za-z_]\w*", re.sub(r"\[.*?\]", "", p))
    return ids[-1] if ids else None


class CDef:
    lang = "c"
    cls = None

    def __init__(self, name, path, params, body, raw_body):
        self.name, self.path, self.body, self.raw_body = name, path, body, raw_body
        self.params = [param_name(p) for p in split_top(params)]

    def refs(self, name):
        """Offsets in the body of direct calls of name."""
        return [m.start() for m in re.finditer(r"(?<![\w.>])%s\s*\(" % re.escape(name), self.body)]

    def pointer_calls(self, field):
        """Offsets of calls through a pointer or parameter named field."""
        return [m.start() for m in re.finditer(r"(?<!\w)%s\s*\(" % re.escape(field), self.body)]

    def __repr__(self):
        return "%s() in %s" % (self.name, self.path)


class CMacro(CDef):
    def __init__(self, name, path):
        CDef.__init__(self, name, path, "", "", "")


def c_sources():
    defs, texts = {}, {}
    for path in walk_files(C_DIRS, (".c", ".h")):
        with open(path, errors="replace") as f:
            raw = f.read()
        nocomment = C_TOKENS.sub(lambda m: blank(m) if not m.group(0).startswith(('"', "'")) else m.group(0), raw)
        for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(", nocomment, re.M):
            defs.setdefault(m.group(1), []).append(CMacro(m.group(1), rel(path)))
        s = C_PREPROC.sub(blank, C_TOKENS.sub(blank, raw))
        texts[rel(path)] = s
        pat = re.compile(r"[{}]|(?<!\w)([A-Za-z_]\w*)\s*\(")
        pos, depth = 0, 0
        while True:
            m = pat.search(s, pos)
            if not m:
                break
            tok = m.group(0)
            if tok in "{}":
                depth += 1 if tok == "{" else -1
                pos = m.end()
                continue
            open_at = m.end() - 1
            close = match_close(s, open_at, "(", ")")
            if close < 0:
                break
            if depth != 0 or m.group(1) in C_KEYWORDS:
                pos = open_at + 1
                continue
            j = close + 1
            while j < len(s) and s[j].isspace():
                j += 1
            if j < len(s) and s[j] == "{":
                end = match_close(s, j, "{", "}")
                if end < 0:
                    break
                d = CDef(m.group(1), rel(path), s[open_at + 1:close], s[j:end + 1], raw[j:end + 1])
                defs.setdefault(d.name, []).append(d)
                pos = end + 1
            else:
                pos = close + 1
    return defs, texts


class PyDef:
    lang = "py"

    def __init__(self, node, path, cls):
        self.node, self.path, self.cls, self.name = node, path, cls, node.name

    def _walk(self):
        for n in ast.walk(self.node):
            if n is not self.node:
                yield n

    def refs(self, name):
        """Where name is called or handed on (a Name or an attribute)."""
        out = []
        for n in self._walk():
            if isinstance(n, ast.Name) and n.id == name or isinstance(n, ast.Attribute) and n.attr == name:
                out.append((n.lineno, n.col_offset))
        return sorted(out)

    def pointer_calls(self, field):
        return []

    def constants(self, value):
        return sorted((n.lineno, n.col_offset) for n in self._walk()
                      if isinstance(n, ast.Constant) and n.value == value)

    def __repr__(self):
        return "%s%s() in %s" % (self.cls + "." if self.cls else "", self.name, self.path)


def py_sources():
    defs = {}
    for path in walk_files(PY_DIRS, (".py",)):
        with open(path) as f:
            try:
                tree = ast.parse(f.read(), path)
            except SyntaxError as e:
                fail(None, "%s does not parse: %s" % (rel(path), e))
                continue

        def visit(node, cls):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    defs.setdefault(child.name, []).append(PyDef(child, rel(path), cls))
                    visit(child, child.name if isinstance(child, ast.ClassDef) else None)
                else:
                    visit(child, cls)
        visit(tree, None)
    return defs


def corpus_words():
    words = set()
    for path in list(walk_files(CORPUS_DIRS, CORPUS_EXT)) + [os.path.join(REPO, "Makefile"),
                                                              os.path.join(REPO, "CMakeLists.txt")]:
        words.update(re.split(r"\W+", os.path.basename(path)))
        with open(path, errors="replace") as f:
            words.update(re.findall(r"\w+", f.read()))
    return words


# ---------------------------------------------------------------- the page


def page_prose(text):
    """The page with fenced blocks and indented code blocks blanked (same
    offsets), and the fenced blocks' text."""
    fenced = []

    def keep(m):
        fenced.append((m.start(), m.group(0)))
        return blank(m)
    prose = re.sub(r"^```.*?^```[^\n]*$", keep, text, flags=re.M | re.S)
    prose = re.sub(r"(?:(?<=\n\n)(?: {4,}[^\n]*\n)+)", blank, prose)  # indented code blocks
    return prose, fenced


FUNC = r"`[A-Za-z_][\w.]*\(\)`(?:\s*\(`[\w./-]+\.(?:c|h|py)`\))?"
PTR = r"`[A-Za-z_]\w*`\s*=\s*" + FUNC
CMD = r"`[a-z][\w-]*(?: [\w=.-]+)+`"
ANY = r"(?:%s|%s|%s)" % (PTR, FUNC, CMD)
CHAIN = re.compile(r"%s(?:\s*->\s*%s)+" % (ANY, ANY))
FUNC_RE = re.compile(r"`(?P<name>[A-Za-z_][\w.]*)\(\)`(?:\s*\(`(?P<file>[\w./-]+\.(?:c|h|py))`\))?\s*$")
PTR_RE = re.compile(r"`(?P<field>[A-Za-z_]\w*)`\s*=\s*(?P<func>.*)$", re.S)
CMD_RE = re.compile(r"`(?P<cmd>[^`]+)`\s*$")


class Elem:
    def __init__(self, kind, name=None, file=None, field=None, target=None, words=None):
        self.kind, self.name, self.file, self.field, self.target, self.words = kind, name, file, field, target, words

    def key(self):
        if self.kind == "ptr":
            return self.target.key()
        if self.kind == "cmd":
            return ("cmd", " ".join(self.words))
        return (self.name, self.file)

    def __str__(self):
        if self.kind == "func":
            return "%s()%s" % (self.name, " (%s)" % self.file if self.file else "")
        if self.kind == "ptr":
            return "%s = %s" % (self.field, self.target)
        return "`%s`" % " ".join(self.words)


def parse_elem(piece):
    piece = piece.strip()
    m = PTR_RE.match(piece)
    if m and FUNC_RE.match(m.group("func").strip()):
        return Elem("ptr", field=m.group("field"), target=parse_elem(m.group("func")))
    m = FUNC_RE.match(piece)
    if m:
        return Elem("func", name=m.group("name"), file=m.group("file"))
    m = CMD_RE.match(piece)
    return Elem("cmd", words=m.group("cmd").split())


def chains(text, base=0):
    """(offset, [Elem]) for every arrow chain in text."""
    flat = text.replace("\n", " ")
    for m in CHAIN.finditer(flat):
        yield base + m.start(), [parse_elem(p) for p in re.split(r"\s*->\s*", m.group(0))]


class Checker:
    def __init__(self, cdefs, ctexts, pydefs):
        self.cdefs, self.ctexts, self.pydefs = cdefs, ctexts, pydefs
        self.modules = {os.path.splitext(os.path.basename(d.path))[0] for ds in pydefs.values() for d in ds}
        self.executables = self._executables()

    @staticmethod
    def _executables():
        exe = {}
        for cm in glob.glob(os.path.join(REPO, "agent", "src", "**", "CMakeLists.txt"), recursive=True):
            with open(cm) as f:
                for m in re.finditer(r"add_executable\(\s*([\w-]+)\s+([^)]*)\)", f.read()):
                    srcs = [rel(os.path.join(os.path.dirname(cm), s)) for s in m.group(2).split()
                            if s.endswith(".c")]
                    exe.setdefault(m.group(1), []).extend(srcs)
        return exe

    def candidates(self, name, file=None, near=None):
        """Definitions a page name can mean. near: files of the caller, preferred
        for an unqualified name (a module's own helper)."""
        if "." in name:
            x, y = name.rsplit(".", 1)
            c = [d for d in self.pydefs.get(y, []) if d.cls == x]
            if not c and x in self.modules:
                c = [d for d in self.pydefs.get(y, []) if d.cls is None
                     and os.path.splitext(os.path.basename(d.path))[0] == x]
            if not c and x[:1].islower() and x not in self.modules:  # a variable's method: tb.start()
                c = [d for d in self.pydefs.get(y, []) if d.cls]
        else:
            c = self.cdefs.get(name, []) + self.pydefs.get(name, [])
        if file:
            c = [d for d in c if d.path == file or d.path.endswith("/" + file)]
        elif near:
            same = [d for d in c if d.path in near]
            c = same or c
        return c

    @staticmethod
    def ref_name(elem):
        """The name a call of elem shows in its caller's body."""
        x, _, y = elem.name.rpartition(".")
        return x if y == "__init__" else y

    def bound(self, caller_defs, field, target):
        """True when the pointer field is target: `.field = target` anywhere,
        or target passed as the caller's parameter field."""
        fn = target.name.rpartition(".")[2]
        assign = re.compile(r"(?<!\w)%s\s*=\s*&?\s*%s(?!\w)" % (re.escape(field), re.escape(fn)))
        if any(assign.search(s) for s in self.ctexts.values()):
            return True
        for d in caller_defs:
            if d.lang != "c" or field not in d.params:
                continue
            k = d.params.index(field)
            for s in self.ctexts.values():
                for m in re.finditer(r"(?<![\w.>])%s\s*\(" % re.escape(d.name), s):
                    close = match_close(s, m.end() - 1, "(", ")")
                    args = [a.strip().lstrip("&").strip() for a in split_top(s[m.end():close])]
                    if k < len(args) and args[k] == fn:
                        return True
        return False

    def edge_positions(self, caller_defs, callee):
        """{def: sorted positions of the call of callee} for the callers' defs
        that make it; callee a func, ptr or cmd Elem."""
        out = {}
        for d in caller_defs:
            if callee.kind == "func":
                pos = d.refs(self.ref_name(callee))
            elif callee.kind == "ptr":
                pos = d.pointer_calls(callee.field)
            elif d.lang == "py":
                consts = [d.constants(w) for w in callee.words]
                pos = consts[0] if all(consts) else []
            else:
                pos = [i for i in (d.raw_body.find('"%s"' % callee.words[0]),) if i >= 0] \
                    if all('"%s"' % w in d.raw_body for w in callee.words) else []
            if pos:
                out[d] = pos
        return out

    def resolve(self, elem, near=None):
        if elem.kind == "ptr":
            return self.resolve(elem.target, near)
        if elem.kind == "cmd":
            return []
        return self.candidates(elem.name, elem.file, near)

    def check_chain(self, offset, elems, order=None):
        near = None
        for a, b in zip(elems, elems[1:]):
            if a.kind == "cmd":  # prog sub -> main() (file.c): prog built from it, main knows sub
                defs = self.resolve(b)
                srcs = self.executables.get(a.words[0], [])
                ok = [d for d in defs if d.path in srcs and all('"%s"' % w in d.raw_body for w in a.words[1:])]
                if not ok:
                    fail(offset, "`%s` does not run %s (%s is built from %s)"
                         % (" ".join(a.words), b, a.words[0], " ".join(srcs) or "nothing"))
                near = {d.path for d in ok} or None
                continue
            adefs = self.resolve(a, near)
            if not adefs:
                fail(offset, "%s: no definition" % a)
                return
            if b.kind != "cmd" and not self.resolve(b, {d.path for d in adefs}):
                fail(offset, "%s: no definition" % b)
                return
            hits = self.edge_positions(adefs, b)
            if not hits:
                fail(offset, "%s does not call %s (looked in %s)" % (a, b, ", ".join(map(repr, adefs))))
            elif b.kind == "ptr" and not self.bound(list(hits), b.field, b.target):
                fail(offset, "%s calls %s, but nothing binds %s to %s()" % (a, b.field, b.field, b.target.name))
            if order is not None:
                order.setdefault(a.key(), (a, adefs, []))[2].append((b, offset))
            near = {d.path for d in adefs}

    def check_order(self, section, order):
        """Each caller's callees, as first listed in the section, must be
        called in that order: some definition of the caller calls each one
        after the one before (a callee never called at all is reported as
        a missing call, not here)."""
        for a, adefs, callees in order.values():
            seen, seq = set(), []
            for b, off in callees:
                if b.key() not in seen:
                    seen.add(b.key())
                    seq.append((b, off))
            if len(seq) < 2:
                continue
            worst = None
            for d in adefs:
                last, bad = None, None
                for i, (b, off) in enumerate(seq):
                    pos = self.edge_positions([d], b).get(d, [])
                    if not pos:
                        bad = "missing"
                        break
                    later = [p for p in pos if last is None or p > last]
                    if not later:
                        bad = (i, d, b, off)
                        break
                    last = later[0]
                if bad is None:
                    break
                if bad != "missing" and (worst is None or bad[0] > worst[0]):
                    worst = bad
            else:
                if worst:
                    i, d, b, off = worst
                    fail(off, "%s: %r calls %s only before %s, not after it as listed"
                         % (section, d, b, seq[i - 1][0]))


def resolve_path(token, bases):
    if any(ch in token for ch in "*?"):
        return [b for b in bases if glob.glob(os.path.join(REPO, b, token))]
    return [b for b in bases if os.path.exists(os.path.join(REPO, b, token))]


def check_paths(prose, fenced, text):
    tok = re.compile(r"[\w.*/<>-]*(?:\.(?:c|h|py|lua|sh|md|txt|topo|json)|/)(?![\w/])")
    found = []
    for m in re.finditer(r"`([^`]+)`", prose):  # a span may wrap
        for t in re.finditer(tok, m.group(1)):
            found.append((m.start(), t.group(0)))
    for off, block in fenced:
        for t in re.finditer(tok, block):
            found.append((off + t.start(), t.group(0)))
    found = [(o, t) for o, t in found
             if not any(ch in t for ch in "<>") and not t.startswith(("/", "build/", "../")) and
             t not in ("/", "./") and re.search(r"\w", t)]
    for m in re.finditer(r"`([\w.-]+(?:/[\w.-]+)+)`", prose):  # a folder named without its slash
        if os.path.isdir(os.path.join(REPO, m.group(1))):
            found.append((m.start(), m.group(1) + "/"))
    bases = {"", "docs"}
    resolved, todo = {}, list(found)
    while True:  # folders the page names become bases, until nothing changes
        progress = False
        for o, t in list(todo):
            if t in GONE:
                todo.remove((o, t))
                continue
            hit = resolve_path(t, sorted(bases))
            if hit:
                todo.remove((o, t))
                full = os.path.normpath(os.path.join(hit[0], t))
                resolved[t] = full
                new = full if t.endswith("/") else os.path.dirname(full)
                if new not in bases and "*" not in new:
                    bases.add(new)
                    progress = True
        if not progress:
            break
    for o, t in todo:
        fail(o, "no file or folder %s (looked from the repository and the folders the page names)" % t)
    for name, why in GONE.items():
        if name in text and glob.glob(os.path.join(REPO, "**", name), recursive=True):
            fail(text.find(name), "%s exists again, but the page says it was deleted (%s)" % (name, why))
    for m in re.finditer(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", prose):
        target = m.group(1)
        if not target.startswith(("http:", "https:")) and \
                not os.path.exists(os.path.join(REPO, "docs", target)):
            fail(m.start(), "link to %s: no such file in docs/" % target)
    return len(found)


def check_names(prose, fenced, chk, words):
    n = 0
    for m in re.finditer(r"`([A-Za-z_][\w.]*)\(\)`", prose):
        name = m.group(1)
        n += 1
        if name in EXTERNAL:
            continue
        if not chk.candidates(name):
            fail(m.start(), "%s() is not defined in the code" % name)
    claims = re.compile(r"`([A-Za-z_][\w.]*)\(\)`(?:\s*\(`|\s+in\s+`|,\s*`)([\w./-]+\.(?:c|h|py))`(?=[),:;\s])")
    for m in claims.finditer(prose.replace("\n", " ")):
        name, file = m.group(1), m.group(2)
        if name not in EXTERNAL and chk.candidates(name) and not chk.candidates(name, file):
            fail(m.start(), "%s() is not defined in %s but in %s" % (
                name, file, ", ".join(sorted({d.path for d in chk.candidates(name)}))))
    ident = re.compile(r"^(?:[A-Za-z]\w*_\w*|[A-Z][a-z0-9]+[A-Z]\w*)$")
    for m in re.finditer(r"`([^`\n]+)`", prose):
        if ident.match(m.group(1)) and m.group(1) not in words:
            fail(m.start(), "`%s` occurs nowhere in the sources" % m.group(1))
    for off, block in fenced:
        for t in re.finditer(r"(?<![\w.<-])(?:[A-Za-z][A-Za-z0-9]*_\w*|[A-Z][a-z0-9]+[A-Z]\w*)(?![\w<-])", block):
            if t.group(0) not in words:
                fail(off + t.start(), "%s (in the diagram) occurs nowhere in the sources" % t.group(0))
    return n


def section(text, heading):
    m = re.search(r"^### %s\n(.*?)(?=^##)" % re.escape(heading), text + "\n## end\n", re.M | re.S)
    return (m.start(1), m.group(1)) if m else (None, None)


# ---------------------------------------------------------------- the real spec


def squeeze(text):
    """text with every run of white space one space, and for each of its
    characters the offset in text."""
    out, where = [], []
    for m in re.finditer(r"\s+|\S+", text):
        if m.group(0)[0].isspace():
            out.append(" ")
            where.append(m.start())
        else:
            out.append(m.group(0))
            where.extend(range(m.start(), m.end()))
    return "".join(out), where


def check_spec(page, dcn_topo):
    text, where = squeeze(page)

    def at(i):
        return where[i] if i is not None and i >= 0 else None

    def need(snippet):
        i = text.find(snippet)
        if i < 0:
            fail(None, "the page no longer says %r; update tests/docs/test_architecture_page.py" % snippet)
        return at(i)

    def run(*args):
        return subprocess.run([dcn_topo] + list(args), capture_output=True, text=True, timeout=60)

    def find(pattern, what):
        m = re.search(pattern, text)
        if not m:
            fail(None, "the page no longer shows %s; update tests/docs/test_architecture_page.py" % what)
        return m

    m = find(r"The example: `sudo make testbed TOPO=\"([^\"]+)\"`", "Walk 2's example spec")
    m1 = find(r"The example is the BCube paper's testbed, `([^`]+)`", "Walk 1's example spec")
    if not m:
        return
    spec = m.group(1)
    if m1 and m1.group(1) != spec:
        fail(at(m1.start()), "Walk 1's example is %s, Walk 2's %s: the interface names come from Walk 2"
             % (m1.group(1), spec))
    r = run("export", *spec.split())
    if r.returncode != 0:
        fail(at(m.start()), "dcn-topo export %s: exit %d: %s" % (spec, r.returncode, r.stderr.strip()))
        return
    data = json.loads(r.stdout)
    for key in ("family", "params", "servers", "switches", "links", "layout", "id", "name", "ports", "x", "y", "a",
                "a_port", "b", "b_port", "kind"):
        need("`%s`" % key)
    for key in ("family", "params", "servers", "switches", "links", "layout"):
        if key not in data:
            fail(None, "dcn-topo export prints no %r" % key)
    for node in data["servers"] + data["switches"]:
        if set(node) != {"id", "name", "ports", "x", "y"}:
            fail(None, "export node %s has keys %s, the page lists id, name, ports, x, y" % (node, sorted(node)))
            break
    kinds = {"server-switch", "server-server", "switch-switch"}
    for k in kinds:
        need("`%s`" % k)
    with open(os.path.join(REPO, "agent", "src", "cli", "dcn_topo.c")) as f:
        src = f.read()
    for k in kinds:
        if '"%s"' % k not in src:
            fail(None, "dcn_topo.c never prints the link kind %s" % k)
    for link in data["links"]:
        if set(link) != {"a", "a_port", "b", "b_port", "kind"} or link["kind"] not in kinds:
            fail(None, "export link %s: not the keys and kinds the page lists" % link)
            break

    sys.path.insert(0, REPO)
    sys.dont_write_bytecode = True  # no root-owned __pycache__ in the tree under sudo make test
    from orchestrator.topology import Wiring
    w = Wiring(data, spec)
    ids = {s["name"]: s["id"] for s in data["servers"]}
    m = find(r"Server `([\w-]+)` has id (\d+), so its address is (\d+(?:\.\d+){3})",
             "a server's id and address (Walk 1)")
    if m and (ids.get(m.group(1)) != int(m.group(2)) or w.server_ip(int(m.group(2))) != m.group(3)):
        fail(at(m.start()), "%s has id %s, address %s" % (m.group(1), ids.get(m.group(1)),
                                                          w.ip_of(m.group(1)) if m.group(1) in ids else None))
    m = find(r"`tun_open\(\)` \(`tun.c`\) created with (\d+(?:\.\d+){3})", "the source's address (Walk 1, step 1)")
    if m and w.ip_of("h00") != m.group(1):
        fail(at(m.start()), "h00's address is %s" % w.ip_of("h00"))
    n = 0
    for m in re.finditer(r"`(s\d+)_(\d+)`\.\.`\1_(\d+)` are `dcn(\d+)`\.\.`dcn(\d+)`", text):
        n += 1
        for j in range(int(m.group(2)), int(m.group(3)) + 1):
            got = w.bridge.get("%s_%d" % (m.group(1), j))
            if got != "dcn%d" % (int(m.group(4)) + j - int(m.group(2))):
                fail(at(m.start()), "switch %s_%d is bridge %s" % (m.group(1), j, got))
    for m in re.finditer(r"bridge `(dcn\d+)`(?:, the emulation of | \()switch `([\w-]+)`", text):
        n += 1
        if w.bridge.get(m.group(2)) != m.group(1):
            fail(at(m.start()), "switch %s is bridge %s" % (m.group(2), w.bridge.get(m.group(2))))
    if n < 3:
        fail(None, "the page no longer names the bridges of switches; update tests/docs/test_architecture_page.py")
    m = find(r"the link `(\{[^`]*\})` becomes the veth pair `([\w-]+)` / `([\w-]+)`", "the example link (Walk 2)")
    if m:
        link = json.loads(m.group(1))
        same = [l for l in w.links if all(l.get(k) == v for k, v in link.items())]
        if not same:
            fail(at(m.start()), "no link %s in the export" % m.group(1))
        elif (same[0]["a_if"], same[0]["b_if"]) != (m.group(2), m.group(3)):
            fail(at(m.start()), "the link %s becomes %s / %s" % (m.group(1), same[0]["a_if"], same[0]["b_if"]))
    cables = {frozenset((l["a_if"], l["b_if"])) for l in w.links}
    n = 0
    for pat in (r"`([\w-]+)` is one end of a veth pair; the other end, `([\w-]+)`",
                r"to `([\w-]+)`, whose peer is `([\w-]+)`", r"`([\w-]+)` <-> `([\w-]+)`"):
        for m in re.finditer(pat, text):
            n += 1
            if frozenset(m.groups()) not in cables:
                fail(at(m.start()), "no cable %s <-> %s in the wiring of %s" % (m.groups() + (spec,)))
    if n < 4:
        fail(None, "the page no longer names Walk 1's cables; update tests/docs/test_architecture_page.py")
    m = find(r"on the path `([^`]+)` \(one of the (\w+) parallel paths `dcn-topo paths ([^`]+)` prints\)",
             "Walk 1's path")
    if m:
        path, count, args = m.group(1).split(), m.group(2), m.group(3).split()
        r = run("paths", *args)
        paths = json.loads(r.stdout)["paths"] if r.returncode == 0 else []
        counts = {"one": 1, "two": 2, "three": 3, "four": 4}
        if " ".join(args[-2:]) != " ".join(path[::len(path) - 1]) or " ".join(args[:-2]) != spec:
            fail(at(m.start()), "dcn-topo paths %s is not for %s's ends" % (" ".join(args), m.group(1)))
        if path not in paths or len(paths) != counts.get(count, count):
            fail(at(m.start()), "dcn-topo paths %s prints %s" % (" ".join(args), paths))
    m = find(r"for example `dcn-topo export ([^`]+)` prints `([^`]+)`", "the bad spec's message (Walk 2)")
    if m:
        r = run("export", *m.group(1).split())
        if r.returncode != 2 or r.stderr.strip() != m.group(2):
            fail(at(m.start()), "dcn-topo export %s: exit %d, %r" % (m.group(1), r.returncode, r.stderr.strip()))


def check_commands(page, pydefs):
    """The Makefile's testbed target and the agent's command line (Walk 2)."""
    text, where = squeeze(page)
    with open(os.path.join(REPO, "Makefile")) as f:
        mk = f.read()
    var = dict(re.findall(r"^(\w+)\s*[?:]?=\s*(\S+)\s*$", mk, re.M))
    m = re.search(r"^testbed:([^\n]*)\n((?:\t[^\n]*\n)+)", mk, re.M)
    want = "/usr/bin/python3 orchestrator/dcn_testbed.py --build-dir build --topo"
    i = text.find("`%s" % want)
    i = where[i] if i >= 0 else None
    if i is None:
        fail(None, "the page no longer shows the testbed target's command (Walk 2, step 1)")
    if not m or "build" not in m.group(1).split():
        fail(i, "the Makefile's testbed target does not depend on build")
    else:
        recipe = re.sub(r"\$\((\w+)\)", lambda v: var.get(v.group(1), v.group(0)), m.group(2)).lstrip("\t@")
        if want not in recipe:
            fail(i, "the Makefile's testbed target runs %r" % recipe.strip())
    b = re.search(r"^build:([^\n]*)\n((?:\t[^\n]*\n)+)", mk, re.M)
    if not b or "build-deps" not in b.group(1).split() or "Release" not in b.group(2):
        fail(i, "the Makefile's build target does not run build-deps then CMake in Release")

    m = re.search(r"^ {8}dcn-agent (--topo .*?)\n\n", page, re.M | re.S)
    if not m:
        fail(None, "the page no longer shows the agents' command line (Walk 2, step 8)")
        return
    opts = sorted(set(re.findall(r"(?<![\w-])--([a-z][\w-]*)", m.group(1))))
    cmd = [d for d in pydefs.get("_agent_cmd", []) if d.cls == "Agents"]
    with open(os.path.join(REPO, "agent", "src", "agent", "options.c")) as f:
        options_c = f.read()
    for o in opts:
        if not cmd or not cmd[0].constants("--" + o):
            fail(m.start(), "Agents._agent_cmd() never passes --%s" % o)
        if '{"%s",' % o not in options_c:
            fail(m.start(), "dcn-agent has no option --%s (options.c)" % o)
    i = page.find("`%s-eth%u`")
    if i < 0 or '"%s-eth%u"' not in options_c:
        fail(i if i >= 0 else None, "the default interface-name format is not %s-eth%u")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--page", default=os.path.join(REPO, "docs", "architecture.md"))
    ap.add_argument("--dcn-topo", default=None)
    a = ap.parse_args()
    with open(a.page) as f:
        text = f.read()
    PAGE[0] = os.path.relpath(a.page, REPO)
    PAGE_LINES.extend([0] + [m.end() for m in re.finditer("\n", text)])
    prose, fenced = page_prose(text)

    cdefs, ctexts = c_sources()
    pydefs = py_sources()
    chk = Checker(cdefs, ctexts, pydefs)
    words = corpus_words()

    n_names = check_names(prose, fenced, chk, words)
    n_paths = check_paths(prose, fenced, text)

    n_arrows = 0
    for off, elems in chains(prose):
        chk.check_chain(off, elems)
        n_arrows += len(elems) - 1

    n_ordered = 0
    for heading in ("Walk 1 as calls", "Walk 2 as calls"):
        start, body = section(prose, heading)
        if body is None:
            fail(None, "no section '### %s' (the walk as numbered call chains)" % heading)
            continue
        parts = re.split(r"^\*\*[^\n]*\*\*$", body, flags=re.M)
        offs = [start] + [start + m.end() for m in re.finditer(r"^\*\*[^\n]*\*\*$", body, re.M)]
        items = 0
        for part, poff in zip(parts, offs):
            order = {}
            for item in re.finditer(r"^\d+\. [^\n]*", part, re.M):
                items += 1
                found = list(chains(item.group(0), poff + item.start()))
                if not found:
                    fail(poff + item.start(), "%s: item without a call chain" % heading)
                for off, elems in found:
                    chk.check_chain(off, elems, order)
                    n_ordered += len(elems) - 1
            chk.check_order(heading, order)
        if items < 5:
            fail(start, "%s: %d items, expected the whole walk" % (heading, items))

    dcn_topo = a.dcn_topo or os.path.join(REPO, "build", "agent", "src", "cli", "dcn-topo")
    if os.access(dcn_topo, os.X_OK):
        check_spec(text, dcn_topo)
        spec_note = "spec run through %s" % dcn_topo
    else:
        spec_note = "spec NOT run (no dcn-topo; pass --dcn-topo)"
    check_commands(text, pydefs)

    print("%s: %d names, %d paths, %d arrows (%d in the walks' call lists), %s: %s" % (
        os.path.relpath(a.page, REPO), n_names, n_paths, n_arrows, n_ordered, spec_note,
        "%d failures" % len(FAILURES) if FAILURES else "ok"))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
