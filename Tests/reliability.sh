#!/usr/bin/env bash
# `make reliability`: the reliability report in one table. Runs, in order,
#   1. every fuzz target for FUZZ_RUNS inputs (default 1,000,000; Tests/Fuzz/run.sh),
#   2. the chaos scenarios of every transport (the ChaosTests suite, which
#      writes one line per transport to .build/chaos/<transport>.txt),
#   3. the flood bench (FLOOD_SECONDS, default 60, at 10,000 messages/s),
# then prints the three parts together. Each part's full output is kept in
# .build/reliability/. Exits non-zero when any part failed; the others still run.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
OUT=.build/reliability
mkdir -p "$OUT"
status=0

echo "== 1/3 fuzzing (FUZZ_RUNS=${FUZZ_RUNS:-1000000} per target)"
make --no-print-directory fuzz FUZZ_RUNS="${FUZZ_RUNS:-1000000}" >"$OUT/fuzz.txt" 2>&1 || status=1

echo "== 2/3 chaos (StreamChat, Socket.IO, REST, STOMP)"
bash Tests/Fixtures/rabbitmq/start.sh >"$OUT/rabbitmq.txt" 2>&1 || echo "RabbitMQ did not start: the STOMP chaos run will fail (see $OUT/rabbitmq.txt)"
rm -rf .build/chaos
{ swift build --build-tests && swift test --skip-build --filter ChaosTests; } >"$OUT/chaos.txt" 2>&1 || status=1

echo "== 3/3 flood (${FLOOD_SECONDS:-60} s)"
{ bash scripts/release-build.sh ParleyBench && .build-release/release/ParleyBench --flood "${FLOOD_SECONDS:-60}"; } >"$OUT/flood.txt" 2>&1 || status=1

echo
echo "================ Parley reliability summary ================"
echo "-- fuzzing: inputs, crashes and hangs per target"
awk '/^target /,0' "$OUT/fuzz.txt" | sed 's/^/   /'
grep -q '^target ' "$OUT/fuzz.txt" || echo "   (no table: see $OUT/fuzz.txt)"
echo "-- chaos: per transport"
if ls .build/chaos/*.txt >/dev/null 2>&1; then cat .build/chaos/*.txt | sed 's/^/   /'; else echo "   (no tables: see $OUT/chaos.txt)"; fi
grep -Eq 'Test run with [0-9]+ tests.* passed' "$OUT/chaos.txt" || echo "   chaos suite FAILED: see $OUT/chaos.txt"
echo "-- flood"
sed -n '/^== flood/,$p' "$OUT/flood.txt" | sed 's/^/   /'
grep -q '^== flood' "$OUT/flood.txt" || echo "   (no figures: see $OUT/flood.txt)"
echo "============================================================"
[ $status -eq 0 ] && echo "all parts passed" || echo "some part FAILED (full output in $OUT/)"
exit $status
