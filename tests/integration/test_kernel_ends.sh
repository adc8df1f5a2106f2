#!/usr/bin/env bash
# dcn-agent --data-path kernel, end to end on BCube_1 (n=2) in network
# namespaces (agent_netns_lib.sh): the two ends of each path in the kernel
# (test_kernel_relay.sh checks the relay between them). run.sh holds /run/dcn-netns.lock.
#  1. every agent's programs are attached: TCX ingress of each port, TCX
#     egress of dcn0, TCX ingress of the segmenting veth's far end (dcn0g);
#  2. an iperf3 transfer two hops apart is sent, relayed and delivered in
#     the kernel, both ways (data and ACKs): the agents handle only each
#     flow's and path's first packets; the kernel's bytes reach the flow's
#     rate in path selection (dcn-ctl flows); the frames the kernel sends
#     are DCN frames to the port's qdisc and filters (skb->protocol), as
#     the agent's are, which the links' small-frames-first filters need;
#  3. the relay carrying a transfer loses its out port's cable mid-transfer:
#     its path-failure message moves the flow at the source, the kernel is
#     given the new path and the transfer completes in the kernel;
#  4. a SIGKILLed agent takes its programs with it; its restart replaces the
#     segmenting veth it left, and a SIGTERM removes it.
# Usage: test_kernel_ends.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "${1:?usage: test_kernel_ends.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
DCNT_TOPO="bcube n=2 k=1"
DCNT_AGENT_ARGS="--hello-ms 100 --dead-misses 3 --data-path kernel"
. "$here/agent_netns_lib.sh"
fail() { dcnt_fail "$@"; }
programs() { # $1 server: "ports dcn0-egress dcn0g-ingress"
  local s=$1 n=0 p
  for p in eth0 eth1; do n=$(( n + $(dcnt_tcx "$s" "$s-$p") )); done
  echo "$n $(dcnt_tcx "$s" dcn0 egress 2>/dev/null || echo -) $(dcnt_tcx "$s" dcn0g 2>/dev/null || echo -)"
}

dcnt_setup
dcnt_start_agents
dcnt_wait_ready 15 || fail "agents not ready"
for s in "${DCNT_SERVERS[@]}"; do
  got=$(programs "$s")
  [ "$got" = "2 1 1" ] || fail "$s: programs at ports, dcn0 egress, dcn0g ingress: $got, '2 1 1' expected"
done
dcnt_log "the kernel's programs are attached on every server: 2 ports, dcn0 egress, dcn0g ingress"

ip_h11=$(dcnt_ip h11)
ip netns exec "$(dcnt_ns h11)" iperf3 -s -p 5201 >/dev/null 2>&1 & DCNT_PIDS+=($!)
sleep 0.5
for p in eth0 eth1; do # h00's ports' frames by the protocol the kernel holds, during the transfer
  dcnt_in h00 /usr/bin/python3 "$here/skb_protocol.py" "h00-$p" 2 > "$DCNT_WORK/proto-$p" & DCNT_PIDS+=($!)
done
read -r a0 k0 d0 dk0 < <(dcnt_counters h00 tx_data_from_tun sent_in_kernel rx_data_delivered delivered_in_kernel)
read -r b0 bk0 e0 ek0 < <(dcnt_counters h11 tx_data_from_tun sent_in_kernel rx_data_delivered delivered_in_kernel)
dcnt_in h00 iperf3 -c "$ip_h11" -p 5201 -t 3 -J > "$DCNT_WORK/iperf1.json" || fail "iperf3 transfer failed"
read -r bytes _ _ < <("$here/agent_iperf_stall.py" "$DCNT_WORK/iperf1.json")
read -r a1 k1 d1 dk1 < <(dcnt_counters h00 tx_data_from_tun sent_in_kernel rx_data_delivered delivered_in_kernel)
read -r b1 bk1 e1 ek1 < <(dcnt_counters h11 tx_data_from_tun sent_in_kernel rx_data_delivered delivered_in_kernel)
sa=$(( a1 - a0 )) sk=$(( k1 - k0 )) ra=$(( e1 - e0 )) rk=$(( ek1 - ek0 ))
ackk=$(( bk1 - bk0 )) acka=$(( b1 - b0 )) ackdk=$(( dk1 - dk0 ))
dcnt_log "transfer: $bytes bytes; h00 sent $sk packets in its kernel, $sa through its agent; h11 delivered $rk in its kernel, $ra through its agent; ACKs: h11 sent $ackk in its kernel ($acka through its agent), h00 delivered $ackdk in its kernel"
[ "$bytes" -gt 1000000 ] || fail "transfer too small: $bytes bytes"
[ "$sk" -gt $(( 20 * (sa + 1) )) ] || fail "h00 sent $sk packets in its kernel, $sa through its agent: not in the kernel"
[ "$rk" -gt $(( 20 * (ra + 1) )) ] || fail "h11 delivered $rk packets in its kernel, $ra through its agent: not in the kernel"
[ "$ackk" -gt $(( 20 * (acka + 1) )) ] && [ "$ackdk" -gt 100 ] || fail "the ACKs were not sent ($ackk) and delivered ($ackdk) in the kernels"
read -r _ dcn0 _ ip0 < "$DCNT_WORK/proto-eth0"; read -r _ dcn1 _ ip1 < "$DCNT_WORK/proto-eth1"
dcnt_log "in 2 s of the transfer h00's ports sent $(( dcn0 + dcn1 )) frames the kernel holds as DCN frames, $(( ip0 + ip1 )) as IPv4"
[ $(( dcn0 + dcn1 )) -gt 10000 ] && [ $(( ip0 + ip1 )) = 0 ] ||
  fail "h00's ports sent $(( ip0 + ip1 )) frames the kernel holds as IPv4: the links' filters would misfile them"
