"""Every command shown in README.md and docs/ is run by a test or by CI, so
none rots (tests/docs/doc_commands.py finds them). For each command one of:

  RUNNERS   it is run here, now: dcn-topo, dcn-sim (its traffic cut to the
            first 16 sources), dcn-agent --check, scripts' --help, `make -n`
            of make commands, ...; or, for what needs root and namespaces,
            checked here as far as that goes without them (options against
            --help, the make target's expansion, the CLI's dispatch);
  MAPPINGS  it is run by a named test elsewhere: each mapping names files
            and a string each must contain, so that the mapping cannot rot;
  ALLOWED   it can be run nowhere (a short list, each with its reason).

A command none of them matches fails, naming the file, line and command.
No namespaces, no root needed; binaries from DCN_BUILD_DIR (default build/).
How to add a runner or a mapping: docs/contributing.md.

  /usr/bin/python3 tests/docs/test_doc_commands.py    how each command is covered (no command run)
"""
import cmd as cmdlib
import csv
import fcntl
import functools
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import types

import pytest

import doc_commands as dc

REPO = dc.REPO
sys.path.insert(0, REPO)  # run as a script (main(): the coverage); pytest has it from pyproject.toml
from tests.support import testing  # noqa: E402

BUILD = testing.build_dir()
TOOL_DIRS = ("agent/src/cli", "agent/src/agent", "agent/src/sim", "agent/src/tools", "agent/src/dump")
CAPTURE_SECTION = "## Captures from the testbed"
CLI_VERBS = ("link_down", "link_up", "server_down", "server_up", "switch_down", "switch_up", "ctl")
TIMEOUT = 120


# ------------------------------------------------------------------ helpers
def tool(name):
    for d in TOOL_DIRS:
        p = os.path.join(BUILD, d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    pytest.fail("%s is not built in %s (make build, or set DCN_BUILD_DIR)" % (name, BUILD))


def words_of(cmd):
    """The command's words without sudo (the test needs no root for what it
    runs) and its VAR=value prefixes (returned as an environment)."""
    words, env = list(cmd.words), {}
    if words and words[0] == "sudo":
        words = words[1:]
    while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    return words, env


def program(cmd):
    words, _ = words_of(cmd)
    return os.path.basename(words[0]) if words else ""


def local_exe(word):
    """A documented program as this checkout has it: a project binary from
    the build dir (`dcn-topo`, `build/agent/src/cli/dcn-topo`), a script of
    the repository, or the word itself."""
    if word.startswith("build/"):
        p = os.path.join(BUILD, word[len("build/"):])
        assert os.path.isfile(p), "%s: not in the build dir %s" % (word, BUILD)
        return p
    if "/" not in word and word.startswith("dcn-"):
        return tool(word)
    if "/" in word and not word.startswith("/"):
        p = os.path.join(REPO, word)
        assert os.path.isfile(p), "%s: no such file in the repository" % word
        return p
    return word


def run(argv, **kw):
    kw.setdefault("cwd", REPO)
    kw.setdefault("timeout", TIMEOUT)
    return subprocess.run(argv, capture_output=True, text=True, **kw)


@functools.lru_cache(maxsize=None)
def help_of(exe):
    r = run([exe, "--help"])
    assert r.returncode == 0, "%s --help: exit %d: %s" % (exe, r.returncode, r.stderr[-400:])
    return " ".join((r.stdout + r.stderr).split())


def options_in(text):
    return re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", text)


def assert_options_in_help(exe, words, what):
    h = help_of(exe)
    for o in options_in(" ".join(words)):
        o = o.split("=")[0]
        assert re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), h), \
            "%s: option %s is not in `%s --help`:\n%s" % (what, o, exe, h)


def expected_status(cmd):
    for pat, status in EXPECTED_STATUS:
        if re.search(pat, cmd.text):
            return status
    return 0


def compare_shown(cmd, out):
    """The lines the page shows after the command: exactly the output, or,
    with "..." lines, each other line present in order."""
    shown = [l.rstrip() for l in cmd.output]
    got = [l.rstrip() for l in out.splitlines()]
    if not shown:
        return
    msg = "%s: `%s` printed\n%s\nbut the page shows\n%s" % (cmd.where, cmd.text, "\n".join(got[:40]),
                                                            "\n".join(shown))
    if "..." not in shown:
        assert got == shown, msg
        return
    pos = 0
    for l in shown:
        if l == "...":
            continue
        assert l in got[pos:], msg
        pos = got.index(l, pos) + 1


def check_claims(cmd, stdout):
    """What a command's comment says about its JSON output ("5,856 servers",
    "4 container-disjoint paths") and the CLAIMS below."""
    try:
        data = json.loads(stdout)
    except ValueError:
        return
    m = re.search(r"(\d[\d,]*(?:\.\d+)?)(M?)[- ]servers?\b", cmd.comment)
    if m and "servers" in data:
        n = float(m.group(1).replace(",", ""))
        got = data["servers"] / 1e6 if m.group(2) else data["servers"]
        assert round(got, 1) == n, "%s: the comment says %s servers, the output %d" % (cmd.where, m.group(0),
                                                                                     data["servers"])
    m = re.search(r"(?<![\w+.-])(\d+) (?:[\w-]+ )?paths\b", cmd.comment)
    if m and "paths" in data:
        assert len(data["paths"]) == int(m.group(1)), "%s: the comment says %s, the output has %d" % (
            cmd.where, m.group(0), len(data["paths"]))
    m = re.search(r"\bdiameter (\d+)", cmd.comment)
    if m and "bfs" in data:
        got = data["bfs"][data["paper_metric"]]["diameter"]
        assert got == int(m.group(1)), "%s: the comment says %s, the output %d (%s)" % (
            cmd.where, m.group(0), got, data["paper_metric"])
    for pat, fn, what in CLAIMS:
        if re.search(pat, cmd.text):
            assert fn(data), "%s: `%s`: %s does not hold:\n%s" % (cmd.where, cmd.text, what, stdout[:2000])


