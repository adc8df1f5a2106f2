#!/usr/bin/env bash
# A server that sends in its kernel (--data-path kernel) to agents that
# relay and deliver in user space (--data-path agent), on BCube_1 (n=2) in network namespaces
# (agent_netns_lib.sh) over Linux bridges whose veths keep their checksum
# offload on, as the testbed's do. The sender's TCP packets leave its
# kernel with their checksum partial (only the pseudo header's sum in the
# field), as for a NIC that checksums; an agent that takes such a frame
# completes the checksum before it relays or delivers it
# (core/frame_csum.h). Without that, the destination's TCP drops each one
# as a checksum error: after an agent restart, or while path selection
# wants to hear delivered paths, whole transfers stalled (docs/soak.md).
#  1. h00 (the kernel's data path) sends to h01 (one hop: h01's agent delivers) and to h11
#     (two hops: a relay's agent relays, h11's agent delivers); both
#     transfers move, and in h00's kernel;
#  2. no receiver counted a TCP checksum error, and the agents counted the
#     frames they completed (rx_csum_completed).
# run.sh holds /run/dcn-netns.lock. Usage: test_kernel_partial_csum.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "${1:?usage: test_kernel_partial_csum.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
DCNT_TOPO="bcube n=2 k=1"
DCNT_AGENT_ARGS="--hello-ms 100 --dead-misses 3 --data-path agent" # h00's --data-path kernel comes after
. "$here/agent_netns_lib.sh"
fail() { dcnt_fail "$@"; }
csum_errors() { # TCP segments server $1's kernel dropped for their checksum
  dcnt_in "$1" awk '/^Tcp:/ { if (!n) { for (i = 1; i <= NF; i++) if ($i == "InCsumErrors") c = i; n = 1 } else print $c }' /proc/net/snmp
}

dcnt_setup
dcnt_start_agent h00 --data-path kernel
for s in h01 h10 h11; do dcnt_start_agent "$s"; done
dcnt_wait_ready 15 || fail "agents not ready"

dcnt_iperf_servers h01 5201
dcnt_iperf_servers h11 5202
sleep 0.5
read -r k0 < <(dcnt_counters h00 sent_in_kernel)
for dst in h01:5201 h11:5202; do
  s=${dst%:*} port=${dst#*:}
  timeout 20 ip netns exec "$(dcnt_ns h00)" iperf3 -c "$(dcnt_ip "$s")" -p "$port" -t 2 -i 0.5 -J \
    > "$DCNT_WORK/iperf-$s.json" || true
  read -r bytes stall _ < <("$here/agent_iperf_stall.py" "$DCNT_WORK/iperf-$s.json")
  dcnt_log "h00 to $s: $bytes bytes received, longest stall $stall s"
  [ "$bytes" -gt 1000000 ] || fail "h00 to $s: only $bytes bytes arrived"
done
read -r k1 < <(dcnt_counters h00 sent_in_kernel)
dcnt_log "h00 sent $(( k1 - k0 )) packets in its kernel"
[ $(( k1 - k0 )) -gt 1000 ] || fail "h00's kernel sent $(( k1 - k0 )) packets: the transfers did not test its frames"

errors=0 completed=0
for s in h01 h10 h11; do
  e=$(csum_errors "$s") c=$(dcnt_counters "$s" rx_csum_completed)
  dcnt_log "$s: $e TCP checksum errors, $c frames completed by its agent"
  errors=$(( errors + e )) completed=$(( completed + c ))
done
[ "$errors" = 0 ] || fail "$errors TCP segments were dropped for their checksum"
[ "$completed" -gt 1000 ] || fail "the agents completed $completed checksums: no partial frame reached them"
echo "PASS: kernel-sent frames with partial checksums are completed by the agents that relay and deliver them"
