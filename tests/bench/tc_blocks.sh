#!/bin/bash
# What shaping one more interface costs as the box holds more shaped
# interfaces: the testbed's htb (a qdisc and a class on each veth end, as
# orchestrator/linkclass.py writes them) against tbf with a pfifo child (no
# tc filter block), in a private network namespace, STEPS steps of STEP veth
# pairs each (both ends shaped, as in the testbed). The kinds alternate, one
# namespace per round (htb tbf htb tbf ...), so that drift on the box
# cancels. Prints one line per step: the time to shape that step's
# interfaces, per interface; then what deleting them costs: 64 pairs one
# by one, the rest in one request.
# docs/testbed.md ("Bring-up benchmark") says what the numbers show.
#
#   sudo tests/bench/tc_blocks.sh [--step 1024] [--steps 8] [--rounds 2] [--out FILE]
#
# Needs root; touches nothing outside the namespace it creates (unshare -n),
# which disappears with it. Not a timed test: nothing is asserted.
set -eu
step=1024 steps=8 rounds=2 out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --step) step=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "tc_blocks.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for v in "$step" "$steps" "$rounds"; do
  [[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "tc_blocks.sh: --step, --steps and --rounds take positive integers" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "tc_blocks.sh: needs root (a network namespace)"; exit 77; }
[ $((step * steps)) -le 16384 ] || { echo "tc_blocks.sh: at most 16384 veth pairs" >&2; exit 2; }

now_ms() { date +%s%3N; }

# One round in the calling namespace: $1 = htb or tbf.
round() {
  local kind=$1 s i a b t0 t1 tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  for s in $(seq 0 $((steps - 1))); do
    : >"$tmp/ip"; : >"$tmp/tc"
    for i in $(seq $((s * step)) $((s * step + step - 1))); do
      a=ta$i b=tb$i
      echo "link add $a type veth peer name $b" >>"$tmp/ip"
      echo "link set dev $a group 77" >>"$tmp/ip"
      for d in $a $b; do
        if [ "$kind" = htb ]; then
          echo "qdisc add dev $d root handle 5:0 htb default 1"
          echo "class add dev $d parent 5:0 classid 5:1 htb rate 100Mbit burst 15k"
        else
          echo "qdisc add dev $d root handle 5:0 tbf rate 100Mbit burst 15k limit 15000"
          echo "qdisc add dev $d parent 5:1 handle 10: pfifo limit 1000"
        fi
      done >>"$tmp/tc"
    done
    ip -batch "$tmp/ip"
    t0=$(now_ms)
    tc -force -batch "$tmp/tc" 2>/dev/null
    t1=$(now_ms)
    printf '%s %6d %8.3f\n' "$kind" $(((s + 1) * step * 2)) "$(echo "($t1 - $t0) / ($step * 2)" | bc -l)"
  done
  # a few pairs deleted one by one (what `ip link del` costs), the rest in
  # one request (`ip link delete group`: the kernel unregisters them as a batch)
  : >"$tmp/del"
  for i in $(seq 0 63); do echo "link del ta$i" >>"$tmp/del"; done
  t0=$(now_ms)
  ip -batch "$tmp/del"
  t1=$(now_ms)
  printf '%s delete one by one: %.1f ms per pair (64 pairs)\n' "$kind" "$(echo "($t1 - $t0) / 64" | bc -l)"
  t0=$(now_ms)
  ip link delete group 77
  t1=$(now_ms)
  printf '%s delete the other %d pairs in one request: %.2f s\n' "$kind" $((steps * step - 64)) \
    "$(echo "($t1 - $t0) / 1000" | bc -l)"
}

run() {
  echo "# tests/bench/tc_blocks.sh --step $step --steps $steps --rounds $rounds"
  echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) cores, commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "# kind, shaped interfaces after the step, ms per interface shaped in that step"
  for r in $(seq 1 "$rounds"); do
    for kind in htb tbf; do
      echo "# round $r: $kind"
      unshare -n bash -c "$(declare -f now_ms round); step=$step steps=$steps round $kind"
    done
  done
}

if [ -n "$out" ]; then
  run | tee "$out"
else
  run
fi