def bcdc_ours():
    with open(os.path.join(REPO, "docs", "topologies", "bcdc.md")) as f:
        m = re.search(r"^ours:\s+(.*?)\s+\(", f.read(), re.M)
    return m.group(1).split() if m else None


def makefile_default(var):
    with open(os.path.join(REPO, "Makefile")) as f:
        m = re.search(r"^%s\s*\?=[ \t]*(.*)$" % re.escape(var), f.read(), re.M)
    return m.group(1).strip() if m else ""


# ------------------------------------------------------------------ runners
def run_plain(cmd, tmp_path):
    """Run as shown (the program from the build dir), exit status as the page
    says (0 unless EXPECTED_STATUS), output compared where shown."""
    words, env = words_of(cmd)
    argv = [local_exe(words[0])] + words[1:]
    r = run(argv, env=dict(os.environ, **env))
    want = expected_status(cmd)
    assert r.returncode == want, "%s: `%s`: exit %d, expected %d: %s" % (cmd.where, cmd.text, r.returncode, want,
                                                                        (r.stderr or r.stdout)[-600:])
    compare_shown(cmd, r.stdout + r.stderr)
    check_claims(cmd, r.stdout)


def run_help(cmd, tmp_path):
    words, _ = words_of(cmd)
    r = run([local_exe(words[0])] + words[1:])
    assert r.returncode == 0 and "usage:" in r.stdout, "%s: `%s`: exit %d: %s" % (
        cmd.where, cmd.text, r.returncode, (r.stderr or r.stdout)[-600:])


def run_sim(cmd, tmp_path):
    """dcn-sim as shown, the traffic cut to the first 16 sources
    (--pattern first:16): the full runs take up to minutes (make simulations
    runs them); every other option, the spec and the output form as shown."""
    words, _ = words_of(cmd)
    argv = [tool("dcn-sim")] + words[1:]
    if "--pattern" in argv:
        argv[argv.index("--pattern") + 1] = "first:16"
    else:
        argv += ["--pattern", "first:16"]
    r = run(argv, timeout=60)
    assert r.returncode == 0, "%s: `%s`: exit %d: %s" % (cmd.where, " ".join(argv), r.returncode, r.stderr[-600:])
    assert "ABT" in r.stderr, r.stderr[-600:]
    if "--csv" in words and words[words.index("--csv") + 1] == "-":
        rows = list(csv.DictReader(r.stdout.splitlines()))
        ratios = words[words.index("--ratio") + 1].split(",") if "--ratio" in words else ["0"]
        seeds = int(words[words.index("--seeds") + 1]) if "--seeds" in words else 1
        assert len(rows) == len(ratios) * seeds, "%s: %d CSV rows for %d ratios x %d seeds" % (
            cmd.where, len(rows), len(ratios), seeds)
        assert {row["ratio"] for row in rows} == set(ratios), rows
    if "--levels-csv" in words and words[words.index("--levels-csv") + 1] == "-":
        assert r.stdout.startswith("fail,ratio,seed,level,"), r.stdout[:300]


AGENT_PLACEHOLDERS = {"FILE": "{tmp}/agent.pcap", "M": "1500", "B": "1000", "P=IFNAME": "0=h00-eth0",
                      "...": "bcube n=4 k=1"}


def run_agent(cmd, tmp_path):
    """dcn-agent --check parses every option and checks the topology, then
    exits without touching the system: a documented agent command line runs
    with --check added (the agent itself needs a server's namespace:
    tests/integration/test_agent_*.sh), placeholders given sample values;
    paths under /run/ go to a scratch folder."""
    words, _ = words_of(cmd)
    argv = [local_exe(words[0])]
    for w in words[1:]:
        w = w.strip("[]")
        if not w:
            continue
        if w in AGENT_PLACEHOLDERS:
            w = AGENT_PLACEHOLDERS[w].format(tmp=tmp_path)
        elif any(dc.is_synopsis(x) for x in w.split()):
            pytest.fail("%s: placeholder %r: give it a sample value in AGENT_PLACEHOLDERS" % (cmd.where, w))
        if w.startswith("/run/"):
            w = str(tmp_path) + w
        argv.append(w)
    if "--check" not in argv:
        argv.insert(1, "--check")
    r = run(argv)
    want = expected_status(cmd)
    assert r.returncode == want, "%s: %s: exit %d, expected %d: %s" % (cmd.where, argv, r.returncode, want,
                                                                      r.stderr[-600:])
    compare_shown(cmd, r.stdout + r.stderr)


