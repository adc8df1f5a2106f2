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
#                      agent:--relay-copy=on agent:--rx-ring=1024
#                      agent:--tun-offload=off kernel");
#                      a mode "agent:OPTS" runs the agents with extra
#                      options (the agents are restarted when the options
#                      change)
#   DCN_BENCH_OUT      output folder (results/forwarding)
# Writes OUT/summary.json, OUT/runs.csv and OUT/ratios.png.
# Usage: tests/bench/forwarding.sh BUILD_DIR   (root; takes the namespace lock)
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
DURATION=${DCN_BENCH_SECONDS:-5}
ROUNDS=${DCN_BENCH_ROUNDS:-5}
MTUS=${DCN_BENCH_MTUS:-1500 9000}
MODES=${DCN_BENCH_MODES:-agent agent:--relay-copy=on agent:--rx-ring=1024 agent:--tun-offload=off kernel}
out_dir=${DCN_BENCH_OUT:-$root/results/forwarding}
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
  DCNT_AGENT_ARGS="--hello-ms 1000 --capacity-mbps 100000"
  . "$root/tests/integration/agent_netns_lib.sh"
  dcnt_setup
  # offloads off on every veth (server side and switch side)
  for ns in "${DCNT_NETNS[@]}"; do
    for dev in $(ip -n "$ns" -o link show type veth | awk -F': ' '{print $2}' | cut -d@ -f1); do
      ip netns exec "$ns" ethtool -K "$dev" tso off gso off gro off tx off rx off >/dev/null 2>&1 || true
    done
  done
  local ip_h11; ip_h11=$(dcnt_ip h11)
  # kernel forwarding over h00-eth0 -> s0_0 -> h01 -> s1_1 -> h11-eth1, beside the agents
  ip -n "$(dcnt_ns h00)" addr add 192.168.71.1/24 dev h00-eth0
  ip -n "$(dcnt_ns h01)" addr add 192.168.71.2/24 dev h01-eth0
  ip -n "$(dcnt_ns h01)" addr add 192.168.72.2/24 dev h01-eth1
  ip -n "$(dcnt_ns h11)" addr add 192.168.72.1/24 dev h11-eth1
  ip -n "$(dcnt_ns h00)" route add 192.168.72.0/24 via 192.168.71.2
  ip -n "$(dcnt_ns h11)" route add 192.168.71.0/24 via 192.168.72.2
  ip netns exec "$(dcnt_ns h01)" sysctl -qw net.ipv4.ip_forward=1
  ip netns exec "$(dcnt_ns h11)" iperf3 -s -p 5401 >/dev/null 2>&1 & DCNT_PIDS+=($!)

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
  sleep 0.5
  dcnt_in h00 ping -c 2 -i 0.2 -W 2 192.168.72.1 >/dev/null

  local round mode opts
  for round in $(seq 1 "$ROUNDS"); do
    for mode in $MODES; do
      opts=""
      case $mode in agent:*) opts=${mode#agent:} ;; esac
      local b0 b1 t0 t1 gbps relay="" cpu="null" gso=0 target
      if [ "$mode" = kernel ]; then
        target=192.168.72.1
      else
        target=$ip_h11
        if [ "$started" = 0 ] || [ "$opts" != "$agent_opts" ]; then restart_agents "$opts"; fi
        local a01 a10 c01 c10 g0
        a01=$(dcnt_counter h01 relayed); a10=$(dcnt_counter h10 relayed); g0=$(dcnt_counter h00 tun_gso_in)
        c01=$(dcnt_cpu_ticks "${DCNT_AGENT_PID[h01]}"); c10=$(dcnt_cpu_ticks "${DCNT_AGENT_PID[h10]}")
      fi
      b0=$(box_busy); t0=$(date +%s.%N)
      dcnt_in h00 iperf3 -c "$target" -p 5401 -t "$DURATION" -O 1 -J > "$DCNT_WORK/run.json"
      t1=$(date +%s.%N); b1=$(box_busy)
      gbps=$(gbps_of "$DCNT_WORK/run.json")
      if [ "$mode" != kernel ]; then
        local d01 d10 ticks
        d01=$(( $(dcnt_counter h01 relayed) - a01 )); d10=$(( $(dcnt_counter h10 relayed) - a10 ))
        if [ "$d01" -ge "$d10" ]; then relay=h01; ticks=$(( $(dcnt_cpu_ticks "${DCNT_AGENT_PID[h01]}") - c01 ));
        else relay=h10; ticks=$(( $(dcnt_cpu_ticks "${DCNT_AGENT_PID[h10]}") - c10 )); fi
        cpu=$(/usr/bin/python3 -c 'import os,sys; print(round(int(sys.argv[1]) / os.sysconf("SC_CLK_TCK") / (float(sys.argv[3]) - float(sys.argv[2])) * 100, 1))' "$ticks" "$t0" "$t1")
        gso=$(( $(dcnt_counter h00 tun_gso_in) - g0 ))
      fi
      /usr/bin/python3 -c 'import json,sys
b0, b1 = [list(map(float, x.split())) for x in sys.argv[6:8]]
busy = (b1[0] - b0[0]) / (b1[1] - b0[1]) if b1[1] > b0[1] else None
print(json.dumps({"mtu": int(sys.argv[1]), "round": int(sys.argv[2]), "mode": sys.argv[3], "gbps": round(float(sys.argv[4]), 4),
                  "relay": sys.argv[5] or None, "relay_agent_cpu_pct": json.loads(sys.argv[8]),
                  "gso_segments_from_tun": int(sys.argv[9]) if sys.argv[3] != "kernel" else None,
                  "box_cpu_busy": round(busy, 3) if busy is not None else None}))' \
        "$mtu" "$round" "$mode" "$gbps" "$relay" "$b0" "$b1" "$cpu" "$gso" >> "$runs_file"
      dcnt_log "MTU $mtu round $round $mode: $gbps Gb/s${relay:+ through $relay, relay agent CPU $cpu %}"
    done
  done
}

