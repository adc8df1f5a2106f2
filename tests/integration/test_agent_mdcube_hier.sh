#!/usr/bin/env bash
# MDCube hierarchical routing in network namespaces (the paper's Fig. 11 on
# its 1-D testbed of 5 BCube_1 n=2 containers, fast hellos): a UDP stream
# from h3_11 to h4_00 on a jump through a relay container c.
#  1. The cable between the entry server of c and its switch on the fibre is
#     cut: the stream goes on, the source's jump does not change (it is not
#     told), and the segment is rerouted inside the containers.
#  2. The fibre from c to container 4 is cut: a server of c sends
#     "destination unreachable", the source draws another jump (another
#     container), and the stream goes on.
# run.sh holds /run/dcn-netns.lock around this script.
# Usage: test_agent_mdcube_hier.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "${1:?usage: test_agent_mdcube_hier.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
DCNT_TOPO="mdcube n=2 k=1 m=5"
# the agents' own data path: every frame through the agents
DCNT_AGENT_ARGS="--hello-ms 100 --data-path agent"
. "$here/agent_netns_lib.sh"
dcnt_up 30
sw=$(dcnt_ns sw)
PY=/usr/bin/python3

# the receiver: one line per datagram (ip netns exec, not the dcnt_in
# function: $! must be the receiver's own PID, for the cleanup)
ip netns exec "$(dcnt_ns h4_00)" $PY -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("0.0.0.0", 9000))
with open(sys.argv[1], "w", buffering=1) as f:
    while True:
        d, a = s.recvfrom(2048); f.write("%.3f %d %s\n" % (time.time(), a[1], d[:12].decode()))
' "$DCNT_WORK/rx.txt" &
DCNT_PIDS+=($!)
sleep 0.5

seg_json() { dcnt_ctl "$1" segments --json; }
# the source's segment entry for sport $1 (by the flow's jump): prints "jump containers"
src_entry() {
  seg_json h3_11 | $PY -c '
import json, sys
d = json.load(sys.stdin)
fl = [s for s in d["segments"] if s["source"] and s["dst"] == "h4_00"]
fl.sort(key=lambda s: s["age_s"])
s = fl[0]
print(s["jump"], ",".join(map(str, s["containers"])) or "-", s["jumps"])'
}
send() { # sport count interval tag (exec: in the background $! is the sender)
  exec ip netns exec "$(dcnt_ns h3_11)" $PY -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("0.0.0.0", int(sys.argv[1])))
for i in range(int(sys.argv[2])):
    s.sendto(("%s%06d" % (sys.argv[4], i)).encode(), (sys.argv[5], 9000)); time.sleep(float(sys.argv[3]))
' "$1" "$2" "$3" "$4" "$(dcnt_ip h4_00)"
}

# 1. a flow through a relay container
sport=""; relay_c=""
for p in $(seq 20000 20030); do
  (send "$p" 1 0 probe)
  sleep 0.05
  read -r jump conts _ < <(src_entry)
  if [ "$conts" != "-" ]; then sport=$p; relay_c=$conts; break; fi
done
[ -n "$sport" ] || { echo "FAIL: no flow drew a relay container in 31 tries"; exit 1; }
read -r jump0 conts0 jumps0 < <(src_entry)
dcnt_log "flow sport $sport: jump $jump0 through container $relay_c"

