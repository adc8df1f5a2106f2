"""tools/check-commits, the commit convention's check (docs/contributing.md):
it passes a good message and names each breach of a bad one, on commits
made in a repository of the test's own. No root needed."""
import os
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO, "tools", "check-commits")


@pytest.fixture
def repo(tmp_path):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.org")

    def commit(message):
        subprocess.run(["git", "commit", "-q", "--allow-empty", "-F", "-"], input=message, text=True, cwd=tmp_path,
                       env=env, check=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=tmp_path, check=True)
    commit("docs: the first page\n\nBecause a reader needs it.\n")
    return tmp_path, commit


def check(path, rng):
    return subprocess.run([TOOL, rng], cwd=path, capture_output=True, text=True)


def test_a_good_message_passes(repo):
    path, commit = repo
    commit("agent, tests: one thing in two areas\n\nWhy: 3.1 -> 2.9 s.\n")
    r = check(path, "HEAD~1..HEAD")
    assert r.returncode == 0 and r.stdout == "", r.stdout + r.stderr


@pytest.mark.parametrize("message, problem", [
    ("agent: " + "x" * 70 + "\n\nWhy.\n", "subject of 77 characters"),
    ("Fixed the agent\n\nWhy.\n", "not `area: what changed`"),
    ("Agent: capital area\n\nWhy.\n", "not `area: what changed`"),
    ("agent: no body\n", "no body after a blank line"),
    ("agent: body glued to the subject\nwhy\n", "no body after a blank line"),
])
def test_each_breach_is_named(repo, message, problem):
    path, commit = repo
    commit(message)
    r = check(path, "HEAD~1..HEAD")
    assert r.returncode == 1
    assert problem in r.stdout, r.stdout


def test_a_bad_range_is_exit_2(repo):
    r = check(repo[0], "nosuchrev..HEAD")
    assert r.returncode == 2 and "check-commits:" in r.stderr
