#!/usr/bin/env bash
# Forwarding benchmark in the style of the BCube paper's Fig. 9: one relay
# server forwards a TCP transfer (iperf3) between two servers two hops apart
# on BCube_1 (n=2) in network namespaces, first by dcn-agent (DCN header,
# user space: AF_PACKET + TUN) and then, in the same namespaces and over
# the same veths and bridges, by the kernel's IP forwarding (plain IPv4 on
# the port interfaces, ip_forward=1 on the relay). For MTU 1500 and 9000.
#
# Fairness: TSO, GSO, GRO and checksum offloads are turned off on every veth,
# so the kernel path also moves MTU-sized packets with software checksums
# (what the agent's TUN path gets anyway). The relay's CPU is the agent's
# user+system time from /proc over the transfer (kernel forwarding runs in
# softirq context and is not attributed to a process, so it is not given).
#
# Writes results/forwarding/summary.json:
#   {"runs": [{"mtu", "agent_gbps", "kernel_gbps", "ratio", "relay_cpu_pct"}], ...}
# Usage: tests/bench/forwarding.sh BUILD_DIR   (root; takes the namespace lock)
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
DURATION=${DCN_BENCH_SECONDS:-10}
out_dir="$root/results/forwarding"
if [ "$(id -u)" != 0 ]; then echo "forwarding.sh: needs root (network namespaces)" >&2; exit 1; fi
if [ -z "${DCN_BENCH_LOCKED:-}" ]; then
  exec env DCN_BENCH_LOCKED=1 flock /run/dcn-netns.lock "$0" "$@"
fi
mkdir -p "$out_dir"
load_before=$(cut -d' ' -f1 /proc/loadavg)
runs_file=$(mktemp /tmp/dcnt-bench-runs.XXXXXX)
trap 'rm -f "$runs_file"' EXIT

one_mtu() { # runs in a subshell: its own namespaces, agents and cleanup
  local mtu=$1
  DCNT_TOPO="bcube n=2 k=1"
  DCNT_MTU=$mtu
  DCNT_AGENT_ARGS="--hello-ms 1000 --capacity-mbps 100000"
  . "$root/tests/integration/agent_netns_lib.sh"
  dcnt_setup
  # offloads off on every veth (server side and switch side)
  for ns in "${DCNT_NETNS[@]}"; do
    for dev in $(ip -n "$ns" -o link show type veth | awk -F': ' '{print $2}' | cut -d@ -f1); do
      ip netns exec "$ns" ethtool -K "$dev" tso off gso off gro off tx off rx off >/dev/null 2>&1 || true
    done
  done
  dcnt_start_agents
  dcnt_wait_ready 20
  local ip_h11; ip_h11=$(dcnt_ip h11)

  cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
  relayed() { dcnt_ctl "$1" counters --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["counters"]["relayed"])'; }
  gbps_of() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1e9)' "$1"; }

  # --- agent forwarding: h00 -> h11 over dcn0, through h01 or h10
  ip netns exec "$(dcnt_ns h11)" iperf3 -s -p 5401 >/dev/null 2>&1 & DCNT_PIDS+=($!)
  sleep 0.5
  local a01 a10 c01 c10 t0 t1
  a01=$(relayed h01); a10=$(relayed h10)
  c01=$(cpu_ticks "${DCNT_AGENT_PID[h01]}"); c10=$(cpu_ticks "${DCNT_AGENT_PID[h10]}")
  t0=$(date +%s.%N)
  dcnt_in h00 iperf3 -c "$ip_h11" -p 5401 -t "$DURATION" -O 1 -J > "$DCNT_WORK/agent.json"
  t1=$(date +%s.%N)
  local d01 d10 relay cpu
  d01=$(( $(relayed h01) - a01 )); d10=$(( $(relayed h10) - a10 ))
  if [ "$d01" -ge "$d10" ]; then relay=h01; cpu=$(( $(cpu_ticks "${DCNT_AGENT_PID[h01]}") - c01 ));
  else relay=h10; cpu=$(( $(cpu_ticks "${DCNT_AGENT_PID[h10]}") - c10 )); fi
  local relay_cpu; relay_cpu=$(/usr/bin/python3 -c 'import os,sys; print(round(int(sys.argv[1]) / os.sysconf("SC_CLK_TCK") / (float(sys.argv[3]) - float(sys.argv[2])) * 100, 1))' "$cpu" "$t0" "$t1")
  local agent_gbps; agent_gbps=$(gbps_of "$DCNT_WORK/agent.json")
  dcnt_log "MTU $mtu agent: $agent_gbps Gb/s through $relay, relay agent CPU $relay_cpu %"

  # --- kernel forwarding over the same path: h00-eth0 -> s0_0 -> h01 -> s1_1 -> h11-eth1
  ip -n "$(dcnt_ns h00)" addr add 192.168.71.1/24 dev h00-eth0
  ip -n "$(dcnt_ns h01)" addr add 192.168.71.2/24 dev h01-eth0
  ip -n "$(dcnt_ns h01)" addr add 192.168.72.2/24 dev h01-eth1
  ip -n "$(dcnt_ns h11)" addr add 192.168.72.1/24 dev h11-eth1
  ip -n "$(dcnt_ns h00)" route add 192.168.72.0/24 via 192.168.71.2
  ip -n "$(dcnt_ns h11)" route add 192.168.71.0/24 via 192.168.72.2
  ip netns exec "$(dcnt_ns h01)" sysctl -qw net.ipv4.ip_forward=1
  dcnt_in h00 ping -c 2 -i 0.2 -W 2 192.168.72.1 >/dev/null
  dcnt_in h00 iperf3 -c 192.168.72.1 -p 5401 -t "$DURATION" -O 1 -J > "$DCNT_WORK/kernel.json"
  local kernel_gbps; kernel_gbps=$(gbps_of "$DCNT_WORK/kernel.json")
  dcnt_log "MTU $mtu kernel IP forwarding: $kernel_gbps Gb/s"
  /usr/bin/python3 -c 'import json,sys
