#!/usr/bin/env bash
# An agent killed with SIGKILL and restarted rejoins, in network namespaces
# on BCube_1 (n=2) with fast hellos (tests/integration/agent_netns_lib.sh).
# The cable h00-s1_0 is cut first, so h00's only path to h11 is through the
# relay h01 (h00 -s0_0- h01 -s1_1- h11), and the flow cannot go around it.
#  1. an iperf3 TCP transfer h00 -> h11 runs through h01 (its relayed
#     counter grows);
#  2. h01's agent gets SIGKILL: no clean exit, its control socket stays
#     behind; h00 and h11 see h01 down, and the transfer stalls;
#  3. the same binary is started again in the same namespace (nothing else
#     restarted): it replaces its stale socket, becomes ready, h00 and h11
#     see h01 up again (dcn-ctl neighbors and status), and the transfer
#     resumes through the new agent (its relayed counter, from 0) and
#     completes; the time from the restart to the first data is reported.
# With RESTART_SELF_CHECK=1 the agent is not restarted, and the test must
# fail (it checks that the checks can fail).
# run.sh holds /run/dcn-netns.lock around this script.
# Usage: test_agent_restart.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "${1:?usage: test_agent_restart.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
DCNT_TOPO="bcube n=2 k=1"
# the agents' own data path: the relay's relayed counter counts every frame
DCNT_AGENT_ARGS="--hello-ms 100 --dead-misses 3 --data-path agent"
. "$here/agent_netns_lib.sh"
PY=/usr/bin/python3
fail() { dcnt_fail "$@"; }

dcnt_setup
dcnt_start_agents
dcnt_wait_ready 15 || fail "agents not ready"
dcnt_log "all agents ready"

