#!/usr/bin/env bash
# docs/adding-a-family.md says a new topology family is one C file in
# agent/src/topo/families/ plus its Check suite, and nothing else is edited.
# This follows the page on a copy of the tree: it adds `treecopy` (tree.c,
# its dcn_family renamed) and tests/unit/test_treecopy.c, changes no other
# file, builds, and runs the page's commands (step 8) and the new suite
# (step 9): dcn-topo lists, exports, routes and counts it, the agent's check
# answers as for `tree`, ctest finds the suite and it passes.
#   add_family.sh REPO_DIR
set -euo pipefail
repo=$(cd "${1:?usage: add_family.sh REPO_DIR}" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
src=$tmp/src
mkdir -p "$src"
# the tracked files as they are in the working tree (a tree without git:
# everything but build folders)
if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git -C "$repo" ls-files -z | (cd "$repo" && tar --null -T - -cf -) | tar -C "$src" -xf -
else
  tar -C "$repo" --exclude='./build*' -cf - . | tar -C "$src" -xf -
fi
before=$(cd "$src" && find . -type f | sort | sha256sum)

fam=$src/agent/src/topo/families
sed -e 's/^const dcn_family dcn_family_tree = {/const dcn_family dcn_family_treecopy = {/' \
    -e 's/\.name = "tree",/.name = "treecopy",/' "$fam/tree.c" >"$fam/treecopy.c"
grep -q '^const dcn_family dcn_family_treecopy = {' "$fam/treecopy.c" || { echo "tree.c's definition not found" >&2; exit 1; }
cat >"$src/tests/unit/test_treecopy.c" <<'SUITE'
/* The family added by tests/unit/add_family.sh: counts, formulas, a path. */
#include "testutil.h"

START_TEST(counts_and_a_path)
{
    dcn_topo t;
    tu_build(&t, "treecopy leaves=3 per_leaf=2");
    ck_assert_uint_eq(t.n_servers, 6);
    ck_assert_uint_eq(t.n_switches, 4);
    ck_assert_int_eq(tu_formula(&t, "links"), (long long)t.n_links);
    dcn_pathset s;
    ck_assert_int_eq(tu_paths(&t, NULL, tu_node(&t, "h0"), tu_node(&t, "h5"), NULL, 1, &s), 1);
    tu_check_pathset(&t, &s, tu_node(&t, "h0"), tu_node(&t, "h5"), NULL, 0);
    ck_assert_str_eq(tu_build_fails("treecopy leaves=0"), "treecopy: leaves=0 is out of range (allowed 1..1024)");
    dcn_topo_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("treecopy");
    TCase *tc = tcase_create("treecopy");
    tcase_add_test(tc, counts_and_a_path);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
SUITE
# exactly two files more, none changed
after=$(cd "$src" && find . -type f ! -path ./agent/src/topo/families/treecopy.c ! -path ./tests/unit/test_treecopy.c \
        | sort | sha256sum)
[ "$before" = "$after" ] || { echo "the copy changed beyond the two new files" >&2; exit 1; }

b=$tmp/build
cmake -S "$src" -B "$b" -DCMAKE_BUILD_TYPE=Release >"$tmp/configure.log" 2>&1 || { tail -20 "$tmp/configure.log" >&2; exit 1; }
cmake --build "$b" -j 2 --target dcn-topo dcn-agent test_treecopy >"$tmp/build.log" 2>&1 \
  || { tail -30 "$tmp/build.log" >&2; exit 1; }
topo=$b/agent/src/cli/dcn-topo
fail() { echo "add_family: $*" >&2; exit 1; }
"$topo" families | grep -q '^treecopy ' || fail "dcn-topo families does not list treecopy"
"$topo" export treecopy leaves=3 per_leaf=2 >"$tmp/export.json" || fail "dcn-topo export treecopy failed"
/usr/bin/python3 - "$tmp/export.json" <<'PY' || fail "the export is not the tree's wiring"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["servers"]) == 6 and len(d["switches"]) == 4 and len(d["links"]) == 9, (len(d["servers"]), len(d["switches"]), len(d["links"]))
PY
"$topo" stats treecopy | grep -q '"family": "treecopy"' || fail "dcn-topo stats treecopy"
"$topo" paths treecopy h0 h5 | grep -q 'h0' || fail "dcn-topo paths treecopy h0 h5"
set +e
"$topo" export treecopy leaves=0 >/dev/null 2>"$tmp/err"; rc=$?
set -e
[ $rc = 2 ] && grep -qx 'dcn-topo: treecopy: leaves=0 is out of range (allowed 1..1024)' "$tmp/err" \
  || fail "bad parameter: exit $rc, $(cat "$tmp/err")"
agent=$b/agent/src/agent/dcn-agent
set +e
"$agent" --check --topo "tree" --name h0 >"$tmp/tree.out" 2>&1; rt=$?
"$agent" --check --topo "treecopy" --name h0 >"$tmp/copy.out" 2>&1; rc=$?
set -e
[ $rt = $rc ] || fail "dcn-agent --check: exit $rc for treecopy, $rt for tree"
(cd "$b" && ctest -R '^test_treecopy$' --output-on-failure >"$tmp/ctest.log" 2>&1) || { cat "$tmp/ctest.log" >&2; fail "test_treecopy"; }
grep -q "1 tests passed\|100% tests passed, 0 tests failed out of 1" "$tmp/ctest.log" || { cat "$tmp/ctest.log" >&2; fail "ctest did not find test_treecopy"; }
echo "add_family: treecopy added as two files; dcn-topo families/export/stats/paths, dcn-agent --check and its suite pass"
