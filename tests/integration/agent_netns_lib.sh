# Shared by the agent's namespace tests and the forwarding benchmark:
# builds a topology of the library in network namespaces (one per server,
# one "dcnt-sw" holding a Linux bridge per switch), starts one dcn-agent per
# server and removes everything on exit. Every name starts with the prefix
# "dcnt"; processes are killed by PID. Source it, then call dcnt_setup.
#
# Caller sets: BUILD (build dir), DCNT_TOPO ("bcube n=2 k=1"), optional
# DCNT_AGENT_ARGS (extra dcn-agent options), DCNT_MTU (link MTU, 1500).

DCNT_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DCNT_PREFIX="dcnt-$$" # unique per run: a stale namespace of a killed run never blocks a new one
DCNT_WORK=""
DCNT_PIDS=()
declare -A DCNT_AGENT_PID
DCNT_NETNS=()

dcnt_log() { echo "[$(date +%H:%M:%S.%3N)] $*"; }

dcnt_cleanup() {
  local rc=$?
  for p in "${DCNT_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${DCNT_PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$p" 2>/dev/null || true
  done
  for ns in "${DCNT_NETNS[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  # The agents of a sanitized build (make test runs these tests on build-test)
  # write AddressSanitizer, LeakSanitizer (at exit, after SIGTERM) and
  # UndefinedBehaviorSanitizer reports into their logs, and the system-call
  # filter a refused call (os/syscall_filter.h): any report fails the test.
  if [ -n "$DCNT_WORK" ] && [ -d "$DCNT_WORK" ]; then
    local bad
    # DCNT_SANITIZER_SELF_CHECK=1: a fake report, to see this check fail a test
    if [ -n "${DCNT_SANITIZER_SELF_CHECK:-}" ]; then echo "x.c:1:1: runtime error: self check" >> "$DCNT_WORK/self-check.log"; fi
    bad=$(grep -l -E "ERROR: (Address|Leak)Sanitizer|runtime error:|system call [0-9]+ denied" "$DCNT_WORK"/*.log 2>/dev/null || true)
    if [ -n "$bad" ]; then
      echo "sanitizer report in agent logs:" >&2
      for f in $bad; do echo "== $f" >&2; grep -m 20 -A 12 -E "ERROR: (Address|Leak)Sanitizer|runtime error:|system call [0-9]+ denied" "$f" >&2; done
      rc=1
    fi
  fi
  if [ -n "$DCNT_WORK" ] && [ -z "${DCNT_KEEP:-}" ]; then rm -rf "$DCNT_WORK"; fi
  exit $rc # the trap's exit status is the test's
}

dcnt_ns() { echo "${DCNT_PREFIX}-$1"; }

# Runs a command in a server's namespace.
dcnt_in() { local s=$1; shift; ip netns exec "$(dcnt_ns "$s")" "$@"; }

dcnt_ctl() { local s=$1; shift; "$BUILD/agent/src/agent/dcn-ctl" -s "$DCNT_WORK/$s.sock" "$@"; }

# One named counter of a server's agent (dcn-ctl counters).
dcnt_counter() { dcnt_counters "$1" "$2"; }
# Several counters of server $1, named after it, on one line in that order.
dcnt_counters() {
  local s=$1; shift
  dcnt_ctl "$s" counters --json | /usr/bin/python3 -c 'import json,sys
c = json.load(sys.stdin)["counters"]; print(" ".join(str(c[n]) for n in sys.argv[1:]))' "$@"
}
# How many BPF programs are attached at TCX ingress (or egress, $3) of
# interface $2 in server $1's namespace (tcx_progs.py).
dcnt_tcx() { dcnt_in "$1" /usr/bin/python3 "$DCNT_LIB_DIR/tcx_progs.py" "$2" "${3:-ingress}"; }

# User + system CPU ticks of a process so far (/proc/PID/stat).
dcnt_cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# "FAIL: message", the last lines of every agent's log, exit 1.
dcnt_fail() { echo "FAIL: $*"; for s in "${DCNT_SERVERS[@]:-}"; do [ -n "$s" ] && { echo "--- $s"; tail -5 "$DCNT_WORK/$s.log" || true; }; done; exit 1; }

dcnt_ip() { # server name -> IPv4 (10.0.0.0 + id + 1)
  local id; id=$(/usr/bin/python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print([s["id"] for s in d["servers"] if s["name"]==sys.argv[2]][0])' "$DCNT_WORK/topo.json" "$1")
  local v=$((0x0A000001 + id))
  echo "$((v >> 24 & 255)).$((v >> 16 & 255)).$((v >> 8 & 255)).$((v & 255))"
}

dcnt_setup() {
  DCNT_WORK=$(mktemp -d /tmp/dcnt.XXXXXX)
  trap dcnt_cleanup EXIT
  trap 'exit 130' INT TERM
  local mtu=${DCNT_MTU:-1500}
  "$BUILD/agent/src/cli/dcn-topo" export $DCNT_TOPO > "$DCNT_WORK/topo.json"
  mapfile -t DCNT_SERVERS < <(/usr/bin/python3 -c 'import json,sys
for s in json.load(open(sys.argv[1]))["servers"]: print(s["name"])' "$DCNT_WORK/topo.json")
  mapfile -t switches < <(/usr/bin/python3 -c 'import json,sys
for s in json.load(open(sys.argv[1]))["switches"]: print(s["name"])' "$DCNT_WORK/topo.json")
  local sw; sw=$(dcnt_ns sw)
  ip netns add "$sw"; DCNT_NETNS+=("$sw")
  ip -n "$sw" link set lo up
  local i=0
  declare -gA DCNT_BR
  for s in "${switches[@]}"; do
    DCNT_BR[$s]="br$i"; i=$((i+1))
    ip -n "$sw" link add "${DCNT_BR[$s]}" type bridge forward_delay 0 stp_state 0
    ip -n "$sw" link set "${DCNT_BR[$s]}" up
  done
  for s in "${DCNT_SERVERS[@]}"; do
    local ns; ns=$(dcnt_ns "$s")
    ip netns add "$ns"; DCNT_NETNS+=("$ns")
    ip -n "$ns" link set lo up
  done
  local j=0
  declare -gA DCNT_PEER  # server interface -> its peer veth in the switch namespace
  declare -gA DCNT_FIBER # "switchA switchB" (both orders) -> one veth of that fiber, in the switch namespace
  while read -r a ap b bp kind; do
    if [ "$kind" = server-switch ]; then
      local peer="v$j"; j=$((j+1))
      ip link add "$a-eth$ap" mtu "$mtu" netns "$(dcnt_ns "$a")" type veth peer name "$peer" mtu "$mtu" netns "$sw"
      ip -n "$sw" link set "$peer" master "${DCNT_BR[$b]}" up
      DCNT_PEER[$a-eth$ap]=$peer
      ip -n "$(dcnt_ns "$a")" link set "$a-eth$ap" up
    elif [ "$kind" = server-server ]; then
      ip link add "$a-eth$ap" mtu "$mtu" netns "$(dcnt_ns "$a")" type veth peer name "$b-eth$bp" mtu "$mtu" netns "$(dcnt_ns "$b")"
      ip -n "$(dcnt_ns "$a")" link set "$a-eth$ap" up
      ip -n "$(dcnt_ns "$b")" link set "$b-eth$bp" up
    elif [ "$kind" = switch-switch ]; then # an MDCube fiber: a veth between two bridges
      local pa="v$j" pb="v$((j+1))"; j=$((j+2))
      ip -n "$sw" link add "$pa" mtu "$mtu" type veth peer name "$pb" mtu "$mtu"
      ip -n "$sw" link set "$pa" master "${DCNT_BR[$a]}" up
      ip -n "$sw" link set "$pb" master "${DCNT_BR[$b]}" up
      DCNT_FIBER["$a $b"]=$pa; DCNT_FIBER["$b $a"]=$pa
    else
      echo "dcnt_setup: link kind $kind not supported" >&2; return 1
    fi
  done < <(/usr/bin/python3 -c 'import json,sys
for l in json.load(open(sys.argv[1]))["links"]:
    kind = l.get("kind", "")
    print(l["a"], l["a_port"], l["b"], l["b_port"], kind)' "$DCNT_WORK/topo.json")
}

# Starts the agent of server s (background, PID recorded); extra
# arguments go to that agent only.
dcnt_start_agent() {
  local s=$1; shift
  # ip netns exec execs the agent, so $! is the agent's own PID (a shell
  # function here would put a subshell in between)
  ip netns exec "$(dcnt_ns "$s")" "$BUILD/agent/src/agent/dcn-agent" --topo "$DCNT_TOPO" --name "$s" --foreground \
    --ctl "$DCNT_WORK/$s.sock" --mtu "${DCNT_MTU:-1500}" --log "$DCNT_WORK/$s.log" ${DCNT_AGENT_ARGS:-} "$@" &
  DCNT_AGENT_PID[$s]=$!
  DCNT_PIDS+=($!)
}

dcnt_start_agents() { for s in "${DCNT_SERVERS[@]}"; do dcnt_start_agent "$s"; done; }

# Waits until every agent reports ready (all neighbours heard), or fails.
dcnt_wait_ready() {
  local timeout=${1:-15} t0=$SECONDS
  for s in "${DCNT_SERVERS[@]}"; do
    while true; do
      if dcnt_ctl "$s" status --json 2>/dev/null | grep -q '"ready":true'; then break; fi
      if [ $((SECONDS - t0)) -ge "$timeout" ]; then
        echo "agent $s not ready after ${timeout}s" >&2; dcnt_ctl "$s" neighbors >&2 || cat "$DCNT_WORK/$s.log" >&2
        return 1
      fi
      sleep 0.1
    done
  done
}

# Kills one agent by PID.
dcnt_kill_agent() { local s=$1; kill "${DCNT_AGENT_PID[$s]}"; }

# The whole bring-up: dcnt_setup, every agent started, all ready within
# $1 seconds (15), else "FAIL" and exit 1.
dcnt_up() {
  dcnt_setup
  dcnt_start_agents
  dcnt_wait_ready "${1:-15}" || { echo "FAIL: $DCNT_TOPO: agents not ready"; exit 1; }
}

# One-shot iperf3 servers (iperf3 -s -1) in server $1's namespace, one per
# port $2...; killed at exit if still running.
dcnt_iperf_servers() {
  local s=$1 p; shift
  for p in "$@"; do
    ip netns exec "$(dcnt_ns "$s")" iperf3 -s -1 -p "$p" >/dev/null 2>&1 & DCNT_PIDS+=($!)
  done
}

# Reads `dcn-ctl flows --json` on stdin; prints, for each port $1..., the
# busiest TCP flow to it as one line of JSON, or null if none. iperf3's data
# connection to a port is its busiest flow (its control connection to the
# same port stays quiet).
dcnt_busiest_tcp() {
  /usr/bin/python3 -c '
import json, sys
busiest = {}
for f in json.load(sys.stdin)["flows"]:
    if f["proto"] == 6 and (f["dport"] not in busiest or f["rate_mbps"] > busiest[f["dport"]]["rate_mbps"]):
        busiest[f["dport"]] = f
for p in sys.argv[1:]:
    print(json.dumps(busiest.get(int(p))))' "$@"
}
# Which relay carries a transfer from h00 to h11 on BCube_1 (n=2), by the
# frames relayed in its kernel over 1 s: sets DCNT_RELAY, DCNT_OTHER and
# DCNT_RELAY_OUT (the relay's port towards h11: h01 reaches it on level 1,
# h10 on level 0). For the kernel data path's tests.
dcnt_kernel_relay_carrying() {
  local k01 k10
  k01=$(dcnt_counter h01 relayed_in_kernel); k10=$(dcnt_counter h10 relayed_in_kernel)
  sleep 1
  k01=$(( $(dcnt_counter h01 relayed_in_kernel) - k01 )); k10=$(( $(dcnt_counter h10 relayed_in_kernel) - k10 ))
  if [ "$k01" -ge "$k10" ]; then DCNT_RELAY=h01 DCNT_OTHER=h10 DCNT_RELAY_OUT=h01-eth1
  else DCNT_RELAY=h10 DCNT_OTHER=h01 DCNT_RELAY_OUT=h10-eth0; fi
  dcnt_log "relay carrying the transfer: $DCNT_RELAY (frames relayed in its kernel in 1 s: h01=$k01 h10=$k10)"
}
