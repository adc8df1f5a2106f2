#!/bin/bash
# Does the agents' hello rate decide whether OVS's userspace datapath carries
# a 256-server BCube_3 (issue 9)? Brings `bcube n=4 k=3` up on OVS with
# 100 ms and 1000 ms hellos, alternating (100 1000 100 1000 ...), and prints
# what the testbed's own smoke check says of each: sampled pings through
# the agents and one iperf3 across 4 relayed hops.
#
#   sudo tests/bench/ovs_hello.sh BUILD_DIR [--rounds 2] [--out FILE]
#
# Each run is `orchestrator/dcn_testbed.py --no-cli`, which takes the
# machine-wide namespace lock itself and tears everything down. Not a
# timed test: nothing is asserted. docs/testbed.md says what it shows.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:-}; shift || true
rounds=2 out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=${2:-}; shift 2 ;;
    --out) out=${2:-}; shift 2 ;;
    *) echo "ovs_hello.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -z "$build" ] || ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
  echo "ovs_hello.sh: usage: ovs_hello.sh BUILD_DIR [--rounds N] [--out FILE]" >&2; exit 2
fi
# shellcheck source=tests/bench/ovs_bench_lib.sh
. "$here/ovs_bench_lib.sh"
ovs_bench_require ovs_hello.sh

run() {
  echo "# tests/bench/ovs_hello.sh --rounds $rounds: bcube n=4 k=3 (256 servers, 1024 links) on OVS"
  ovs_bench_stamp "$repo"
  echo "# hello_ms, exit status, the smoke check's ping and iperf3 lines"
  ovs_bench_alternate "$repo" "$build" "bcube n=4 k=3" "$rounds" "^\*\*\* (ping a sample|iperf3 )" \
    "hello %s ms" --hello-ms "100 1000"
}

if [ -n "$out" ]; then run | tee "$out"; else run; fi
