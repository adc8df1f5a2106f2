#!/usr/bin/env bash
# dcn-relay on loopback only (127.0.0.1, no namespaces): a chain and a fan-out
# move every byte, a killed sender makes the receiver fail, a missing receiver
# makes the sender fail, and bad arguments give one line and exit status 2.
# Ends only the processes it started, by PID.
set -u
R=$1
TMP=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"; }
trap cleanup EXIT
fail=0; pass=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
# Ports: a block chosen from the PID, so two runs rarely collide.
P=$((20000 + ($$ % 2000) * 10))
json() { # json FILE PYTHON-EXPR: the expression over d (the file's JSON) must be true
  /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}

# 1. Chain send -> recv(forward) -> recv, 64 MiB; the middle one also fans out
#    to a second leaf, and the sender opens a second stream at once.
M64=67108864
"$R" recv --listen $((P+2)) --bind 127.0.0.1 --expect 64M --timeout 30 --json >"$TMP/leaf1.json" 2>"$TMP/leaf1.err" & L1=$!
"$R" recv --listen $((P+3)) --expect 64M --timeout 30 --json >"$TMP/leaf2.json" 2>"$TMP/leaf2.err" & L2=$!
"$R" recv --listen $((P+4)) --expect 3K --timeout 30 --json >"$TMP/side.json" 2>"$TMP/side.err" & S=$!
"$R" recv --listen $((P+1)) --forward 127.0.0.1:$((P+2)) --forward 127.0.0.1:$((P+3)) --expect 64M --timeout 30 \
  --json >"$TMP/mid.json" 2>"$TMP/mid.err" & MID=$!
PIDS+=("$L1" "$L2" "$S" "$MID")
"$R" send --to 127.0.0.1:$((P+1)):64M --to 127.0.0.1:$((P+4)):3K --timeout 30 --json >"$TMP/send.json" 2>"$TMP/send.err"
src=$?
for p in "$MID" "$L1" "$L2" "$S"; do wait "$p"; eval "rc_$p=\$?"; done
[ "$src" = 0 ] && ok || bad "chain: send exit $src: $(cat "$TMP/send.err")"
for name in mid leaf1 leaf2; do
  json "$TMP/$name.json" "d['bytes']==$M64 and d['errors']==[] and d['seconds']>0 and d['first_byte_unix_ms']<=d['last_byte_unix_ms']" \
    && ok || bad "chain: $name did not report exactly $M64 bytes: $(cat "$TMP/$name.json" "$TMP/$name.err")"
done
json "$TMP/side.json" "d['bytes']==3072" && ok || bad "chain: side stream: $(cat "$TMP/side.json")"
json "$TMP/mid.json" "[f['bytes'] for f in d['forwarded']]==[$M64,$M64] and all(f['done_unix_ms'] for f in d['forwarded'])" \
  && ok || bad "chain: forwarded bytes: $(cat "$TMP/mid.json")"
json "$TMP/send.json" "d['bytes']==$M64+3072 and [t['bytes'] for t in d['targets']]==[$M64,3072] and d['done_unix_ms']>=d['last_byte_unix_ms']" \
  && ok || bad "chain: sender report: $(cat "$TMP/send.json")"
for p in "$MID" "$L1" "$L2" "$S"; do v="rc_$p"; [ "${!v}" = 0 ] || bad "chain: a receiver exited ${!v}"; done
PIDS=()

# 2. A short stream: the sender is killed (by PID) mid-stream; the receiver
#    and the leaf it forwards to must both fail with one stderr line.
"$R" recv --listen $((P+6)) --expect 64G --timeout 20 --json >"$TMP/sleaf.json" 2>"$TMP/sleaf.err" & SL=$!
"$R" recv --listen $((P+5)) --forward 127.0.0.1:$((P+6)) --expect 64G --timeout 20 --json >"$TMP/short.json" \
  2>"$TMP/short.err" & SR=$!
"$R" send --to 127.0.0.1:$((P+5)):64G --timeout 20 >/dev/null 2>&1 & SS=$!
PIDS+=("$SL" "$SR" "$SS")
for _ in $(seq 200); do # until the sender's stream is established (at most 10 s)
  ss -Htn state established "( dport = :$((P+5)) )" 2>/dev/null | grep -q . && break; sleep 0.05
done
sleep 0.3 # some data on the way: 64 GiB takes far longer than this on loopback
kill -9 "$SS"; wait "$SS" 2>/dev/null
wait "$SR"; rc=$?
[ "$rc" = 1 ] && grep -q "short stream" "$TMP/short.err" && [ "$(wc -l <"$TMP/short.err")" = 1 ] && ok \
  || bad "short stream: rc=$rc, stderr: $(cat "$TMP/short.err")"
