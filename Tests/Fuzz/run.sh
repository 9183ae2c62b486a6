#!/usr/bin/env bash
# Runs every fuzz target (or those named in FUZZ_TARGETS) for FUZZ_RUNS
# inputs each, on a scratch copy of its corpus, and prints one table.
# Exits non-zero on any crash or hang. `make fuzz` and `make fuzz-smoke`
# call it after building .build-fuzz/release/parley-fuzz.
#
# A finding leaves its input in $FUZZ_WORK/<target>/ (crash-*, timeout-*,
# slow-unit-*) and the libFuzzer log next to it; reproduce it with
#   .build-fuzz/release/parley-fuzz <target> <file>          (instrumented)
#   .build/debug/parley-fuzz <target> <file>                 (normal build, under lldb)
# then copy it to Tests/Fuzz/Regressions/<target>/ once fixed.
set -uo pipefail
cd "$(dirname "$0")/../.."

BIN=${FUZZ_BIN:-.build-fuzz/release/parley-fuzz}
RUNS=${FUZZ_RUNS:-1000000}
WORK=${FUZZ_WORK:-.build-fuzz/work}
MAX_LEN=${FUZZ_MAX_LEN:-4096}
# Swift's own crash reporter would catch the trap first and exit before
# libFuzzer writes the crashing input out: leave the signal to libFuzzer.
export SWIFT_BACKTRACE=enable=no
TARGETS=${FUZZ_TARGETS:-$("$BIN" 2>&1 | awk '/^  / {print $1}')}

[ -x "$BIN" ] || { echo "no $BIN: run make fuzz" >&2; exit 2; }
[ -n "$TARGETS" ] || { echo "$BIN lists no targets" >&2; exit 2; }

rows=()
failed=0
for target in $TARGETS; do
    dir="$WORK/$target"
    rm -rf "$dir"
    mkdir -p "$dir/corpus" "$dir/artifacts"
    # A scratch copy: what the fuzzer adds never lands in git.
    cp Tests/Fuzz/Corpus/"$target"/* "$dir/corpus/" 2>/dev/null || true
    cp Tests/Fuzz/Regressions/"$target"/* "$dir/corpus/" 2>/dev/null || true
    log="$dir/fuzz.log"
    start=$(date +%s)
    "$BIN" "$target" -runs="$RUNS" -max_len="$MAX_LEN" -timeout=5 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$dir/artifacts/" "$dir/corpus" >"$log" 2>&1
    status=$?
    seconds=$(( $(date +%s) - start ))
    # libFuzzer's final stats: stat::number_of_executed_units.
    ran=$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -1)
    [ -n "$ran" ] || ran=$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#')
    hangs=$(( $(ls "$dir/artifacts" | grep -c '^timeout-') + $(grep -c 'slow input' "$log") ))
    crashes=$(( $(ls "$dir/artifacts" | grep -Ec '^(crash|oom|leak)-') - $(grep -c 'slow input' "$log") ))
    [ $crashes -lt 0 ] && crashes=0
    if [ $status -ne 0 ] && [ $((crashes + hangs)) -eq 0 ]; then crashes=1; fi
    rate=$(( seconds > 0 ? ${ran:-0} / seconds : ${ran:-0} ))
    rows+=("$(printf '%-12s %12s %10s %8s %6s %8s' "$target" "${ran:-0}" "$rate" "$crashes" "$hangs" "${seconds}s")")
    [ $((crashes + hangs)) -gt 0 ] && { failed=1; echo "$target: finding, see $log and $dir/artifacts/" >&2; }
done

printf '%-12s %12s %10s %8s %6s %8s\n' target inputs inputs/s crashes hangs time
printf '%s\n' "${rows[@]}"
exit $failed
