#!/usr/bin/env bash
# dcn-agent end to end on BCube_1 (n=2) in network namespaces: one
# namespace per server, Linux bridges as switches (tests/integration/
# agent_netns_lib.sh). run.sh holds /run/dcn-netns.lock around this script.
#  1. every agent becomes ready (hellos from all neighbours);
#  2. ping between servers two hops apart (through a relay) and one hop;
#  3. an iperf3 TCP transfer two hops apart;
#  4. the relay carrying a transfer is killed mid-transfer: the transfer
#     completes on the other parallel path; the stall is reported.
# Usage: test_agent_bcube.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "${1:?usage: test_agent_bcube.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
DCNT_TOPO="bcube n=2 k=1"
# the agents' own data path: h00's capture and the relays' counters see every frame
DCNT_AGENT_ARGS="--hello-ms 100 --dead-misses 3 --data-path agent"
. "$here/agent_netns_lib.sh"
fail() { dcnt_fail "$@"; }

# bad options: one line, exit 2
set +e
msg=$("$BUILD/agent/src/agent/dcn-agent" --topo "bcube n=2 k=1" --name nosuch 2>&1); rc=$?
set -e
[ "$rc" = 2 ] && [ "$(echo "$msg" | wc -l)" = 1 ] || fail "dcn-agent with a bad --name: exit $rc, '$msg'"
set +e
msg=$("$BUILD/agent/src/agent/dcn-agent" --topo "bcube n=2 k=1" --name h00 --relay-copy maybe 2>&1); rc=$?
set -e
[ "$rc" = 2 ] && [ "$msg" = "dcn-agent: --relay-copy must be on or off, got 'maybe'" ] ||
  fail "dcn-agent with a bad --relay-copy: exit $rc, '$msg'"

dcnt_setup
for s in "${DCNT_SERVERS[@]}"; do
  if [ "$s" = h00 ]; then dcnt_start_agent h00 --pcap "$DCNT_WORK/h00.pcap"; else dcnt_start_agent "$s"; fi
done
dcnt_wait_ready 15 || fail "agents not ready"
dcnt_log "all agents ready"
for s in "${DCNT_SERVERS[@]}"; do
  st=$(dcnt_ctl "$s" status --json)
  echo "$st" | grep -q '"neighbors_up":2,"neighbors_total":2' || fail "$s status: $st"
done
# the control tool's errors: unknown command -> 2, unreachable agent -> 1
set +e
dcnt_ctl h00 frobnicate >/dev/null 2>&1; [ $? = 2 ] || fail "dcn-ctl unknown command must exit 2"
"$BUILD/agent/src/agent/dcn-ctl" -s "$DCNT_WORK/none.sock" status >/dev/null 2>&1; [ $? = 1 ] || fail "dcn-ctl unreachable must exit 1"
set -e

ip_h00=$(dcnt_ip h00); ip_h01=$(dcnt_ip h01); ip_h11=$(dcnt_ip h11)
dcnt_log "ping h00 -> h11 (two hops) and h00 -> h01 (one hop)"
dcnt_in h00 ping -c 5 -i 0.2 -W 2 "$ip_h11" | tail -2 | tee "$DCNT_WORK/ping.txt"
grep -q " 0% packet loss" "$DCNT_WORK/ping.txt" || fail "ping h00 -> h11 lost packets"
dcnt_in h00 ping -c 3 -i 0.2 -W 2 "$ip_h01" | grep -q " 0% packet loss" || fail "ping h00 -> h01"
dcnt_in h11 ping -c 3 -i 0.2 -W 2 "$ip_h00" | grep -q " 0% packet loss" || fail "ping h11 -> h00"

dcnt_log "SIGTERM: clean exit (TUN and control socket removed); --pcap holds what was sent and received"
kill "${DCNT_AGENT_PID[h00]}"
for _ in $(seq 50); do kill -0 "${DCNT_AGENT_PID[h00]}" 2>/dev/null || break; sleep 0.1; done
kill -0 "${DCNT_AGENT_PID[h00]}" 2>/dev/null && fail "agent h00 did not exit on SIGTERM"
wait "${DCNT_AGENT_PID[h00]}" || fail "agent h00 exit status $? on SIGTERM"
[ -e "$DCNT_WORK/h00.sock" ] && fail "control socket left behind"
dcnt_in h00 ip link show dcn0 >/dev/null 2>&1 && fail "dcn0 left behind"
hellos=$(tcpdump -nn -r "$DCNT_WORK/h00.pcap" ether proto 0x88b5 and ether broadcast 2>/dev/null | wc -l)
others=$(tcpdump -nn -r "$DCNT_WORK/h00.pcap" ether proto 0x88b5 and not ether broadcast 2>/dev/null | wc -l)
dcnt_log "h00.pcap: $hellos hello frames, $others unicast frames"
[ "$hellos" -gt 10 ] && [ "$others" -ge 22 ] || fail "pcap of h00 incomplete ($hellos hellos, $others unicast; 11 pings each way expected)"
dcnt_start_agent h00
dcnt_wait_ready 15 || fail "h00 not ready after restart"