def run_synopsis(cmd, tmp_path):
    """A usage line: every option, subcommand and listed alternative is in
    the program's --help."""
    words, _ = words_of(cmd)
    exe = local_exe(words[0])
    h = help_of(exe)
    assert_options_in_help(exe, words[1:], cmd.where)
    if len(words) > 1 and re.match(r"^[a-z][a-z-]*$", words[1]):
        sub = "%s %s" % (os.path.basename(words[0]), words[1])
        assert sub in h, "%s: subcommand `%s` is not in its --help:\n%s" % (cmd.where, sub, h)
    for w in words[1:]:
        if " " not in w and re.search(r"[\w:-]\|[\w:-]", w):
            for alt in w.strip("[]()").split("|"):
                assert alt in h, "%s: %r (of %s) is not in --help:\n%s" % (cmd.where, alt, w, h)


def run_script_options(cmd, tmp_path):
    """A script that needs root and namespaces (MAPPINGS name the test that
    runs it): here, every option it is shown with is in its --help."""
    words, _ = words_of(cmd)
    exe = local_exe(words[0])
    help_of(exe)
    assert_options_in_help(exe, words[1:], cmd.where)


def make_target_checks(target, var, cmd):
    """Per target: what its dry run must contain (after whitespace is
    squeezed; {VAR} is the value the command gives or the Makefile's
    default), and checks of what the command passes to it."""
    exp = {
        "testbed": ['/usr/bin/python3 orchestrator/dcn_testbed.py --build-dir build --topo "{TOPO}" {TESTBED_ARGS}'],
        "clean-testbed": ["/usr/bin/python3 orchestrator/dcn_testbed.py --clean"],
        "test": ["cd build-test && DCN_TEST_NO_SKIP=1 ctest --output-on-failure", "tests/integration/run.sh build-test"],
        "simulations": ["for s in experiments/sim/fig_*.py", '/usr/bin/python3 "$s"'],
        "experiments": ['experiments/$e $EXPERIMENT_ARGS', "experiments/bcube-summary", "experiments/mdcube-summary",
                        "PYTHONPATH=experiments /usr/bin/python3 -m explib.report"],
        "soak": ["experiments/soak --duration {DURATION} --build-dir build {SOAK_ARGS}"],
        "bench": ['for b in build/tests/bench/bench_*', "for s in tests/bench/*.sh tests/bench/*.py"],
        "wireshark-plugin": ["install -m 644 tools/wireshark/dcn.lua"],
    }
    assert target in exp, "%s: make %s: no expectation for this target in make_target_checks()" % (
        cmd.where, target)
    return [" ".join(e.replace("$EXPERIMENT_ARGS", var("EXPERIMENT_ARGS")).format(
        **{k: var(k) for k in ("TOPO", "TESTBED_ARGS", "DURATION", "SOAK_ARGS")}).split()) for e in exp[target]]


def run_make(cmd, tmp_path):
    """`make -n` of the documented make command: the target exists and
    expands to the documented script with the documented variables; every
    script it names exists; the testbed's TOPO builds and the agent accepts
    it; options passed in TESTBED_ARGS / SOAK_ARGS are the scripts' own."""
    words, _ = words_of(cmd)
    assert words[0] == "make", cmd.text
    args = words[1:]
    targets = [a for a in args if "=" not in a and not a.startswith("-")]
    assigns = dict(a.split("=", 1) for a in args if "=" in a)
    assert len(targets) == 1, "%s: one target expected: %s" % (cmd.where, cmd.text)
    target = targets[0]
    # a clean environment: no MAKEFLAGS of a `make test` above us (its variables
    # would reach this make), no TOPO or BUILD of the user's shell
    env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ}
    r = run(["make", "-n", "-C", REPO, "--no-print-directory"] + args, env=env)
    assert r.returncode == 0, "%s: make -n %s: %s" % (cmd.where, " ".join(args), r.stderr[-600:])
    out = " ".join(r.stdout.split())

    def var(k):
        return " ".join(assigns.get(k, makefile_default(k)).split())

    for e in make_target_checks(target, var, cmd):
        assert e in out, "%s: `make -n %s` does not run `%s`:\n%s" % (cmd.where, " ".join(args), e, r.stdout[-2000:])
    for tok in re.findall(r"(?<![\w/$.-])((?:experiments|tests|orchestrator|tools)/[\w./*-]+)", r.stdout):
        if "$" in tok:
            continue
        assert glob.glob(os.path.join(REPO, tok)), "%s: make %s names %s, which does not exist" % (
            cmd.where, target, tok)
    for loop_var, names in re.findall(r"for (\w+) in ([^;]+);", r.stdout):
        if "experiments/$%s" % loop_var in r.stdout:
            for n in names.split():
                p = os.path.join(REPO, "experiments", n)
                assert os.path.isfile(p) and os.access(p, os.X_OK), "%s: make %s runs experiments/%s: missing" % (
                    cmd.where, target, n)
    if target == "testbed":
        check_testbed_args(cmd, var("TOPO"), var("TESTBED_ARGS"))
    if target == "soak" and var("SOAK_ARGS"):
        assert_options_in_help(os.path.join(REPO, "experiments", "soak"), var("SOAK_ARGS").split(), cmd.where)


def import_dcn_testbed():
    try:
        from orchestrator import dcn_testbed
    except SystemExit:
        pytest.skip("orchestrator/dcn_testbed.py cannot be imported (Mininet missing: sudo make deps)")
    return dcn_testbed


