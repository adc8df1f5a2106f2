#!/usr/bin/env bash
# A relay's per-packet work is independent of the path's length: callgrind
# counts the instructions (Ir) of relay_packets() relaying COUNT packets of
# a 2-hop path and of an 8-hop path (tests/unit/callgrind_relay.c). Both
# headers are 36 bytes, so checksum, cache hash and key compare read the
# same bytes; the relay looks up only NHA[NHI]. The per-packet counts must
# agree within 0.5 % (a few instructions of ~1000; any per-hop work, e.g.
# walking the path, costs tens of instructions per hop, i.e. several %).
# Skipped (77) without valgrind, except under make test (DCN_TEST_NO_SKIP),
# which installs it first.
set -u
D=$1
if ! command -v valgrind >/dev/null; then
  [ -n "${DCN_TEST_NO_SKIP:-}" ] && { echo "valgrind not installed, and make test installs it (make deps): failed"; exit 1; }
  echo "valgrind not installed: skipped"; exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
COUNT=2000
ir() { # ir HOPS: instructions per relayed packet
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$1" --toggle-collect=relay_packets \
    "$D" "$1" "$COUNT" >"$tmp/out.$1" 2>"$tmp/err.$1" || { cat "$tmp/out.$1" "$tmp/err.$1" >&2; return 1; }
  local total; total=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$tmp/cg.$1")
  [ -n "$total" ] || total=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$tmp/cg.$1")
  echo $(( total / COUNT ))
}
a=$(ir 2) || exit 1
b=$(ir 8) || exit 1
cat "$tmp/out.2" "$tmp/out.8"
echo "instructions per relayed packet: 2 hops $a, 8 hops $b"
diff=$(( a > b ? a - b : b - a ))
if [ "$a" -le 0 ] || [ $(( diff * 1000 )) -gt $(( a * 5 )) ]; then
  echo "FAIL: per-packet work depends on the path length ($a vs $b instructions)"; exit 1
fi
echo "ok: within 0.5 %"
