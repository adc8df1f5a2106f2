# Shared by the OVS benchmarks that alternate testbed settings on one
# instance (ovs_hello.sh, ovs_priority.sh). Sourced, not run.

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