# the entry server of the relay container: the owner of its segment there
owners=$(for s in h${relay_c}_00 h${relay_c}_01 h${relay_c}_10 h${relay_c}_11; do
  seg_json "$s" | $PY -c '
import json, sys
d = json.load(sys.stdin)
print(*[sys.argv[1] for s in d["segments"] if s["src"] == "h3_11" and s["dst"] == "h4_00" and not s["source"]])' "$s"
done)
owner=${owners%%[[:space:]]*}
[ -n "$owner" ] || { echo "FAIL: no server of container $relay_c owns a segment of the flow"; exit 1; }
# the switch of the fibre it was entered by: the one before it on the source's segment
entry_sw=$(seg_json h3_11 | $PY -c '
import json, sys
d = json.load(sys.stdin)
s = [s for s in d["segments"] if s["source"] and s["dst"] == "h4_00"]
s.sort(key=lambda s: s["age_s"]); seg = s[0]["segment"]
print(seg[-2])')
port=$($PY -c '
import json, sys
t = json.load(open(sys.argv[1]))
ids = {n["name"]: n["id"] for n in t["servers"] + t["switches"]}
for l in t["links"]:
    if {l["a"], l["b"]} == {sys.argv[2], sys.argv[3]}:
        print(l["a_port"] if l["a"] == sys.argv[2] else l["b_port"])' "$DCNT_WORK/topo.json" "$owner" "$entry_sw")
dcnt_log "entry server $owner via $entry_sw (its port $port)"

# a stream of 60 s at 50 packets/s with both cuts in it
(send "$sport" 900 0.02 main) &
sender=$!
DCNT_PIDS+=($sender)
sleep 2
dcnt_log "cut $owner - $entry_sw"
ip -n "$sw" link set "${DCNT_PEER[$owner-eth$port]}" down
sleep 4
read -r jump1 conts1 jumps1 < <(src_entry)
dcnt_log "after the inner cut: jump $jump1 containers $conts1 (jumps drawn $jumps1)"
[ "$jump1" = "$jump0" ] && [ "$jumps1" = "$jumps0" ] \
  || { echo "FAIL: the source changed its jump after an inner failure ($jump0 -> $jump1)"; exit 1; }
unreach_before=$(dcnt_counter h3_11 unreach_rx)
[ "$unreach_before" = 0 ] || { echo "FAIL: the source was told of an inner failure"; exit 1; }

# 2. the fibre from the relay container to container 4
fib_sw=$($PY -c '
import json, sys
t = json.load(open(sys.argv[1]))
for l in t["links"]:
    if l.get("kind") == "switch-switch" and {l["a"][1], l["b"][1]} == {sys.argv[2], "4"}:
        print(l["a"], l["b"])' "$DCNT_WORK/topo.json" "$relay_c")
dcnt_log "cut fibre $fib_sw"
ip -n "$sw" link set "${DCNT_FIBER[$fib_sw]}" down
sleep 4
read -r jump2 conts2 jumps2 < <(src_entry)
dcnt_log "after the fibre cut: jump $jump2 containers $conts2 (jumps drawn $jumps2)"
unreach=$(dcnt_counter h3_11 unreach_rx)
[ "$unreach" -ge 1 ] || { echo "FAIL: no destination-unreachable reached the source"; exit 1; }
[ "$jump2" != "$jump0" ] && [ "$conts2" != "$relay_c" ] \
  || { echo "FAIL: the source kept a jump through the cut fibre"; exit 1; }
sent_by=0
for s in h${relay_c}_00 h${relay_c}_01 h${relay_c}_10 h${relay_c}_11; do
  n=$(dcnt_counter "$s" unreach_tx)
  sent_by=$((sent_by + n))
done
[ "$sent_by" -ge 1 ] || { echo "FAIL: the unreachable message did not come from container $relay_c"; exit 1; }
wait "$sender"
sleep 0.5
# the stream: what arrived before, between and after the cuts
$PY - "$DCNT_WORK/rx.txt" <<'PYEOF' || exit 1
import sys
rows = [l.split() for l in open(sys.argv[1])]
t = sorted(float(r[0]) for r in rows if r[2].startswith("main"))
n = len(t)
gaps = [b - a for a, b in zip(t, t[1:])]
big = sorted(gaps)[-2:] if len(gaps) >= 2 else gaps
print("received %d of 900; two longest gaps %s s" % (n, ", ".join("%.2f" % g for g in big)))
if n < 800:
    sys.exit("FAIL: the stream lost more than 100 of 900 packets")
if max(gaps) > 2.5:
    sys.exit("FAIL: a gap longer than 2.5 s (fast hellos detect in 0.3 s)")
PYEOF
echo "PASS: test_agent_mdcube_hier"
