# shellcheck shell=bash
# Shared by the OVS benchmarks that alternate testbed settings on one
# instance (ovs_hello.sh, ovs_priority.sh): the checks, the header's stamp,
# one testbed run, and the alternating loop of runs. Sourced, not run.

# ovs_bench_require NAME: root and Open vSwitch, or exit 77 (skipped).
ovs_bench_require() {
  [ "$(id -u)" = 0 ] || { echo "$1: needs root"; exit 77; }
  command -v ovs-vsctl >/dev/null || { echo "$1: Open vSwitch is not installed"; exit 77; }
}

# ovs_bench_stamp REPO: the header line with the date, the cores and the commit.
ovs_bench_stamp() {
  echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, commit $(git -C "$1" rev-parse --short HEAD 2>/dev/null || echo unknown)"
}

# ovs_bench_testbed REPO BUILD TOPO LOG [dcn_testbed options...]: one run on
# OVS with the smoke check (`dcn_testbed.py --no-cli`, which takes the
# namespace lock and tears down), its output in LOG; returns its status.
ovs_bench_testbed() {
  local repo=$1 build=$2 topo=$3 log=$4
  shift 4
  /usr/bin/python3 "$repo/orchestrator/dcn_testbed.py" --build-dir "$build" --topo "$topo" \
    --switch ovs --no-cli "$@" >"$log" 2>&1
}

# ovs_bench_alternate REPO BUILD TOPO ROUNDS PATTERN LABEL OPTION "A B" [options...]:
# ROUNDS rounds of one run per value of OPTION, alternating (A B A B ...),
# each with the further options before it. Per run, a line "LABEL, round R,
# exit STATUS" (LABEL's %s is the value) and the lines of the run's output
# that match PATTERN (grep -E), indented.
ovs_bench_alternate() {
  local repo=$1 build=$2 topo=$3 rounds=$4 pattern=$5 label=$6 option=$7 values=$8
  shift 8
  local log r v rc
  log=$(mktemp)
  for r in $(seq 1 "$rounds"); do
    for v in $values; do
      ovs_bench_testbed "$repo" "$build" "$topo" "$log" "$@" "$option" "$v"
      rc=$?
      echo "${label//%s/$v}, round $r, exit $rc"
      grep -E "$pattern" "$log" | sed 's/^/  /'
    done
  done
  rm -f "$log"
}
