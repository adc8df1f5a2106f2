#!/usr/bin/env bash
# Forwarding benchmark: one relay server forwards a TCP transfer (iperf3)
# between two servers two hops apart on BCube_1 (n=2), in network namespaces
# over veths and Linux bridges; by dcn-agent (DCN header, user space:
# AF_PACKET + TUN) and by the kernel's IP forwarding (plain IPv4 on the same
# port interfaces, ip_forward=1 on the relay), in the same namespaces.
#
# Modes alternate in one run (A B A B ...), so that the drift of this shared
# box falls on every mode alike; each MTU reports the median of every mode
# and the median and spread of the per-round ratio agent / kernel. The goal
# (issue 9): the agent at >= 0.8 x the kernel, at MTU 1500 and 9000.
#
# Fairness: TSO, GSO, GRO and checksum offloads are off on every veth, so on
# the wire both paths move MTU-sized packets with software checksums. The
# agent's own TUN device (dcn0) may take 64 KB TCP segments from the kernel
# (--tun-offload on, the default): the agent cuts them into MTU-sized
# packets itself, as a NIC's TSO would (agent/src/agent/core/tun_offload.h).
#
# Environment:
#   DCN_BENCH_SECONDS  seconds per transfer (5; the first second omitted)
#   DCN_BENCH_ROUNDS   rounds of alternation per MTU (5)
#   DCN_BENCH_MTUS     link MTUs ("1500 9000")
#   DCN_BENCH_MODES    modes in each round, in order ("agent
#                      agent:--data-path=kernel agent:--rx-ring=1024
#                      agent-direct kernel kernel-direct");
#                      "agent" and "kernel" go through the relay; the
#                      agent modes run the agents on their own data path
#                      (--data-path agent: every frame through the agent)
#                      unless their options say otherwise;
#                      "agent:OPTS" runs the agents with extra options
#                      (the agents are restarted when the options change),
#                      "agent:--data-path=kernel" on the kernel's data path
#                      (the default elsewhere: the relay and the two ends,
#                      encapsulation and delivery, in the kernel,
#                      agent/src/agent/kernel/);
#                      "agent-direct" and "kernel-direct" send to h01, one
#                      hop away, with no relay at all (agent-direct stops
#                      h10's agent for the run, so that BSR has no other
#                      path than the direct one): agent-direct over kernel
#                      is the ceiling, the ratio the agent would reach if
#                      its relay cost nothing
#   DCN_BENCH_OUT      output folder (results/forwarding)
# Writes OUT/summary.json, OUT/runs.csv and OUT/ratios.png.
# Usage: tests/bench/forwarding.sh BUILD_DIR   (root; takes the namespace lock)
set -euo pipefail
BUILD=$(cd "${1:-build}" 2>/dev/null && pwd) || { echo "forwarding.sh: no build directory '${1:-build}' (make build first)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
DURATION=${DCN_BENCH_SECONDS:-5}
ROUNDS=${DCN_BENCH_ROUNDS:-5}
MTUS=${DCN_BENCH_MTUS:-1500 9000}
MODES=${DCN_BENCH_MODES:-agent agent:--data-path=kernel agent:--rx-ring=1024 agent-direct kernel kernel-direct}
out_dir=${DCN_BENCH_OUT:-$root/results/forwarding}
for mode in $MODES; do
  case $mode in
    agent | agent:?* | agent-direct | kernel | kernel-direct) ;;
    *) echo "forwarding.sh: unknown mode '$mode' in DCN_BENCH_MODES (agent, agent:OPTIONS, agent-direct, kernel, kernel-direct)" >&2; exit 2 ;;
  esac
done
for v in ROUNDS:$ROUNDS SECONDS:$DURATION; do
  case ${v#*:} in '' | *[!0-9]* | 0*) echo "forwarding.sh: DCN_BENCH_${v%%:*} must be a whole number above 0, not '${v#*:}'" >&2; exit 2 ;; esac
done
for mtu in $MTUS; do
  case $mtu in '' | *[!0-9]*) echo "forwarding.sh: DCN_BENCH_MTUS holds '$mtu', not an MTU" >&2; exit 2 ;; esac
  if [ "$mtu" -lt 1280 ] || [ "$mtu" -gt 9000 ]; then echo "forwarding.sh: MTU $mtu is outside 1280-9000" >&2; exit 2; fi
done
if [ "$(id -u)" != 0 ]; then echo "forwarding.sh: needs root (network namespaces)" >&2; exit 1; fi
if [ -z "${DCN_BENCH_LOCKED:-}" ]; then
  exec env DCN_BENCH_LOCKED=1 flock /run/dcn-netns.lock "$0" "$@"
fi
mkdir -p "$out_dir"
load_before=$(cut -d' ' -f1 /proc/loadavg)
runs_file=$(mktemp /tmp/dcnt-bench-runs.XXXXXX)
trap 'rm -f "$runs_file"' EXIT

