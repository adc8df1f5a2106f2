#!/usr/bin/env bash
# BSR's placement on an idle BCube_1 (n=2), before any periodic re-selection:
#  - a flow to a same-switch neighbour takes the one-hop path;
#  - two iperf3 clients h00 -> h11 (each a control and a data connection)
#    put their data connections on different parallel paths within 2 s,
#    whether they start together or one after the other.
# run.sh holds /run/dcn-netns.lock around this script.
# Usage: test_agent_flow_order.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "${1:?usage: test_agent_flow_order.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
DCNT_TOPO="bcube n=2 k=1"
# the agents' own data path: every packet through path selection
DCNT_AGENT_ARGS="--hello-ms 100 --capacity-mbps 1000 --data-path agent"
. "$here/agent_netns_lib.sh"
fail() { echo "FAIL: $*"; exit 1; }

dcnt_up 15

# one hop to a same-switch neighbour
dcnt_in h00 ping -n -q -c 3 -i 0.2 "$(dcnt_ip h01)" >/dev/null || fail "ping h00 -> h01"
hops=$(dcnt_ctl h00 flows --json | /usr/bin/python3 -c '
import json, sys
ip = sys.argv[1]
print([len(f["path"]) for f in json.load(sys.stdin)["flows"] if f["dst"] == ip and f["proto"] == 1])' "$(dcnt_ip h01)")
[ "$hops" = "[3]" ] || fail "h00 -> h01 does not take the one-hop path (node counts $hops)"
echo "ok: h00 -> h01 on the one-hop path"

ip_h11=$(dcnt_ip h11)
check_apart() { # $1: label; the data connection of each port is the busiest flow to it
  dcnt_ctl h00 flows --json | dcnt_busiest_tcp 5301 5302 | /usr/bin/python3 -c '
import json, sys
a, b = (json.loads(l) for l in sys.stdin)
if not a or not b:
    sys.exit("incomplete: %s %s" % (a, b))
print(" ".join(a["path"]), "|", " ".join(b["path"]))
sys.exit(0 if a["path"][1] != b["path"][1] else "same first hop")' || fail "$1: data connections not apart"
}
round() { # $1: label, $2: gap in seconds between the two clients
  local c1 c2
  dcnt_iperf_servers h11 5301 5302
  sleep 0.5
  dcnt_in h00 iperf3 -c "$ip_h11" -p 5301 -t 5 >/dev/null 2>&1 & c1=$!; DCNT_PIDS+=($c1)
  sleep "$2"
  dcnt_in h00 iperf3 -c "$ip_h11" -p 5302 -t 5 >/dev/null 2>&1 & c2=$!; DCNT_PIDS+=($c2)
  sleep 2
  dcnt_log "$1: $(check_apart "$1")"
  wait $c1 || fail "$1: client 1 failed"
  wait $c2 || fail "$1: client 2 failed"
  sleep 1.5  # the agents forget nothing this fast; new source ports make new flows
}
round "together" 0
round "one after the other" 1
echo "PASS: test_agent_flow_order"
