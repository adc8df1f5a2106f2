#!/usr/bin/env bash
# dcn-agent --pidfile: a pidfile that cannot be opened is a usage error:
# exit 2, one clear line, nothing left behind. The agent is stopped before
# it creates anything even if this check regressed: its --pcap points into
# a missing directory too, and that open comes before any device or socket.
set -u
A=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0; pass=0
run() { # run PIDFILE: the agent's rc and stderr
  err=$(timeout 20 "$A" --topo "bcube n=2 k=1" --name h00 --foreground --tun dcnpidT \
        --ifname-fmt "nopidT%s%u" --ctl "$tmp/ctl/h00.sock" --pcap "$tmp/missing/x.pcap" \
        --pidfile "$1" 2>&1 >/dev/null); rc=$?
}
check() { # check WHAT PIDFILE
  run "$2"
  lines=$(printf '%s\n' "$err" | wc -l)
  if [ "$rc" != 2 ] || [ "$lines" != 1 ] || ! grep -q -- "--pidfile .*cannot open" <<<"$err"; then
    echo "FAIL: $1: rc=$rc stderr='$err' (want rc=2, one line naming --pidfile)"; fail=$((fail+1))
  else pass=$((pass+1)); fi
  left=$(find "$tmp" -mindepth 1 ! -path "$tmp/dir*" | head -5)
  if [ -n "$left" ]; then echo "FAIL: $1: left behind: $left"; fail=$((fail+1)); fi
}
check "missing directory" "$tmp/nodir/agent.pid"
mkdir "$tmp/dir"
check "a directory" "$tmp/dir"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