box_busy() { awk '/^cpu /{print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8}' /proc/stat; }

one_mtu() { # runs in a subshell: its own namespaces, agents and cleanup
  local mtu=$1
  DCNT_TOPO="bcube n=2 k=1"
  DCNT_MTU=$mtu
  DCNT_AGENT_ARGS="--hello-ms 1000 --capacity-mbps 100000 --data-path agent" # a mode's options come after
  . "$root/tests/integration/agent_netns_lib.sh"
  dcnt_setup
  # offloads off on every veth (server side and switch side)
  for ns in "${DCNT_NETNS[@]}"; do
    for dev in $(ip -n "$ns" -o link show type veth | awk -F': ' '{print $2}' | cut -d@ -f1); do
      ip netns exec "$ns" ethtool -K "$dev" tso off gso off gro off tx off rx off >/dev/null 2>&1 || true
    done
  done
  local ip_h11 ip_h01; ip_h11=$(dcnt_ip h11); ip_h01=$(dcnt_ip h01)
  # kernel forwarding over h00-eth0 -> s0_0 -> h01 -> s1_1 -> h11-eth1, beside the agents
  ip -n "$(dcnt_ns h00)" addr add 192.168.71.1/24 dev h00-eth0
  ip -n "$(dcnt_ns h01)" addr add 192.168.71.2/24 dev h01-eth0
  ip -n "$(dcnt_ns h01)" addr add 192.168.72.2/24 dev h01-eth1
  ip -n "$(dcnt_ns h11)" addr add 192.168.72.1/24 dev h11-eth1
  ip -n "$(dcnt_ns h00)" route add 192.168.72.0/24 via 192.168.71.2
  ip -n "$(dcnt_ns h11)" route add 192.168.71.0/24 via 192.168.72.2
  ip netns exec "$(dcnt_ns h01)" sysctl -qw net.ipv4.ip_forward=1
  ip netns exec "$(dcnt_ns h11)" iperf3 -s -p 5401 >/dev/null 2>&1 & DCNT_PIDS+=($!)
  ip netns exec "$(dcnt_ns h01)" iperf3 -s -p 5401 >/dev/null 2>&1 & DCNT_PIDS+=($!) # the direct modes' receiver

  gbps_of() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1e9)' "$1"; }
  local agent_opts="" started=0
  restart_agents() { # $1: extra options
    local s
    if [ "$started" = 1 ]; then
      for s in "${DCNT_SERVERS[@]}"; do kill "${DCNT_AGENT_PID[$s]}"; done
      for s in "${DCNT_SERVERS[@]}"; do
        for _ in $(seq 100); do kill -0 "${DCNT_AGENT_PID[$s]}" 2>/dev/null || break; sleep 0.05; done
      done
    fi
    for s in "${DCNT_SERVERS[@]}"; do dcnt_start_agent "$s" $1; done
    dcnt_wait_ready 20
    dcnt_in h00 ping -c 2 -i 0.2 -W 2 "$ip_h11" >/dev/null
    started=1 agent_opts=$1
  }
  neighbour_up() { # $1 server, $2 neighbour: 1 when $1's agent has $2 up
    dcnt_ctl "$1" neighbors --json | /usr/bin/python3 -c 'import json,sys
print(int(any(n["name"] == sys.argv[1] and n["up"] for n in json.load(sys.stdin)["neighbors"])))' "$2"
  }
  wait_neighbour() { # $1 server, $2 neighbour, $3 0|1; within 10 s
    local _
    for _ in $(seq 100); do [ "$(neighbour_up "$1" "$2")" = "$3" ] && return 0; sleep 0.1; done
    dcnt_fail "$1 still has $2 $( [ "$3" = 1 ] && echo down || echo up) after 10 s"
  }
  # agent-direct: h10 is on the only other path between h00 and h01 (h00
  # h10 h11 h01); its agent stops for the run and its neighbours see it down
  h10_stop() { kill -STOP "${DCNT_AGENT_PID[h10]}"; wait_neighbour h00 h10 0; wait_neighbour h11 h10 0; }
  h10_cont() { kill -CONT "${DCNT_AGENT_PID[h10]}"; wait_neighbour h00 h10 1; wait_neighbour h11 h10 1; }
  relayed_into() { # $1, $2: associative arrays, set to each server's relayed and relayed_in_kernel counters
    local -n into=$1 kinto=$2; local s
    for s in "${DCNT_SERVERS[@]}"; do into[$s]=$(dcnt_counter "$s" relayed); kinto[$s]=$(dcnt_counter "$s" relayed_in_kernel); done
  }
  sleep 0.5
  dcnt_in h00 ping -c 2 -i 0.2 -W 2 192.168.72.1 >/dev/null

  local round mode opts
  for round in $(seq 1 "$ROUNDS"); do
    for mode in $MODES; do
      opts=""
      case $mode in agent:*) opts=${mode#agent:} ;; esac
      local b0 b1 t0 t1 gbps relay="" cpu="null" gso=0 target relayed="null" krelayed="null" ksent="null" s
      local -A rel0=() rel1=() krel0=() krel1=() moved=()
      case $mode in
        kernel) target=192.168.72.1 ;;
        kernel-direct) target=192.168.71.2 ;;
        agent-direct) target=$ip_h01 ;;
        *) target=$ip_h11 ;;
      esac
      if [ "${mode#kernel}" = "$mode" ]; then
        if [ "$started" = 0 ] || [ "$opts" != "$agent_opts" ]; then restart_agents "$opts"; fi
        local c01 c10 g0 ks0
        relayed_into rel0 krel0; g0=$(dcnt_counter h00 tun_gso_in); ks0=$(dcnt_counter h00 sent_in_kernel)
        c01=$(dcnt_cpu_ticks "${DCNT_AGENT_PID[h01]}"); c10=$(dcnt_cpu_ticks "${DCNT_AGENT_PID[h10]}")
        if [ "$mode" = agent-direct ]; then h10_stop; fi
      fi
      b0=$(box_busy); t0=$(date +%s.%N)
      dcnt_in h00 iperf3 -c "$target" -p 5401 -t "$DURATION" -O 1 -J > "$DCNT_WORK/run.json"
      t1=$(date +%s.%N); b1=$(box_busy)
      gbps=$(gbps_of "$DCNT_WORK/run.json")
      if [ "${mode#kernel}" = "$mode" ]; then
        if [ "$mode" = agent-direct ]; then h10_cont; fi
        relayed_into rel1 krel1
        relayed=0 krelayed=0
        for s in "${DCNT_SERVERS[@]}"; do
          relayed=$(( relayed + rel1[$s] - rel0[$s] )); krelayed=$(( krelayed + krel1[$s] - krel0[$s] ))
          moved[$s]=$(( rel1[$s] - rel0[$s] + krel1[$s] - krel0[$s] ))
        done
        if [ "$mode" != agent-direct ]; then
          local ticks # the relay: the server that relayed the most, in the agent or in its kernel
          if [ "${moved[h01]}" -ge "${moved[h10]}" ]; then relay=h01; ticks=$(( $(dcnt_cpu_ticks "${DCNT_AGENT_PID[h01]}") - c01 ));
          else relay=h10; ticks=$(( $(dcnt_cpu_ticks "${DCNT_AGENT_PID[h10]}") - c10 )); fi
          cpu=$(/usr/bin/python3 -c 'import os,sys; print(round(int(sys.argv[1]) / os.sysconf("SC_CLK_TCK") / (float(sys.argv[3]) - float(sys.argv[2])) * 100, 1))' "$ticks" "$t0" "$t1")
        fi
        gso=$(( $(dcnt_counter h00 tun_gso_in) - g0 )); ksent=$(( $(dcnt_counter h00 sent_in_kernel) - ks0 ))
      fi
      /usr/bin/python3 -c 'import json,sys
