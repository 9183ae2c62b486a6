#!/usr/bin/env bash
# One pass of `make test`: `swift test --skip-build ARGS...`, its output kept in
# OUTPUT. On failure the failing expectations are printed again at the end, so
# the cause is in the last lines of a CI log, not hundreds of lines above them.
# Usage: Tests/test-pass.sh OUTPUT [swift test arguments...]
set -uo pipefail
output=$1
shift
"${SWIFT:-swift}" test --skip-build "$@" 2>&1 | tee "$output"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo
  echo "=== failed: swift test $* (full output in $output) ==="
  grep -E 'recorded an issue|error:|Fatal error|Crash|signal' "$output" | head -40
  grep -E '✘ Test run with' "$output"
fi
exit "$status"