rate=$(dcnt_ctl h00 flows --json | /usr/bin/python3 -c 'import json,sys
print(max([f["rate_mbps"] for f in json.load(sys.stdin)["flows"] if f["dport"] == 5201] or [0]))')
dcnt_log "h00's path selection saw the transfer at $rate Mb/s"
[ "$rate" -gt 10 ] || fail "path selection did not count the kernel's bytes: the flow's rate is $rate Mb/s"

dcnt_log "the relay's out port loses its cable mid-transfer"
dcnt_in h00 iperf3 -c "$ip_h11" -p 5201 -t 6 -i 0.1 -J > "$DCNT_WORK/iperf2.json" &
client=$!; DCNT_PIDS+=($client)
sleep 0.5
dcnt_kernel_relay_carrying
relay=$DCNT_RELAY other=$DCNT_OTHER out=$DCNT_RELAY_OUT
before=$(dcnt_counter $other relayed_in_kernel)
ip -n "$(dcnt_ns sw)" link set "${DCNT_PEER[$out]}" down
sleep 1
s_mid=$(dcnt_counter h00 sent_in_kernel)
wait "$client" || fail "transfer did not complete after the relay's cable failed"
read -r bytes stall after < <("$here/agent_iperf_stall.py" "$DCNT_WORK/iperf2.json")
sent_after=$(( $(dcnt_counter h00 sent_in_kernel) - s_mid )); took=$(( $(dcnt_counter $other relayed_in_kernel) - before ))
dcnt_log "relay $relay failed: $other relayed $took frames in its kernel afterwards; h00 sent $sent_after packets in its kernel from 1 s after the failure; longest stall ${stall} s; h00 heard $(dcnt_counter h00 path_failure_rx) path failures"
[ "$after" -gt 100000 ] || fail "no data moved after the relay's cable failed"
[ "$took" -gt 100 ] || fail "the other path ($other) did not take over in the kernel"
[ "$sent_after" -gt 100 ] || fail "h00 no longer sends in its kernel after the flow moved: $sent_after packets"
ip -n "$(dcnt_ns sw)" link set "${DCNT_PEER[$out]}" up

dcnt_log "SIGKILL: the programs leave with their agent; a restart replaces what it left"
kill -9 "${DCNT_AGENT_PID[h00]}"
wait "${DCNT_AGENT_PID[h00]}" 2>/dev/null || true
got=$(programs h00)
[ "$got" = "0 - 0" ] || fail "h00 after SIGKILL: programs at ports, dcn0 egress (gone with dcn0), dcn0g: $got, '0 - 0' expected"
dcnt_start_agent h00
dcnt_wait_ready 15 || fail "h00 not ready after its restart"
got=$(programs h00)
[ "$got" = "2 1 1" ] || fail "h00 restarted: programs $got, '2 1 1' expected"
dcnt_in h00 ping -c 3 -i 0.2 -W 2 "$ip_h11" >/dev/null || fail "no ping from the restarted h00"
kill "${DCNT_AGENT_PID[h00]}"
wait "${DCNT_AGENT_PID[h00]}" || fail "agent h00 exit status $? on SIGTERM"
if dcnt_in h00 ip link show dcn0s >/dev/null 2>&1; then fail "h00's segmenting veth is left after its agent exited"; fi
echo "PASS: test_kernel_ends"