json "$TMP/short.json" "0<d['bytes']<64*2**30 and 'short stream' in d['errors'][0]" && ok || bad "short stream report: $(cat "$TMP/short.json")"
wait "$SL"; rc=$?
[ "$rc" = 1 ] && grep -q "short stream" "$TMP/sleaf.err" && ok || bad "short stream leaf: rc=$rc, $(cat "$TMP/sleaf.err")"
PIDS=()

# 3. Nobody listening: the sender retries for --timeout, then fails.
err=$("$R" send --to 127.0.0.1:$((P+7)):1M --timeout 0.5 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] && grep -q "nobody listening" <<<"$err" && ok || bad "no receiver: rc=$rc, '$err'"
# ... and a receiver without a sender times out.
err=$("$R" recv --listen $((P+8)) --timeout 0.3 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] && grep -q "no connection within 0.3 s" <<<"$err" && ok || bad "no sender: rc=$rc, '$err'"
# An address that is not ours cannot be listened on.
err=$("$R" recv --listen $((P+8)) --bind 192.0.2.1 --timeout 1 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] && grep -q "cannot listen on 192.0.2.1" <<<"$err" && ok || bad "foreign --bind: rc=$rc, '$err'"
# A stream longer than --expect fails too.
"$R" recv --listen $((P+9)) --expect 1M --timeout 10 >/dev/null 2>"$TMP/long.err" & LR=$!
PIDS+=("$LR")
"$R" send --to 127.0.0.1:$((P+9)):2M --timeout 10 >/dev/null 2>&1
wait "$LR"; rc=$?
[ "$rc" = 1 ] && grep -q "long stream" "$TMP/long.err" && ok || bad "long stream: rc=$rc, $(cat "$TMP/long.err")"
PIDS=()

# 4. Bad arguments: exit 2, one line on stderr naming the problem.
expect2() { # expect2 PATTERN -- ARGS...
  local pat=$1; shift 2
  local err; err=$("$R" "$@" 2>&1 >/dev/null); local rc=$?
  if [ "$rc" = 2 ] && grep -qE -- "$pat" <<<"$err" && [ "$(wc -l <<<"$err")" = 1 ]; then ok
  else bad "dcn-relay $* -> rc=$rc, stderr='$err' (want 2, /$pat/)"; fi
}
expect2 "give a mode" --
expect2 "unknown mode 'push'" -- push --to a:1:1
expect2 "send needs at least one --to" -- send
expect2 "recv needs --listen" -- recv --forward 127.0.0.1:5000
expect2 "option --to needs a value" -- send --to
expect2 "option --listen needs a value" -- recv --listen
expect2 "'127.0.0.1:5000' is not HOST:PORT:BYTES" -- send --to 127.0.0.1:5000
expect2 "'127.0.0.1:5000:1M' is not HOST:PORT" -- recv --listen 5000 --forward 127.0.0.1:5000:1M
expect2 "port '0' is not in 1..65535" -- send --to 127.0.0.1:0:1M
expect2 "port '70000' is not in 1..65535" -- recv --listen 70000
expect2 "port 'http' is not in 1..65535" -- recv --listen http
expect2 "size '12X' has a bad suffix" -- send --to 127.0.0.1:5000:12X
expect2 "size '-5' is not a number" -- send --to 127.0.0.1:5000:-5
expect2 "size '0' must be at least 1" -- recv --listen 5000 --expect 0
expect2 "size '99999999999G' is too large" -- send --to 127.0.0.1:5000:99999999999G
expect2 "size '' is not a number" -- send --to 127.0.0.1:5000:
expect2 "bad HOST" -- send --to :5000:1M
expect2 "timeout 'soon' is not a number" -- send --to 127.0.0.1:5000:1M --timeout soon
expect2 "timeout '-1' is not a number" -- recv --listen 5000 --timeout -1
expect2 "unknown option '--frobnicate'" -- send --to 127.0.0.1:5000:1M --frobnicate
expect2 "unexpected argument 'extra'" -- recv --listen 5000 extra
expect2 "send takes no --listen" -- send --to 127.0.0.1:5000:1M --listen 5000
expect2 "recv takes --forward HOST:PORT, not --to" -- recv --listen 5000 --to 127.0.0.1:5001:1M
expect2 "option --listen given twice" -- recv --listen 5000 --listen 5001
"$R" --help | grep -q "usage: dcn-relay send" && ok || bad "--help"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