# is neighbour $2 up as seen by $1 (dcn-ctl neighbors --json)? exit 0/1
neighbor_up() {
  dcnt_ctl "$1" neighbors --json | $PY -c 'import json,sys
n = [x for x in json.load(sys.stdin)["neighbors"] if x["name"] == sys.argv[1]]
sys.exit(0 if n and n[0]["up"] else 1)' "$2"
}
# waits up to $3 seconds for neighbour $2 of $1 to be up (want=1) or down (want=0)
wait_neighbor() {
  local s=$1 n=$2 want=$3 timeout=$4 t0=$SECONDS
  while true; do
    if neighbor_up "$s" "$n"; then [ "$want" = 1 ] && return 0; else [ "$want" = 0 ] && return 0; fi
    [ $((SECONDS - t0)) -ge "$timeout" ] && return 1
    sleep 0.05
  done
}
status_field() { dcnt_ctl "$1" status --json | $PY -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$2"; }
relayed() { dcnt_counter "$1" relayed; }

sw_ns=$(dcnt_ns sw)
dcnt_log "cut h00-s1_0: h00's only way to h11 is through h01"
ip -n "$sw_ns" link set "${DCNT_PEER[h00-eth1]}" down
wait_neighbor h00 h10 0 5 || fail "h00 still sees h10 after its cable was cut"
wait_neighbor h10 h00 0 5 || fail "h10 still sees h00 after the cable was cut"
ip_h11=$(dcnt_ip h11)
# the first packets teach h11's path selection that h10 cannot reach h00
dcnt_in h00 ping -c 3 -i 0.2 -W 1 "$ip_h11" >/dev/null || true
dcnt_in h00 ping -c 3 -i 0.2 -W 2 "$ip_h11" | grep -q " 0% packet loss" || fail "ping h00 -> h11 through h01"

ip netns exec "$(dcnt_ns h11)" iperf3 -s -p 5201 >/dev/null 2>&1 &
DCNT_PIDS+=($!)
sleep 0.5
duration=40
dcnt_log "iperf3 TCP h00 -> h11 for ${duration} s"
ip netns exec "$(dcnt_ns h00)" iperf3 -c "$ip_h11" -p 5201 -t "$duration" -i 0.2 -J > "$DCNT_WORK/iperf.json" &
client=$!
DCNT_PIDS+=($client)
t_start=$(date +%s.%N)
b01=$(relayed h01)
sleep 3
r01=$(( $(relayed h01) - b01 ))
dcnt_log "h01 relayed $r01 frames in 3 s"
[ "$r01" -gt 1000 ] || fail "the transfer does not go through h01 ($r01 frames relayed)"

old=${DCNT_AGENT_PID[h01]}
dcnt_log "SIGKILL to h01's agent (pid $old)"
t_kill=$(date +%s.%N)
kill -9 "$old"
for _ in $(seq 50); do kill -0 "$old" 2>/dev/null || break; sleep 0.05; done
kill -0 "$old" 2>/dev/null && fail "h01's agent survived SIGKILL"
wait "$old" 2>/dev/null || true
[ -S "$DCNT_WORK/h01.sock" ] || fail "expected the killed agent's control socket to stay behind"
dcnt_ctl h01 status >/dev/null 2>&1 && fail "the killed agent still answers"
wait_neighbor h00 h01 0 3 || fail "h00 still sees h01 up 3 s after the kill"
wait_neighbor h11 h01 0 3 || fail "h11 still sees h01 up 3 s after the kill"
st=$(dcnt_ctl h00 status --json)
echo "$st" | grep -q '"neighbors_up":0,"neighbors_total":2,"ready":false' || fail "h00 status after the kill: $st"
dcnt_log "h00 and h11 see h01 down"
sleep 1.5

t_restart=$(date +%s.%N)
if [ -z "${RESTART_SELF_CHECK:-}" ]; then
  dcnt_log "restarting h01's agent (same namespace, same options)"
  dcnt_start_agent h01
else
  dcnt_log "RESTART_SELF_CHECK: h01 is not restarted; this run must fail"
fi
new=${DCNT_AGENT_PID[h01]}
t0=$SECONDS
until [ "$(status_field h01 ready 2>/dev/null)" = True ]; do
  [ $((SECONDS - t0)) -ge 10 ] && fail "h01 not ready 10 s after the restart"
  sleep 0.05
done
[ "$new" != "$old" ] || fail "h01's agent has the old PID"
up=$(status_field h01 uptime_s)
dcnt_log "h01 ready again (pid $new, uptime $up s)"
wait_neighbor h00 h01 1 5 || fail "h00 does not see h01 back"
wait_neighbor h11 h01 1 5 || fail "h11 does not see h01 back"
st=$(dcnt_ctl h00 status --json)
echo "$st" | grep -q '"neighbors_up":1,"neighbors_total":2' || fail "h00 status after the restart: $st"
dcnt_log "h00 and h11 see h01 up again"
dcnt_ctl h00 neighbors

wait "$client" || fail "the transfer did not complete after the restart"
a01=$(relayed h01)
dcnt_log "the new h01 agent relayed $a01 frames"
read -r bytes stall after < <("$here/agent_iperf_stall.py" "$DCNT_WORK/iperf.json")
resume=$($PY -c 'import json,sys
rep = json.load(open(sys.argv[1])); off = float(sys.argv[2]) - float(sys.argv[3])
iv = [(i["sum"]["start"], i["sum"]["bytes"]) for i in rep["intervals"]]
after = [s for s, b in iv if s >= off and b > 0]
print("%.1f" % (after[0] - off) if after else "none")' "$DCNT_WORK/iperf.json" "$t_restart" "$t_start")
dcnt_log "transfer: $bytes bytes; longest stall ${stall} s; $after bytes after it; first data ${resume} s after the restart"
echo "RESUME_S=$resume STALL_S=$stall"
[ "$a01" -gt 1000 ] || fail "the flow did not resume through the restarted h01 ($a01 frames relayed)"
[ "$after" -gt 1000000 ] || fail "too little data after the stall ($after bytes)"
$PY -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= 1.5 else 1)' "$stall" || fail "no stall while h01 was down (stall ${stall} s): the flow did not depend on h01"
[ "$resume" != none ] || fail "no data after the restart"
dcnt_in h00 ping -c 3 -i 0.2 -W 2 "$ip_h11" | grep -q " 0% packet loss" || fail "ping h00 -> h11 after the restart"
echo "PASS: test_agent_restart"