for mtu in $MTUS; do
  ( one_mtu "$mtu" )
done
/usr/bin/python3 - "$runs_file" "$out_dir" "$DURATION" "$BUILD" "$load_before" "$ROUNDS" "$MODES" <<'PY'
import csv, json, os, statistics, subprocess, sys, time
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
out, modes = sys.argv[2], sys.argv[7].split()
agent_modes = [m for m in modes if m != "kernel"]
GOAL = 0.8
per_mtu = []
for mtu in sorted({r["mtu"] for r in runs}):
    rs = [r for r in runs if r["mtu"] == mtu]
    row = {"mtu": mtu, "rounds": max(r["round"] for r in rs)}
    for m in modes:
        g = [r["gbps"] for r in rs if r["mode"] == m]
        row[m] = {"median_gbps": round(statistics.median(g), 3), "min_gbps": round(min(g), 3), "max_gbps": round(max(g), 3),
                  "median_box_cpu_busy": round(statistics.median(r["box_cpu_busy"] for r in rs if r["mode"] == m), 3)}
        if m != "kernel":
            row[m]["median_relay_agent_cpu_pct"] = statistics.median(r["relay_agent_cpu_pct"] for r in rs if r["mode"] == m)
    if "kernel" in modes:
        for m in agent_modes:
            ratios = []
            for rd in range(1, row["rounds"] + 1):
                a = [r["gbps"] for r in rs if r["mode"] == m and r["round"] == rd]
                k = [r["gbps"] for r in rs if r["mode"] == "kernel" and r["round"] == rd]
                if a and k and k[0] > 0:
                    ratios.append(a[0] / k[0])
            row[m]["ratio_to_kernel"] = {"median": round(statistics.median(ratios), 3), "min": round(min(ratios), 3),
                                         "max": round(max(ratios), 3), "per_round": [round(x, 3) for x in ratios]}
            row[m]["meets_goal"] = statistics.median(ratios) >= GOAL
    per_mtu.append(row)
for row in per_mtu:
    for m in agent_modes:
        r = row[m].get("ratio_to_kernel")
        print("MTU %5d  %-24s median %.3f Gb/s  kernel %.3f Gb/s  ratio median %.3f (min %.3f, max %.3f over %d rounds)  %s" % (
            row["mtu"], m, row[m]["median_gbps"], row["kernel"]["median_gbps"] if "kernel" in row else float("nan"),
            r["median"], r["min"], r["max"], row["rounds"], "meets 0.8" if row[m]["meets_goal"] else "BELOW 0.8"))
try:
    commit = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(out)), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(out)), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True).stdout.strip())
except OSError:
    commit, dirty = "", False
doc = {
    "benchmark": "forwarding",
    "goal": "agent >= %.1f x kernel IP forwarding, median over alternating rounds, at MTU 1500 and 9000" % GOAL,
    "summary": per_mtu,
    "runs": runs,
    "setup": {
        "topology": "bcube n=2 k=1, h00 -> h11 through one relay server, namespaces + veth + Linux bridges",
        "traffic": "one iperf3 TCP flow per run, %s s (first second omitted)" % sys.argv[3],
        "order": "rounds of modes %s, alternating in one run; %s rounds per MTU" % (" ".join(modes), sys.argv[6]),
        "offloads": "tso, gso, gro, tx and rx checksum off on every veth; the agent's TUN takes 64 KB TCP segments unless --tun-offload off",
        "agent": "dcn-agent from the build tree %s (Release unless said), AF_PACKET recvmmsg/sendmmsg + TUN, one libev thread" % os.path.basename(sys.argv[4]),
        "kernel": "same namespaces, veths and bridges; IPv4 on the port interfaces, ip_forward=1 on the relay",
        "relay_agent_cpu_pct": "user+system time of the relay's dcn-agent over the transfer, percent of one core",
        "box_cpu_busy": "fraction of both cores busy over the transfer (/proc/stat)",
        "cpus": os.cpu_count(),
        "loadavg_1min_before": float(sys.argv[5]),
        "loadavg_1min_after": os.getloadavg()[0],
        "commit": commit, "repo_modified": dirty,
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    },
}
json.dump(doc, open(os.path.join(out, "summary.json"), "w"), indent=2)
with open(os.path.join(out, "runs.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(runs[0].keys()))
    w.writeheader()
    w.writerows(runs)
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(per_mtu), figsize=(5 * len(per_mtu), 3.6), squeeze=False)
    for ax, row in zip(axes[0], per_mtu):
        for m in modes:
            xs = [r["round"] for r in runs if r["mtu"] == row["mtu"] and r["mode"] == m]
            ys = [r["gbps"] for r in runs if r["mtu"] == row["mtu"] and r["mode"] == m]
            ax.plot(xs, ys, "o-", label=m)
        ax.set_title("MTU %d" % row["mtu"])
        ax.set_xlabel("round (modes alternate within a round)")
        ax.set_xticks(range(1, row["rounds"] + 1))
        ax.set_ylabel("Gb/s through one relay")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "ratios.png"), dpi=110)
except ImportError:
    print("matplotlib missing: no plot")
print("wrote", os.path.join(out, "summary.json"))
PY
