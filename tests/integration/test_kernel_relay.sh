#!/usr/bin/env bash
# The relay of dcn-agent's kernel data path (--data-path kernel), end to
# end on BCube_1 (n=2) in network namespaces (agent_netns_lib.sh;
# test_kernel_ends.sh checks the two ends). run.sh holds
# /run/dcn-netns.lock.
#  1. a bad --data-path: one line, exit 2;
#  2. every agent's program is attached at TCX ingress of each of its ports;
#  3. an iperf3 transfer two hops apart is relayed in the kernel: the relay's
#     agent relays only a path's first frames, and its port meters and
#     counters include what the kernel relayed;
#  4. the relay carrying a transfer loses its out port's cable mid-transfer:
#     the kernel relay stops taking the hop, the agent reports the failure
#     and the transfer completes on the other path;
#  5. an agent killed with SIGKILL takes its program with it (the BPF links
#     were its own): nothing is relayed for a dead agent.
# Usage: test_kernel_relay.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "${1:?usage: test_kernel_relay.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
DCNT_TOPO="bcube n=2 k=1"
DCNT_AGENT_ARGS="--hello-ms 100 --dead-misses 3 --data-path kernel"
. "$here/agent_netns_lib.sh"
fail() { dcnt_fail "$@"; }

set +e
msg=$("$BUILD/agent/src/agent/dcn-agent" --topo "bcube n=2 k=1" --name h00 --data-path full 2>&1); rc=$?
set -e
[ "$rc" = 2 ] && [ "$msg" = "dcn-agent: --data-path must be agent or kernel, got 'full'" ] ||
  fail "dcn-agent with a bad --data-path: exit $rc, '$msg'"

dcnt_setup
dcnt_start_agents
dcnt_wait_ready 15 || fail "agents not ready"
for s in "${DCNT_SERVERS[@]}"; do
  for p in eth0 eth1; do
    n=$(dcnt_tcx "$s" "$s-$p")
    [ "$n" = 1 ] || fail "$s-$p: $n programs at TCX ingress, the kernel relay's 1 expected"
  done
done
dcnt_log "the kernel relay is attached to all 8 ports"

ip_h11=$(dcnt_ip h11)
ip netns exec "$(dcnt_ns h11)" iperf3 -s -p 5201 >/dev/null 2>&1 & DCNT_PIDS+=($!)
sleep 0.5
declare -A r0 k0 tx0
for s in h01 h10; do
  r0[$s]=$(dcnt_counter $s relayed); k0[$s]=$(dcnt_counter $s relayed_in_kernel)
  tx0[$s]=$(dcnt_ctl $s counters --json | /usr/bin/python3 -c 'import json,sys; print(sum(p["tx_frames"] for p in json.load(sys.stdin)["ports"]))')
done
dcnt_in h00 iperf3 -c "$ip_h11" -p 5201 -t 3 -J > "$DCNT_WORK/iperf1.json" || fail "iperf3 transfer failed"
read -r bytes _ _ < <("$here/agent_iperf_stall.py" "$DCNT_WORK/iperf1.json")
agent=0 kernel=0 txd=0
for s in h01 h10; do
  agent=$(( agent + $(dcnt_counter $s relayed) - r0[$s] )); kernel=$(( kernel + $(dcnt_counter $s relayed_in_kernel) - k0[$s] ))
  txd=$(( txd + $(dcnt_ctl $s counters --json | /usr/bin/python3 -c 'import json,sys; print(sum(p["tx_frames"] for p in json.load(sys.stdin)["ports"]))') - tx0[$s] ))
done
dcnt_log "transfer: $bytes bytes; frames relayed by the relays' agents $agent, by their kernels $kernel; the relays' ports sent $txd frames"
[ "$bytes" -gt 1000000 ] || fail "transfer too small: $bytes bytes"
[ "$kernel" -gt $(( 20 * (agent + 1) )) ] || fail "the kernel relayed $kernel frames, the agents $agent: not in the kernel"
[ "$txd" -ge "$kernel" ] || fail "the relays' port meters ($txd frames sent) miss what the kernel relayed ($kernel)"

dcnt_log "the relay's out port loses its cable mid-transfer"
dcnt_in h00 iperf3 -c "$ip_h11" -p 5201 -t 6 -i 0.1 -J > "$DCNT_WORK/iperf2.json" &
client=$!; DCNT_PIDS+=($client)
sleep 0.5
dcnt_kernel_relay_carrying
relay=$DCNT_RELAY other=$DCNT_OTHER out=$DCNT_RELAY_OUT
before=$(dcnt_counter $other relayed_in_kernel)
ip -n "$(dcnt_ns sw)" link set "${DCNT_PEER[$out]}" down
sleep 0.5
stuck=$(dcnt_counter $relay relayed_in_kernel)
wait "$client" || fail "transfer did not complete after the relay's cable failed"
read -r bytes stall after < <("$here/agent_iperf_stall.py" "$DCNT_WORK/iperf2.json")
moved=$(( $(dcnt_counter $relay relayed_in_kernel) - stuck ))
dcnt_log "relay $relay: $moved frames relayed in its kernel after its out port went down; $other relayed $(( $(dcnt_counter $other relayed_in_kernel) - before )) in its kernel; longest stall ${stall} s"
[ "$moved" = 0 ] || fail "$relay's kernel relayed $moved frames over a port without carrier"
[ "$after" -gt 100000 ] || fail "no data moved after the relay's cable failed"
[ $(( $(dcnt_counter $other relayed_in_kernel) - before )) -gt 100 ] || fail "the other path ($other) did not take over in the kernel"
[ "$(dcnt_counter $relay path_failure_tx)" -gt 0 ] || fail "$relay reported no path failure: $(dcnt_ctl $relay counters | grep -E "drop|path_fail|relayed")"
ip -n "$(dcnt_ns sw)" link set "${DCNT_PEER[$out]}" up

dcnt_log "SIGKILL: the program leaves with its agent"
kill -9 "${DCNT_AGENT_PID[h01]}"
wait "${DCNT_AGENT_PID[h01]}" 2>/dev/null || true
for p in eth0 eth1; do
  n=$(dcnt_tcx h01 "h01-$p")
  [ "$n" = 0 ] || fail "h01-$p: $n programs at TCX ingress after its agent was killed"
done
kill "${DCNT_AGENT_PID[h10]}"
wait "${DCNT_AGENT_PID[h10]}" || fail "agent h10 exit status $? on SIGTERM"
for p in eth0 eth1; do
  n=$(dcnt_tcx h10 "h10-$p")
  [ "$n" = 0 ] || fail "h10-$p: $n programs at TCX ingress after its agent exited"
done
echo "PASS: test_kernel_relay"
