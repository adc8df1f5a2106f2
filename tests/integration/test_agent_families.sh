#!/usr/bin/env bash
# The one NHA scheme on the wire beyond BCube: DCell (direct server-server
# cables, index 63) and MDCube (switch-to-switch fibers, index f + q), in
# network namespaces. Every agent must become ready (hellos from every
# neighbour, including the servers across a fiber) and every server must
# reach every other server by ping over the paths BSR picks.
# run.sh holds /run/dcn-netns.lock around this script.
# Usage: test_agent_families.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "${1:?usage: test_agent_families.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)

one_family() { # in a subshell: own namespaces and cleanup
  DCNT_TOPO=$1
  # the agents' own data path: every frame through the agents
  DCNT_AGENT_ARGS="--hello-ms 100 --data-path agent"
  . "$here/agent_netns_lib.sh"
  dcnt_up 20
  local n=0 bad=0 a b pids=()
  # every source pings every other server from one shell in its namespace,
  # the sources side by side; each writes the pairs that did not answer
  for a in "${DCNT_SERVERS[@]}"; do
    local dsts=()
    for b in "${DCNT_SERVERS[@]}"; do
      [ "$a" = "$b" ] || { dsts+=("$b=$(dcnt_ip "$b")"); n=$((n+1)); }
    done
    dcnt_in "$a" bash -c '
      a=$1; shift
      for d in "$@"; do
        # one retry: the very first packet of a flow may race the probes
        ping -c 1 -W 2 "${d#*=}" >/dev/null 2>&1 || ping -c 1 -W 2 "${d#*=}" >/dev/null 2>&1 \
          || echo "no reply $a -> ${d%%=*}"
      done' _ "$a" "${dsts[@]}" >"$DCNT_WORK/noreply.$a" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  cat "$DCNT_WORK"/noreply.*
  bad=$(cat "$DCNT_WORK"/noreply.* | wc -l)
  # full-size packets (dcn0's MTU, don't fragment) fit the links with the header
  local a=${DCNT_SERVERS[0]} b=${DCNT_SERVERS[${#DCNT_SERVERS[@]}-1]} mtu
  mtu=$(dcnt_in "$a" cat /sys/class/net/dcn0/mtu)
  dcnt_in "$a" ping -c 2 -i 0.2 -W 2 -M do -s $((mtu - 28)) "$(dcnt_ip "$b")" >/dev/null \
    || { echo "FAIL: $DCNT_TOPO: full-size ping (dcn0 MTU $mtu) $a -> $b"; exit 1; }
  local drops; drops=$(for s in "${DCNT_SERVERS[@]}"; do dcnt_ctl "$s" counters --json; done | /usr/bin/python3 -c '
import json, sys
dec = json.JSONDecoder(); text = sys.stdin.read(); i = 0; tot = {}
while i < len(text):
    while i < len(text) and text[i].isspace(): i += 1
    if i >= len(text): break
    obj, i = dec.raw_decode(text, i)
    for k, v in obj["counters"].items():
        if k.startswith("drop_") and k not in ("drop_other_host",): tot[k] = tot.get(k, 0) + v
print(" ".join("%s=%d" % kv for kv in sorted(tot.items()) if kv[1]) or "none")')
  dcnt_log "$DCNT_TOPO: ${#DCNT_SERVERS[@]} servers, $((n - bad))/$n pairs answer ping, full-size ping at dcn0 MTU $mtu; drops: $drops"
  [ "$bad" = 0 ] || { echo "FAIL: $DCNT_TOPO: $bad pairs unreachable"; exit 1; }
}

for topo in "dcell n=2 k=1" "mdcube n=2 k=1 m=2" "mdcube n=2 k=1 m=2x2"; do
  ( one_family "$topo" )
done
echo "PASS: test_agent_families"