a, k = float(sys.argv[2]), float(sys.argv[3])
print(json.dumps({"mtu": int(sys.argv[1]), "agent_gbps": round(a, 3), "kernel_gbps": round(k, 3),
                  "ratio": round(a / k, 3) if k else None, "relay_cpu_pct": float(sys.argv[4]), "relay": sys.argv[5]}))' \
    "$mtu" "$agent_gbps" "$kernel_gbps" "$relay_cpu" "$relay" >> "$runs_file"
}

for mtu in 1500 9000; do
  ( one_mtu "$mtu" )
done
/usr/bin/python3 - "$runs_file" "$out_dir/summary.json" "$DURATION" "$BUILD" "$load_before" <<'PY'
import json, os, subprocess, sys, time
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
for r in runs:
    print("MTU %5d  agent %.3f Gb/s  kernel %.3f Gb/s  ratio %s  relay CPU %.1f %%" %
          (r["mtu"], r["agent_gbps"], r["kernel_gbps"], r["ratio"], r["relay_cpu_pct"]))
doc = {
    "runs": runs,
    "setup": {
        "topology": "bcube n=2 k=1, h00 -> h11 through one relay server, namespaces + veth + Linux bridges",
        "traffic": "one iperf3 TCP flow, %s s (first second omitted)" % sys.argv[3],
        "offloads": "tso, gso, gro, tx and rx checksum off on every veth",
        "agent": "dcn-agent from %s (CMAKE_BUILD_TYPE of that tree), AF_PACKET recvmmsg/sendmmsg + TUN, one libev thread" % sys.argv[4],
        "kernel": "same namespaces, veths and bridges; IPv4 on the port interfaces, ip_forward=1 on the relay",
        "relay_cpu_pct": "user+system time of the relay's dcn-agent over the transfer, percent of one core",
        "cpus": os.cpu_count(),
        "loadavg_1min_before": float(sys.argv[5]),
        "loadavg_1min_after": os.getloadavg()[0],
        "note": "the machine is shared: other benchmarks and tests may run at the same time, see the load averages",
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    },
}
json.dump(doc, open(sys.argv[2], "w"), indent=2)
print("wrote", sys.argv[2])
PY
