#!/bin/bash
# Builds the libFuzzer harnesses of tests/fuzz with clang (-DDCN_FUZZ=ON) and
# runs each for a set time from its seed corpus and regression inputs.
#
#   run_fuzz.sh --build DIR --seconds N [--ci] [--report FILE] [HARNESS...]
#
#   --build DIR     the clang build folder (configured here if needed)
#   --seconds N     run time of each harness
#   --ci            the short run of `make test`: exit 77 when clang or
#                   libFuzzer is missing, instead of failing (unless
#                   DCN_TEST_NO_SKIP is set, as make test sets it)
#   --report FILE   write the figures (executions, corpus, coverage, crashes)
#                   as the "fuzzing" section of the markdown FILE
#                   (results/reliability.md), keeping its other sections
#
# New corpus units go to DIR/fuzz-run/<harness>/corpus (the tree's seeds are
# read, never written); crash inputs to DIR/fuzz-run/<harness>/artifacts/.
# Exit status: 0 no crash, 1 a harness crashed (paths printed) or the build
# failed, 2 bad usage, 77 (--ci) no clang.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build="" seconds="" ci=0 report="" harnesses=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=${2:-}; shift 2 ;;
    --seconds) seconds=${2:-}; shift 2 ;;
    --ci) ci=1; shift ;;
    --report) report=${2:-}; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    -*) echo "run_fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
if [ -z "$build" ] || ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "run_fuzz.sh: usage: run_fuzz.sh --build DIR --seconds N [--ci] [--report FILE] [HARNESS...]" >&2
  exit 2
fi
missing() {
  # make test installs clang and libFuzzer first (make deps) and sets
  # DCN_TEST_NO_SKIP: there, a missing one is a failure, not a skip
  if [ $ci = 1 ] && [ -z "${DCN_TEST_NO_SKIP:-}" ]; then echo "run_fuzz.sh: $1: skipped"; exit 77; fi
  echo "run_fuzz.sh: $1 (sudo make deps)" >&2; exit 1
}
command -v clang >/dev/null || missing "clang is not installed"
[ -f "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a)" ] || missing "libFuzzer (libclang-rt-dev) is not installed"

if [ ${#harnesses[@]} = 0 ]; then
  for f in "$here"/fuzz_*.c; do harnesses+=("$(basename "$f" .c)"); done
fi
case "$build" in /*) ;; *) build="$repo/$build" ;; esac
if [ ! -f "$build/CMakeCache.txt" ]; then
  mkdir -p "$build"
  nice -n 19 cmake -S "$repo" -B "$build" -DCMAKE_C_COMPILER=clang -DDCN_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/fuzz-configure.log" 2>&1 \
    || { cat "$build/fuzz-configure.log" >&2; exit 1; }
fi
nice -n 19 cmake --build "$build" -j "$(nproc)" --target "${harnesses[@]}" >"$build/fuzz-build.log" 2>&1 \
  || { tail -40 "$build/fuzz-build.log" >&2; exit 1; }

started=$(date -u '+%Y-%m-%d %H:%M UTC')
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$repo" diff --quiet HEAD -- agent tests/fuzz 2>/dev/null || commit="$commit (with uncommitted changes)"
load_start=$(cut -d' ' -f1 /proc/loadavg)
crashed=0
rows=()
for h in "${harnesses[@]}"; do
  run="$build/fuzz-run/$h"
  rm -rf "$run"
  mkdir -p "$run/corpus" "$run/artifacts"
  seeds=()
  for d in "$here/corpus/$h" "$here/regressions/$h"; do [ -d "$d" ] && seeds+=("$d"); done
  nseeds=0
  for d in "${seeds[@]}"; do nseeds=$((nseeds + $(find "$d" -type f | wc -l))); done
  start=$(date +%s)
  nice -n 19 "$build/tests/fuzz/$h" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix="$run/artifacts/" "$run/corpus" "${seeds[@]}" >"$run/log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  stat() { sed -n "s/^stat::$1: *//p" "$run/log" | tail -1; }
  execs=$(stat number_of_executed_units); rate=$(stat average_exec_per_sec); rss=$(stat peak_rss_mb)
  last=$(grep -E '^#[0-9]+' "$run/log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last"); ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$last")
  ncrash=$(find "$run/artifacts" -type f | wc -l)
  echo "$h: ${took}s, ${execs:-?} executions (${rate:-?}/s), corpus ${nseeds} seeds -> ${corp:-?} units, cov ${cov:-?} ft ${ft:-?}, ${ncrash} crashes, exit $rc"
  if [ "$ncrash" -gt 0 ] || [ $rc -ne 0 ]; then
    crashed=1
    grep -E "ERROR|SUMMARY|runtime error" "$run/log" | head -5
    find "$run/artifacts" -type f | sed 's/^/  crash input: /'
  fi
  rows+=("| \`$h\` | $took | ${execs:-?} | ${rate:-?} | $nseeds | ${corp:-?} | ${cov:-?} / ${ft:-?} | $ncrash | ${rss:-?} |")
done

if [ -n "$report" ]; then
  case "$report" in /*) ;; *) report="$repo/$report" ;; esac
  mkdir -p "$(dirname "$report")"
  {
    echo "## Fuzzing"
    echo
    echo "Written by \`tests/fuzz/run_fuzz.sh --report\` (\`make fuzz FUZZ_SECONDS=$seconds FUZZ_REPORT=1\`)."
    echo
    echo "- run: started $started, ended $(date -u '+%Y-%m-%d %H:%M UTC'), harnesses built from commit $commit"
    echo "- machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); every harness under \`nice -n 19\`, one at a time, beside other work (1-minute load average $load_start at the start, $(cut -d' ' -f1 /proc/loadavg) at the end), so executions per second are a floor"
    echo "- $(clang --version | head -1), libFuzzer with AddressSanitizer (leak detection on) and UndefinedBehaviorSanitizer, \`-timeout=10 -rss_limit_mb=2048\`"
    echo "- each harness: $seconds s from its seed corpus (tests/fuzz/corpus/) and regression inputs (tests/fuzz/regressions/)"
    echo
    echo "\`fuzz_frame\` builds a fresh forwarding engine for every input (so that a crash reproduces from its one input); BSR's 1024-flow table makes that the slow part under ASan."
    echo
    echo "| harness | seconds | executions | exec/s | seed inputs | corpus after | coverage (edges / features) | crashes | peak RSS MB |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    printf '%s\n' "${rows[@]}"
    echo
    if [ $crashed = 0 ]; then
      echo "No crash, leak, timeout or out-of-memory in this run."
    else
      echo "Crashes were found: their inputs are in the run folder and listed in the run's output."
    fi
  } | /usr/bin/python3 "$repo/experiments/explib/mdsection.py" "$report" fuzzing "tests/fuzz/run_fuzz.sh --report" \
    || exit 1
  echo "wrote the fuzzing section of $report"
fi
exit $crashed