def check_testbed_args(cmd, topo, testbed_args):
    dcn_testbed = import_dcn_testbed()
    spec = dcn_testbed.resolve_topo(topo)
    r = run([tool("dcn-topo"), "stats"] + spec.split() + ["--bfs-limit", "0"])
    assert r.returncode == 0, "%s: TOPO=%s (%s): %s" % (cmd.where, topo, spec, r.stderr)
    check_claims(cmd, r.stdout)
    data = json.loads(r.stdout)
    if data["family"] != "tree":   # the orchestrator runs agents except on the tree (bringup.py)
        first = json.loads(run([tool("dcn-topo"), "export"] + spec.split()).stdout)["servers"][0]["name"]
        r = run([tool("dcn-agent"), "--check", "--topo", spec, "--name", first])
        assert r.returncode == 0, "%s: the agent refuses TOPO=%s: %s" % (cmd.where, topo, r.stderr)
    if testbed_args:
        assert_options_in_help(os.path.join(REPO, "orchestrator", "dcn_testbed.py"), testbed_args.split(), cmd.where)


def run_cli(cmd, tmp_path):
    """A failure-injection or ctl line of the testbed's CLI (orchestrator/
    cli.py, prompt `dcn> `) on the README's default testbed, BCube_1 n=4:
    the CLI's own command dispatched to the real failure-injection code
    (orchestrator/failures.py) with the interface changes recorded instead
    of made; `ctl` runs a stand-in dcn-ctl that prints its arguments. The
    real effect on a running testbed: MAPPINGS."""
    try:
        from orchestrator import cli, failures, topology
    except ImportError as e:
        pytest.skip("orchestrator/cli.py needs Mininet (sudo make deps): %s" % e)
    wiring = topology.export(BUILD, makefile_default("TOPO"))
    changes, printed = [], []
    mp = pytest.MonkeyPatch()
    mp.setattr(failures.netops, "set_up", lambda ifs, pid, up: changes.append((list(ifs), pid, up)))
    mp.setattr(cli, "output", printed.append)
    stub = tmp_path / "dcn-ctl"
    stub.write_text("#!/bin/sh\necho \"$@\"\n")
    stub.chmod(0o755)

    class Testbed(failures.Failures):
        agent_mode = True

        def __init__(self):
            self.wiring, self.events, self.event_log = wiring, [], str(tmp_path / "events.log")
            self.hosts = {n: types.SimpleNamespace(pid=None) for n in wiring.servers}
            self.agents, self.stopped, self.ctl_bin = set(self.hosts), [], str(stub)
            self.failed_links, self.failed_nodes = {}, {}

        def log(self, _msg):
            pass

        def stop_agent(self, name):
            self.stopped.append(name)
            self.agents.discard(name)

        def _sock(self, name):
            return "/run/dcn/%s.sock" % name

    tb = Testbed()
    shell = cli.DcnCLI.__new__(cli.DcnCLI)
    cmdlib.Cmd.__init__(shell)
    shell.tb = tb
    try:
        shell.onecmd(cmd.text)
    finally:
        mp.undo()
    words = cmd.text.split()
    said = "".join(printed)
    assert "***" not in said and "usage" not in said, "%s: `%s` printed: %s" % (cmd.where, cmd.text, said)
    if words[0] == "ctl":
        assert said.split() == ["-s", tb._sock(words[1])] + words[2:], said
        h = help_of(tool("dcn-ctl"))
        assert all(w in h for w in words[2:]), "%s: %s not in dcn-ctl's usage: %s" % (cmd.where, words[2:], h)
        return
    assert tb.events and tb.events[-1].split()[1:] == words, tb.events
    assert changes and all(up is words[0].endswith("_up") for _, _, up in changes), changes
    if words[0] == "server_down":
        assert tb.stopped == [words[1]]