b0, b1 = [list(map(float, x.split())) for x in sys.argv[6:8]]
busy = (b1[0] - b0[0]) / (b1[1] - b0[1]) if b1[1] > b0[1] else None
print(json.dumps({"mtu": int(sys.argv[1]), "round": int(sys.argv[2]), "mode": sys.argv[3], "seconds": int(sys.argv[11]),
                  "gbps": round(float(sys.argv[4]), 4),
                  "relay": sys.argv[5] or None, "relay_agent_cpu_pct": json.loads(sys.argv[8]),
                  "gso_segments_from_tun": int(sys.argv[9]) if sys.argv[3].startswith("agent") else None,
                  "relayed_by_agents": json.loads(sys.argv[10]), "relayed_in_kernel": json.loads(sys.argv[12]),
                  "sent_in_kernel_by_source": json.loads(sys.argv[13]),
                  "box_cpu_busy": round(busy, 3) if busy is not None else None}))' \
        "$mtu" "$round" "$mode" "$gbps" "$relay" "$b0" "$b1" "$cpu" "$gso" "$relayed" "$DURATION" "$krelayed" "$ksent" >> "$runs_file"
      dcnt_log "MTU $mtu round $round $mode: $gbps Gb/s${relay:+ through $relay, relay agent CPU $cpu %}$( [ "$krelayed" != null ] && echo ", $krelayed frames relayed in the kernel")$( [ "$ksent" != null ] && [ "$ksent" != 0 ] && echo ", $ksent sent in h00's kernel")"
    done
  done
}

for mtu in $MTUS; do
  ( one_mtu "$mtu" )
done
/usr/bin/python3 "$here/forwarding_summary.py" "$runs_file" "$out_dir" "$DURATION" "$BUILD" "$load_before" "$ROUNDS" "$MODES"
