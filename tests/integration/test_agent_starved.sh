#!/usr/bin/env bash
# An agent that was not scheduled for longer than its dead interval reads
# the hellos that arrived meanwhile before it judges its neighbours: it
# declares none of them dead for a silence that was its own
# (docs/protocol.md, "Neighbour maintenance"). On a box busy starting
# thousands of agents, an agent can wait seconds for the CPU while its
# neighbours' hellos sit in its sockets.
# BCube_1 (n=2) in network namespaces (agent_netns_lib.sh), 100 ms hellos:
#  1. h00's agent is stopped (SIGSTOP) for three dead intervals, then
#     continued; its neighbours h01 and h10 kept sending hellos;
#  2. h00 must count no neighbour expired (neighbor_down_events minus
#     neighbor_one_way, the downs because a neighbour's hellos no longer
#     list h00: h01 and h10 rightly declared the silent h00 dead);
#  3. h01 and h10 must have declared h00 dead (the stop was long enough),
#     and every agent must be ready again.
# run.sh holds /run/dcn-netns.lock around this script.
# Usage: test_agent_starved.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "${1:?usage: test_agent_starved.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
DCNT_TOPO="bcube n=2 k=1"
DCNT_AGENT_ARGS="--hello-ms 100 --dead-misses 3"
. "$here/agent_netns_lib.sh"
fail() { dcnt_fail "$@"; }

# neighbours $1 declared dead for silence: all downs minus one-way ones
expired() { dcnt_counters "$1" neighbor_down_events neighbor_one_way | { read -r d o; echo $((d - o)); }; }

dcnt_setup
dcnt_start_agents
dcnt_wait_ready 15 || fail "agents not ready"
dcnt_log "all agents ready"

before=$(expired h00)
downs_h01=$(dcnt_counter h01 neighbor_down_events)
downs_h10=$(dcnt_counter h10 neighbor_down_events)
pid=${DCNT_AGENT_PID[h00]}
dcnt_log "h00's agent stopped for 1.0 s (dead interval 325 ms)"
kill -STOP "$pid"
sleep 1.0
kill -CONT "$pid"
dcnt_wait_ready 10 || fail "agents not ready again after h00 was continued"
after=$(expired h00)
new_h01=$(( $(dcnt_counter h01 neighbor_down_events) - downs_h01 ))
new_h10=$(( $(dcnt_counter h10 neighbor_down_events) - downs_h10 ))
dcnt_log "h00 expired $((after - before)) neighbour(s); h01 and h10 downs +$new_h01, +$new_h10"
[ "$new_h01" -gt 0 ] || fail "h01 did not declare the stopped h00 dead"
[ "$new_h10" -gt 0 ] || fail "h10 did not declare the stopped h00 dead"
[ "$after" = "$before" ] || fail "h00 declared $((after - before)) neighbour(s) dead whose hellos were waiting in its sockets"
echo "PASS: a stopped agent reads its queued hellos before judging its neighbours"
