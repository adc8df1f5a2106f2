#!/usr/bin/env bash
# Runs every root integration test, one at a time under the machine-wide
# namespace lock. Usage: tests/integration/run.sh BUILD_DIR
set -uo pipefail
build=${1:?usage: run.sh BUILD_DIR}
build=$(cd "$build" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" != 0 ]; then
  echo "integration tests need root (network namespaces); run: sudo make test" >&2
  exit 1
fi
# the tests run under the lock: experiment scripts they start must not take it again
export DCN_NETNS_LOCKED=1
# a run killed before its teardown (a cancelled CI job, a machine reused
# between runs) leaves its state file; clean what it recorded, as
# `make clean-testbed` would, so that no test starts on its leftovers
if [ -e /run/dcn-testbed/state.json ] || [ -e /run/dcn-testbed/state.json.tmp ]; then
  echo "== a killed earlier run left state behind: make clean-testbed"
  if ! flock /run/dcn-netns.lock /usr/bin/python3 "$here/../../orchestrator/dcn_testbed.py" --clean; then
    echo "integration: cannot start while that run's state stays (see above)" >&2
    exit 1
  fi
fi
pass=0; fail=0
for t in "$here"/test_*.sh; do
  [ -f "$t" ] || continue
  echo "== $(basename "$t")"
  if flock /run/dcn-netns.lock "$t" "$build"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $(basename "$t")"; fi
done
shopt -s nullglob
py=("$here"/test_*.py)
if [ ${#py[@]} -gt 0 ]; then
  echo "== pytest ${py[*]##*/}"
  if DCN_BUILD_DIR="$build" flock /run/dcn-netns.lock /usr/bin/python3 -m pytest -q -p no:cacheprovider --durations=25 "${py[@]}"; then
    pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: pytest"; fi
fi
echo "integration: $pass passed, $fail failed"
[ "$fail" = 0 ]
