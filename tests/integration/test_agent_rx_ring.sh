#!/usr/bin/env bash
# dcn-agent with its TPACKET_V2 receive rings (--rx-ring) on BCube_1 (n=2)
# in network namespaces (tests/integration/agent_netns_lib.sh). run.sh
# holds /run/dcn-netns.lock around this script.
#  1. a bad --rx-ring: one line, exit 2;
#  2. every agent becomes ready; ping and an iperf3 transfer through a relay,
#     which relays every data frame from its rings;
#  3. the relay's port is set down for 2 s (the kernel flags the socket
#     with ENETDOWN, and no hello goes out on it to clear the flag): the
#     relay does not spin on the readable socket; then up, and traffic
#     flows again.
# Usage: test_agent_rx_ring.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "${1:?usage: test_agent_rx_ring.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
DCNT_TOPO="bcube n=2 k=1"
# the agents' own data path: the relay takes every data frame from its rings
DCNT_AGENT_ARGS="--hello-ms 100 --dead-misses 3 --rx-ring 128 --data-path agent"
. "$here/agent_netns_lib.sh"
fail() { dcnt_fail "$@"; }

set +e
msg=$("$BUILD/agent/src/agent/dcn-agent" --topo "bcube n=2 k=1" --name h00 --rx-ring 70000 --check 2>&1); rc=$?
set -e
[ "$rc" = 2 ] && [ "$(echo "$msg" | wc -l)" = 1 ] && echo "$msg" | grep -q -- "--rx-ring" \
  || fail "dcn-agent --rx-ring 70000: exit $rc, '$msg'"

dcnt_up 15
ip_h11=$(dcnt_ip h11)

dcnt_in h00 ping -c 5 -i 0.2 -W 2 "$ip_h11" | grep -q " 0% packet loss" || fail "ping h00 -> h11"
relayed0=$(( $(dcnt_counter h01 relayed) + $(dcnt_counter h10 relayed) ))
dcnt_iperf_servers h11 5501
sleep 0.3
dcnt_in h00 iperf3 -c "$ip_h11" -p 5501 -t 3 -J > "$DCNT_WORK/iperf.json" || fail "iperf3 h00 -> h11"
mbps=$(/usr/bin/python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1e6))' "$DCNT_WORK/iperf.json")
relayed=$(( $(dcnt_counter h01 relayed) + $(dcnt_counter h10 relayed) - relayed0 ))
dcnt_log "iperf3 through a relay with rx rings: $mbps Mb/s, $relayed frames relayed"
[ "$mbps" -ge 50 ] || fail "iperf3 through rx rings: $mbps Mb/s"
[ "$relayed" -ge 10000 ] || fail "only $relayed frames relayed"

# the relay whose port goes down: h01 (BCube_1 n=2: h00 -> h01 -> h11 is one of the two paths)
dcnt_log "h01-eth0 down for 2 s: the socket's ENETDOWN must not keep the agent awake"
hz=$(getconf CLK_TCK)
dcnt_in h01 ip link set h01-eth0 down
sleep 0.2
t0=$(dcnt_cpu_ticks "${DCNT_AGENT_PID[h01]}")
sleep 2
used=$(( $(dcnt_cpu_ticks "${DCNT_AGENT_PID[h01]}") - t0 ))
dcnt_in h01 ip link set h01-eth0 up
dcnt_log "h01 agent CPU over 2 s with its port down: $used ticks ($hz a second)"
[ "$used" -lt $(( hz / 5 )) ] || fail "h01's agent spins while its port is down: $used ticks in 2 s"
dcnt_wait_ready 10 || fail "agents not ready after h01-eth0 came back"
dcnt_in h00 ping -c 3 -i 0.2 -W 2 "$ip_h11" | grep -q " 0% packet loss" || fail "ping h00 -> h11 after the port came back"
dcnt_in h01 ping -c 3 -i 0.2 -W 2 "$(dcnt_ip h00)" | grep -q " 0% packet loss" || fail "ping h01 -> h00 over the port that came back"
dcnt_log "PASS"