def run_report(cmd, tmp_path):
    """The command regenerates results/README.md from results/*/summary.json:
    run as shown, in a copy of the repository's experiments/explib and
    orchestrator/ beside a copy of the summaries (and empty stand-ins of the
    plots), so that results/ stays untouched."""
    shutil.copytree(os.path.join(REPO, "experiments", "explib"), tmp_path / "experiments" / "explib",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(os.path.join(REPO, "orchestrator"), tmp_path / "orchestrator",
                    ignore=shutil.ignore_patterns("__pycache__"))
    os.symlink(os.readlink(os.path.join(REPO, "experiments", "orchestrator")), tmp_path / "experiments" / "orchestrator")
    summaries = glob.glob(os.path.join(REPO, "results", "*", "summary.json"))
    for s in summaries + glob.glob(os.path.join(REPO, "results", "*", "*.png")):
        dst = tmp_path / os.path.relpath(s, REPO)
        dst.parent.mkdir(parents=True, exist_ok=True)
        if s.endswith(".json"):
            shutil.copy(s, dst)
        else:
            dst.write_bytes(b"")
    words, env = words_of(cmd)
    r = run(words, cwd=str(tmp_path), env=dict(os.environ, **env))
    readme = tmp_path / "results" / "README.md"
    assert r.returncode == 0 and r.stdout.strip() == str(readme), "%s: exit %d: %s %s" % (
        cmd.where, r.returncode, r.stdout, r.stderr[-600:])
    rows = [l for l in readme.read_text().splitlines() if l.startswith("| [")]
    assert len(rows) == len(summaries), "%d rows for %d summaries" % (len(rows), len(summaries))


def run_flock(cmd, tmp_path):
    """Run as shown on a lock file of its own (the machine's lock may be held
    by a test run): "free", then "held" while this test holds it; and the
    lock file is the one tests/integration/run.sh takes."""
    lock = "/run/dcn-netns.lock"
    assert lock in cmd.text
    with open(os.path.join(REPO, "tests", "integration", "run.sh")) as f:
        assert "flock %s" % lock in f.read(), "tests/integration/run.sh no longer takes %s" % lock
    words, _ = words_of(cmd)
    mine = str(tmp_path / "netns.lock")
    line = " ".join(words).replace(lock, mine)
    r = run(["bash", "-c", line])
    assert (r.returncode, r.stdout.strip()) == (0, "free"), (r.returncode, r.stdout, r.stderr)
    with open(mine) as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        r = run(["bash", "-c", line])
    assert (r.returncode, r.stdout.strip()) == (0, "held"), (r.returncode, r.stdout, r.stderr)


def run_port_name(cmd, tmp_path):
    """`ethtool -k dcn4-eth0` needs a running testbed (not run here); the page
    says dcn4-eth0 is the port of s1_0 that faces h00 on the default testbed:
    the orchestrator's names (orchestrator/topology.py) say so too."""
    from orchestrator import topology
    wiring = topology.export(BUILD, makefile_default("TOPO"))
    port = cmd.words[-1]
    link = wiring.links_between("h00", "s1_0")
    assert link and port in (link[0]["a_if"], link[0]["b_if"]), "%s: %s is not s1_0's port to h00: %s" % (
        cmd.where, port, link)


def run_bench_modes(cmd, tmp_path):
    """tests/bench/forwarding.sh needs root and namespaces (make bench, not
    CI): here, the documented modes are its default, as the page says, the
    script parses (bash -n), and the agent accepts each mode's options."""
    words, env = words_of(cmd)
    script = os.path.join(REPO, words[0])
    with open(script) as f:
        text = f.read()
    modes = env["DCN_BENCH_MODES"]
    assert "${DCN_BENCH_MODES:-%s}" % modes in text, "%s: %s is no longer the default of %s" % (
        cmd.where, modes, words[0])
    r = run(["bash", "-n", script])
    assert r.returncode == 0, r.stderr
    for m in modes.split():
        if m.startswith("agent:"):
            r = run([tool("dcn-agent"), "--check", "--topo", "bcube n=2 k=1", "--name", "h00", m[len("agent:"):]])
            assert r.returncode == 0, "%s: mode %s: %s" % (cmd.where, m, r.stderr)


def run_pytest_collect(cmd, tmp_path):
    """A root test file run by hand with an environment variable: collected
    here (not run: it needs namespaces) with that variable; the tests the
    variable enables must be there."""
    words, env = words_of(cmd)
    assert words[:3] == ["/usr/bin/python3", "-m", "pytest"], cmd.text
    r = run(words + ["--collect-only", "-p", "no:cacheprovider"], env=dict(os.environ, **env))
    assert r.returncode == 0, r.stdout[-1000:] + r.stderr[-1000:]
    assert "test_soak_verdict_can_fail" in r.stdout, r.stdout[-1000:]


def prog_is(*names):
    return lambda c: program(c) in names


# (name, matches, run, kind, what): the first that matches runs.
# kind "run": run as shown (modulo sudo and the build dir); "check": what can
# be checked of it without root and namespaces.
RUNNERS = [
    ("cli", lambda c: c.prompt in ("dcn>", "mininet>") and c.text.split()[0] in CLI_VERBS, run_cli, "check",
     "the CLI's dispatch to the failure-injection code, interface changes recorded"),
    ("make", prog_is("make"), run_make, "check", "make -n: the target's expansion, its scripts and variables"),
    ("agent-check", lambda c: program(c) == "dcn-agent" and "--check" in c.words and not c.synopsis, run_agent,
     "run", "run, output compared"),
    ("agent", prog_is("dcn-agent"), run_agent, "check", "its options and topology through dcn-agent --check"),
    ("synopsis", lambda c: c.synopsis, run_synopsis, "check",
     "options, subcommands and alternatives in --help"),
    ("dcn-topo", prog_is("dcn-topo"), run_plain, "run", "run, output and comments compared"),
    ("dcn-sim", prog_is("dcn-sim"), run_sim, "run", "run with --pattern first:16"),
    ("help", lambda c: c.words[-1] == "--help", run_help, "run", "run"),
    ("script", lambda c: words_of(c)[0][:1] and words_of(c)[0][0].startswith(("experiments/", "orchestrator/")),
     run_script_options, "check",
     "its options in its --help"),
    ("report", lambda c: "-m explib.report" in c.text, run_report, "run", "run in a copy (results/ untouched)"),
    ("flock", prog_is("flock"), run_flock, "run", "run on a lock file of its own"),
    ("ethtool", prog_is("ethtool"), run_port_name, "check", "the port name it shows (needs a testbed)"),
    ("bench", lambda c: "tests/bench/forwarding.sh" in c.text, run_bench_modes, "check",
     "modes are the script's default, bash -n, agent options"),
    ("pytest", lambda c: " -m pytest " in c.text, run_pytest_collect, "check", "pytest --collect-only"),
]

EXPECTED_STATUS = [
    (r"dcn-topo export tree leaves=0$", 2),          # docs/adding-a-family.md: "exit status 2"
    (r'--topo "bcube n=2 k=4"', 2),                  # docs/troubleshooting.md: "exits 0 or 2"
]

# (command regex, check on the JSON output, what the page says)
CLAIMS = [
    (r"paths\s+bcube n=8 k=3 h0001 h1011$", lambda d: len(d["paths"]) == 4, "k+1 = 4 parallel paths"),
    (r"paths hcn n=4 h=2 h111 h444 --algo fdim$",
     lambda d: [n[1:] for n in d["paths"][0] if n.startswith("h")] ==
     "111,114,141,144,411,414,441,444".split(","), "servers 111,114,141,144,411,414,441,444"),
    (r"paths\s+bcdc n=8 h102d0 h94d0 --algo brouting$", lambda d: d["paths"] == [bcdc_ours()],
     "the path of the line `ours:` below it"),
    (r"replicas bcube n=4 k=1 h00 h01 h10$",
     lambda d: any(e["from"] == "h01" and e["to"] == "h10" and e["via"] == "h11" for e in d["edges"]),
     "01 and 10 exchange via 11"),
    (r"trees\s+bcube n=4 k=1 h00$", lambda d: len(d["trees"]) == 2, "the two trees"),
]

# Commands run elsewhere. (command regex, evidence [(file, string it must
# contain)], note, filters): the regex's named groups fill {name} in the
# strings; filters: doc (path regex), section (exact "## " heading or "!"
# + heading for any other), prompt.
MAPPINGS = [
    (r"^sudo make test$", [(".ci/run", "\nsudo make test")], "CI runs it", {}),
    (r"^tools/check-commits( main~5\.\.main)?$",
     [("tests/docs/test_check_commits.py", "def test_a_good_message_passes("),
      ("tests/docs/test_check_commits.py", "def test_each_breach_is_named(")],
     "on commits of a repository of the test's own (the project's history is not CI's to judge)", {}),
    (r"^sudo make testbed$", [("tests/integration/test_testbed_families.py", '"bcube n=4 k=1"'),
                              ("tests/integration/test_testbed_edges.py", "start_on_pty")],
     "brought up, pinged, iperf3 across a relay; the entry script's CLI on a pty", {}),
    (r'^sudo make testbed TOPO=mdcube-testbed$',
     [("tests/integration/test_testbed_layers.py", "def test_named_topologies_resolve_to_buildable_specs("),
      ("tests/integration/test_testbed_families.py", '"mdcube n=2 k=1 m=5"')], "named topology", {}),
    (r'^sudo make testbed TOPO="(?P<spec>(?:mdcube|hcn|bcn|bcdc) [^"]+)"$',
     [("tests/integration/test_testbed_families.py", '"{spec}"')], "that family brought up", {}),
    (r'^sudo make testbed TOPO="tree"( TESTBED_ARGS="--switch lxbr")?$',
     [("tests/integration/test_testbed_layers.py", "def test_tree_baseline_reachability_iperf_and_teardown("),
      ("tests/integration/test_testbed_layers.py", '@pytest.mark.parametrize("switch", ["ovs", "lxbr"])')],
     "tree baseline, OVS and Linux bridges", {}),
    (r'^sudo make testbed TOPO="bcube n=8 k=3 parts=4" TESTBED_ARGS="--switch lxbr --hello-ms 1000"$',
     [("tests/bench/bringup.py", 'CONTAINER_2048 = "bcube n=8 k=3 parts=4"')],
     "the 2048-server bring-up: make bench only, not CI", {}),
    (r'^sudo make testbed CLUSTER="localhost host2" TESTBED_ARGS="--switch lxbr"$',
     [("tests/integration/test_cluster.py", "def test_bcube_across_two_machines("),
      ("Makefile", '--cluster "$(strip $(CLUSTER))"')],
     "the orchestrator with --cluster (what CLUSTER= passes) across two namespaces playing two machines", {}),
    (r"^sudo make testbed VIEW=8080$",
     [("tests/integration/test_view.py", "def test_view_draws_the_network_its_failures_and_a_flow("),
      ("Makefile", "--view $(strip $(VIEW))")],
     "BCube_1 n=4 with the view, the page in headless Chromium (what VIEW= passes: --view)", {}),
    (r"^sudo experiments/bcube-all-to-all --view 8080$",
     [("tests/integration/test_experiments.py", '"--view", str(port)')],
     "the all-to-all's tiny run with --view", {}),
    (r"^sudo make clean-testbed$",
     [("tests/integration/test_testbed_layers.py", '"clean-testbed"'),
      ("tests/integration/test_cleanup_abuse.py", "def test_testbed_killed_then_cleaned(")],
     "make clean-testbed after a killed run", {}),
    (r"^sudo make experiments$", [("tests/integration/test_experiments.py", "def run_tiny(")],
     "each script at a tiny size (the target's expansion: make -n here)", {}),
    (r"^sudo make soak DURATION=", [("tests/integration/test_soak.py", "def test_soak_short("),
                                    ("tests/integration/test_soak.py", "def test_make_soak_runs_the_script(")],
     "the soak's short CI form", {}),
    (r"^sudo experiments/bcube-one-to-one( --tiny .*| \[options\])?$",
     [("tests/integration/test_experiments.py", 'run_tiny("bcube-one-to-one"'),
      ("tests/integration/test_experiments.py", '"--tiny", "--out"')], "--tiny --switch lxbr --link-mbps 20", {}),
    (r"^nice -n 19 cmake -S \. -B build-test -DCMAKE_BUILD_TYPE=Debug -DDCN_SANITIZE=ON$",
     [("Makefile", "cmake -S . -B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=Debug -DDCN_SANITIZE=ON"),
      (".ci/run", "sudo make test")], "make test-unit", {}),
    (r"^nice -n 19 cmake --build build-test -j2$",
     [("Makefile", "cmake --build $(TEST_BUILD) -j $(JOBS)"), (".ci/run", "sudo make test")], "make test-unit", {}),
    (r"^cd build-test && nice -n 19 ctest --output-on-failure -j2$",
     [("Makefile", "cd $(TEST_BUILD) && DCN_TEST_NO_SKIP=1 ctest --output-on-failure -j $(JOBS)"), (".ci/run", "sudo make test")],
     "make test-unit", {}),
    (r".", [("tests/inspect/test_inspect.py", 'os.path.join(REPO, "docs", "inspection.md")'),
            ("tests/inspect/CMakeLists.txt", "test_inspect.py --part")],
     "every `$ ` command of the page, output compared (ctest inspect_*)",
     {"doc": r"^docs/inspection\.md$", "section": "!" + CAPTURE_SECTION, "prompt": "$"}),
    (r".", [("tests/integration/test_testbed_capture.py", '"%s"' % CAPTURE_SECTION),
            ("tests/integration/test_testbed_capture.py", "def test_documented_capture_decoded_by_both_decoders(")],
     "the section's block run as written, CLI lines on a pty",
     {"doc": r"^docs/inspection\.md$", "section": CAPTURE_SECTION}),
    (r"^h00 ping -c2 h13$", [("tests/integration/test_testbed_capture.py", 'steps.append(["dcn>", line[5:], []])'),
                             ("docs/inspection.md", "dcn> h00 ping -c 3 -i 0.2 h11")],
     "a host command through the CLI on a pty", {"prompt": "dcn>"}),
    (r"^(?P<verb>link_down|server_down|switch_down) ",
     [("tests/integration/test_testbed_layers.py", "tb.{verb}(")], "the Testbed method behind it, on a testbed",
     {"prompt": "dcn>"}),
    (r"^ctl h00 flows$", [("tests/integration/test_agent_bsr_flows.sh", "dcnt_ctl h00 flows")],
     "dcn-ctl flows against a running agent", {"prompt": "dcn>"}),
    (r"^dcn-ctl -n h00 ", [("tests/integration/agent_netns_lib.sh", 'dcnt_ctl() {'),
                           ("tests/integration/test_agent_bcube.sh", "dcnt_ctl")], "dcn-ctl against running agents",
     {}),
]

# Commands that can be run nowhere, each with its reason. Keep it short.
ALLOWED = []


def mapping_applies(m, cmd):
    pat, _ev, _note, f = m
    if "doc" in f and not re.search(f["doc"], cmd.path):
        return None
    if "section" in f:
        s = f["section"]
        if (cmd.section == s[1:]) if s.startswith("!") else (cmd.section != s):
            return None
    if "prompt" in f and cmd.prompt != f["prompt"]:
        return None
    return re.search(pat, cmd.text)


def coverage(cmd):
    """(runner or None, [(mapping, match)], [allowed reason])."""
    runner = next((r for r in RUNNERS if r[1](cmd)), None)
    maps = [(m, mt) for m in MAPPINGS for mt in [mapping_applies(m, cmd)] if mt]
    allowed = [reason for pat, reason in ALLOWED if re.search(pat, cmd.text)]
    return runner, maps, allowed


def uncovered_message(cmd):
    return ("%s: `%s` is run by no test: add a runner or a mapping to MAPPINGS in tests/docs/test_doc_commands.py "
            "(docs/contributing.md)" % (cmd.where, cmd.text))


def check_evidence(cmd, m, match):
    _pat, evidence, _note, _f = m
    for path, want in evidence:
        for k, v in match.groupdict().items():
            want = want.replace("{%s}" % k, v or "")
        p = os.path.join(REPO, path)
        assert os.path.isfile(p), "%s: the mapping for `%s` names %s, which does not exist" % (
            cmd.where, cmd.text, path)
        with open(p, encoding="utf-8") as f:
            assert want in f.read(), "%s: the mapping for `%s` says %s contains %r; it does not" % (
                cmd.where, cmd.text, path, want)


COMMANDS = dc.extract_all(REPO)


# -------------------------------------------------------------------- tests
@pytest.mark.parametrize("cmd", COMMANDS, ids=[c.where for c in COMMANDS])
def test_documented_command_is_run_or_covered(cmd, tmp_path):
    runner, maps, allowed = coverage(cmd)
    if not (runner or maps or allowed):
        pytest.fail(uncovered_message(cmd))
    for m, match in maps:
        check_evidence(cmd, m, match)
    if runner:
        runner[2](cmd, tmp_path)


def test_families_listed():
    """README names every family; `dcn-topo families` lists each."""
    r = run([tool("dcn-topo"), "families"])
    listed = {l.split()[0] for l in r.stdout.splitlines() if l and not l[0].isspace()}
    with open(os.path.join(REPO, "README.md")) as f:
        m = re.search(r"^Families: (.*?)\.\n", f.read(), re.M | re.S)
    named = set(re.findall(r"`(\w+)`", m.group(1)))
    assert named and named <= listed, (named, listed)


def test_cli_lines_use_the_cli_prompt():
    """The testbed's CLI prompts `dcn> ` (orchestrator/cli.py); a page that
    shows `mininet> ` shows another prompt than the user sees."""
    with open(os.path.join(REPO, "orchestrator", "cli.py")) as f:
        prompt = re.search(r'^    prompt = "(.*)"$', f.read(), re.M).group(1).strip()
    wrong = [c.where for c in COMMANDS if c.prompt in ("dcn>", "mininet>") and c.prompt != prompt]
    assert not wrong, "CLI lines not shown with the CLI's prompt %r: %s" % (prompt, wrong)


def test_every_table_entry_is_used():
    """A runner, mapping, status, claim or allowance that matches no command
    any more is stale: remove it."""
    stale = [r[0] for r in RUNNERS if not any(r[1](c) for c in COMMANDS)]
    stale += [m[0] for m in MAPPINGS if not any(mapping_applies(m, c) for c in COMMANDS)]
    stale += [p for p, _ in EXPECTED_STATUS if not any(re.search(p, c.text) for c in COMMANDS)]
    stale += [p for p, _, _ in CLAIMS if not any(re.search(p, c.text) for c in COMMANDS)]
    stale += [p for p, _ in ALLOWED if not any(re.search(p, c.text) for c in COMMANDS)]
    assert not stale, "entries matching no documented command: %s" % stale


def test_a_command_nothing_covers_fails():
    bogus = dc.Command("docs/troubleshooting.md", 7, "dcn-frobnicate --now")
    assert coverage(bogus) == (None, [], [])
    assert uncovered_message(bogus).startswith("docs/troubleshooting.md:7: `dcn-frobnicate --now` is run by no test")


SAMPLE = """# Sample

Text, then a C block, JSON, a diagram and a formula: no commands.

```c
make_thing(x);
```

    {"family": "bcube", "servers": [...]}

```
 experiments/<name> scripts
   dcn-ctl    agent/src/agent/ctl/dcn_ctl.c
```

- a list item
  with a continuation

    An indented paragraph of the list item: not code.

- The parser rejects it:

        $ build/agent/src/cli/dcn-topo export tree leaves=0
        dcn-topo: tree: leaves=0 is out of range (allowed 1..1024)

## Run

    sudo make testbed TOPO="tree"    # a comment
    dcn-relay recv --listen PORT [--bind ADDR]
                   [--timeout S]
    DCN_X="a b" \\
        tests/bench/forwarding.sh build    # continued

```
dcn> link_down h03 s0_0
*** output
mininet> exit
```
"""


def test_extraction_of_a_sample(tmp_path):
    p = tmp_path / "sample.md"
    p.write_text(SAMPLE)
    got = [(c.line, c.prompt, c.text, c.comment, c.output, c.synopsis, c.section)
           for c in dc.extract(str(p), str(tmp_path))]
    assert got == [
        (23, "$", "build/agent/src/cli/dcn-topo export tree leaves=0", "",
         ["dcn-topo: tree: leaves=0 is out of range (allowed 1..1024)"], False, ""),
        (28, "", 'sudo make testbed TOPO="tree"', "a comment", [], False, "## Run"),
        (29, "", "dcn-relay recv --listen PORT [--bind ADDR] [--timeout S]", "", [], True, "## Run"),
        (31, "", 'DCN_X="a b" tests/bench/forwarding.sh build', "continued", [], False, "## Run"),
        (35, "dcn>", "link_down h03 s0_0", "", ["*** output"], False, "## Run"),
        (37, "mininet>", "exit", "", [], False, "## Run"),
    ]


@pytest.mark.parametrize("line,code,comment", [
    ('tshark -Y "a == \\"x # y\\"" -T f   # c', 'tshark -Y "a == \\"x # y\\"" -T f', "c"),
    ("a '# x' b # c", "a '# x' b", "c"),
    ("make x# y", "make x# y", ""),
])
def test_comments_end_only_outside_quotes(line, code, comment):
    assert dc.strip_comment(line) == (code, comment)


def test_a_block_of_commands_with_a_stray_line_is_an_error(tmp_path):
    p = tmp_path / "bad.md"
    p.write_text("Run:\n\n    dcn-topo families\n    whatever this is\n")
    with pytest.raises(dc.DocError, match=r"bad\.md:4: .*neither a command"):
        dc.extract(str(p), str(tmp_path))


def main():
    """How each documented command is covered (nothing is run)."""
    for c in COMMANDS:
        runner, maps, allowed = coverage(c)
        ways = []
        if runner:
            ways.append("%s: %s" % (runner[3], runner[4]))
        for m, _ in maps:
            ways.append("mapped: %s (%s)" % (", ".join(sorted({f for f, _ in m[1]})), m[2]))
        ways += ["allowed: " + a for a in allowed]
        print("%s\t%s%s\n\t%s" % (c.where, (c.prompt + " ") if c.prompt else "", c.text,
                                  "\n\t".join(ways) or "UNCOVERED"))


if __name__ == "__main__":
    main()