dcnt_log "carrier loss (netlink) acts at once, before any hello is missed"
sw_ns=$(dcnt_ns sw)
ip -n "$sw_ns" link set "${DCNT_PEER[h00-eth1]}" down
t0=$(date +%s%N)
down=""
for _ in $(seq 40); do
  if dcnt_ctl h00 neighbors --json | /usr/bin/python3 -c 'import json,sys
n = [x for x in json.load(sys.stdin)["neighbors"] if x["ifname"] == "h00-eth1"]
sys.exit(0 if n and not n[0]["up"] else 1)'; then down=yes; break; fi
  sleep 0.01
done
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ -n "$down" ] || fail "neighbour on h00-eth1 still up after carrier loss"
dcnt_log "neighbour on h00-eth1 down ${ms} ms after carrier loss (hello timeout would be 325 ms)"
grep -q "carrier down" "$DCNT_WORK/h00.log" || fail "carrier change not logged"
# path selection holds the cable failed, with no timeout (dcn-ctl failures)
fl=$(dcnt_ctl h00 failures --json)
echo "$fl" | grep -q '{"a":"h00","b":"s1_0","kind":"local","expires_in_ms":null}' || fail "h00 failures: $fl"
ip -n "$sw_ns" link set "${DCNT_PEER[h00-eth1]}" up
dcnt_wait_ready 10 || fail "h00 not ready after carrier came back"
fl=$(dcnt_ctl h00 failures --json)
echo "$fl" | grep -q '"local"' && fail "h00 still holds its cable failed after carrier came back: $fl"
dcnt_in h00 ping -c 2 -i 0.2 -W 2 "$ip_h11" >/dev/null || fail "ping after carrier came back"

dcnt_log "iperf3 TCP h00 -> h11 (two hops)"
ip netns exec "$(dcnt_ns h11)" iperf3 -s -p 5201 >/dev/null 2>&1 & DCNT_PIDS+=($!)
sleep 0.5
dcnt_in h00 iperf3 -c "$ip_h11" -p 5201 -t 3 -J > "$DCNT_WORK/iperf1.json" || fail "iperf3 transfer failed"
read -r bytes _ _ < <("$here/agent_iperf_stall.py" "$DCNT_WORK/iperf1.json")
mbps=$(( bytes * 8 / 3 / 1000000 ))
dcnt_log "transfer: $bytes bytes received, about $mbps Mb/s"
[ "$bytes" -gt 1000000 ] || fail "transfer too small: $bytes bytes"

relayed() { dcnt_counter "$1" relayed; }
dcnt_log "relay killed mid-transfer"
b01=$(relayed h01); b10=$(relayed h10)
dcnt_in h00 iperf3 -c "$ip_h11" -p 5201 -t 8 -i 0.1 -J > "$DCNT_WORK/iperf2.json" &
client=$!; DCNT_PIDS+=($client)
sleep 2
r01=$(( $(relayed h01) - b01 )); r10=$(( $(relayed h10) - b10 ))
if [ "$r01" -ge "$r10" ]; then relay=h01; other=h10; else relay=h10; other=h01; fi
dcnt_log "relay carrying the transfer: $relay (frames relayed in 2 s: h01=$r01 h10=$r10); killing its agent (pid ${DCNT_AGENT_PID[$relay]})"
before_other=$(relayed $other)
dcnt_kill_agent "$relay"
wait "$client" || fail "transfer did not complete after the relay died"
read -r bytes stall after < <("$here/agent_iperf_stall.py" "$DCNT_WORK/iperf2.json")
after_other=$(relayed $other)
dcnt_log "transfer completed: $bytes bytes; longest stall ${stall} s; $after bytes after the stall; $other relayed $((after_other - before_other)) frames after the kill"
echo "STALL_S=$stall"
[ "$after" -gt 100000 ] || fail "no data moved after the relay died"
[ $((after_other - before_other)) -gt 100 ] || fail "the other path ($other) did not take over"
dcnt_ctl h00 neighbors
dcnt_ctl h00 counters | grep -E "path_failure|next_hop_down|neighbor_down" || true
echo "PASS: test_agent_bcube"
