#!/usr/bin/env bash
# The dcn-topo command line: bad input gives one clear line and exit status 2.
set -u
T=$1
fail=0; pass=0
expect() { # expect STATUS PATTERN -- ARGS...
  local want=$1 pat=$2; shift 3
  local err; err=$("$T" "$@" 2>&1 >/dev/null); local rc=$?
  if [ "$rc" != "$want" ] || ! grep -qE -- "$pat" <<<"$err"; then
    echo "FAIL: dcn-topo $* -> rc=$rc, stderr='$err' (want rc=$want, /$pat/)"; fail=$((fail+1))
  else pass=$((pass+1)); fi
}
expect 2 "unknown topology family 'nosuch'" -- export nosuch n=2
expect 2 "leaves=0 is out of range \(allowed 1\.\.1024\)" -- export tree leaves=0
expect 2 "leaves=abc is not an integer" -- export tree leaves=abc
expect 2 "unknown parameter 'x'" -- export tree x=1
expect 2 "given twice" -- export tree leaves=2 leaves=3
expect 2 "not of the form key=value" -- export tree leaves
expect 2 "no node named 'h99'" -- paths tree h0 h99
expect 2 "is a switch" -- paths tree h0 s1
expect 2 "no algorithm 'nope'" -- paths tree h0 h1 --algo nope
expect 2 "not cabled together" -- paths tree h0 h5 --fail-link h0,h5
expect 2 "unknown command" -- frobnicate tree
expect 2 "usage" --
# A good call succeeds and prints JSON.
if "$T" export tree | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["servers"])==16' ; then pass=$((pass+1)); else echo "FAIL: export tree"; fail=$((fail+1)); fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
