#!/bin/bash
# Does OVS's userspace datapath carry a 256-server BCube_3 (issue 9) once its
# forwarding thread runs at real-time priority? Brings `bcube n=4 k=3` up on
# OVS with the testbed's default settings (100 ms hellos), alternating
# `--ovs-forwarder normal` and `rt` (normal rt normal rt ...), and prints
# what the testbed's own smoke check says of each: sampled pings through
# the agents and one iperf3 across 4 relayed hops, with the bring-up time.
#
#   sudo tests/bench/ovs_priority.sh BUILD_DIR [--rounds 2] [--topo SPEC] [--hello-ms MS] [--out FILE]
#
# --hello-ms: the agents' hello period (default: the testbed's, 100 ms).
#
# Each run is `orchestrator/dcn_testbed.py --no-cli`, which takes the
# machine-wide namespace lock itself and tears everything down. Not a
# timed test: nothing is asserted. docs/testbed.md says what it shows.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:-}; shift || true
rounds=2 out="" topo="bcube n=4 k=3" hello=100
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=${2:-}; shift 2 ;;
    --topo) topo=${2:-}; shift 2 ;;
    --hello-ms) hello=${2:-}; shift 2 ;;
    --out) out=${2:-}; shift 2 ;;
    *) echo "ovs_priority.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -z "$build" ] || ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]] || ! [[ "$hello" =~ ^[1-9][0-9]*$ ]]; then
  echo "ovs_priority.sh: usage: ovs_priority.sh BUILD_DIR [--rounds N] [--topo SPEC] [--hello-ms MS] [--out FILE]" >&2; exit 2
fi
# shellcheck source=tests/bench/ovs_bench_lib.sh
. "$here/ovs_bench_lib.sh"
ovs_bench_require ovs_priority.sh

run() {
  echo "# tests/bench/ovs_priority.sh --rounds $rounds --topo \"$topo\" --hello-ms $hello: OVS userspace datapath, the testbed's other defaults"
  ovs_bench_stamp "$repo"
  echo "# forwarder priority, exit status, bring-up, the smoke check's ping and iperf3 lines"
  ovs_bench_alternate "$repo" "$build" "$topo" "$rounds" \
    "^(\*\*\* (testbed up|ping a sample|iperf3 |ovs-vswitchd)|dcn_testbed: )" \
    "forwarder %s" --ovs-forwarder "normal rt" --hello-ms "$hello"
}

if [ -n "$out" ]; then run | tee "$out"; else run; fi
