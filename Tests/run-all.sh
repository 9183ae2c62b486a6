#!/usr/bin/env bash
# `make test` after the build: the six passes, with the RabbitMQ node the
# STOMP tests need started here when none is running (and stopped again at
# the end, then only), and one closing count.
#
# Six passes: the end-to-end runtime tests need the cooperative pool (as
# wide as the machine: 2 threads here) to themselves, and some unit suites
# block it with synchronous socket and process calls. The flood tests burn
# both cores for seconds on purpose, which would starve the runtime tests'
# sub-second deadlines, so they get a pass of their own. The bot-loop test
# compares a bot's latency beside a busy loop with its idle latency, which
# only means something on an otherwise quiet machine: it runs alone. Headless
# Chromium takes both cores while it starts and renders, so the browser tests
# run alone too. The chaos runner
# restarts servers and the shared RabbitMQ node dozens of times, so it runs
# alone, last; it writes its tables to .build/chaos/<transport>.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
heavy='FloodTests|ServeLimitsTests|DurableBurstTests|CrowdProcessTests|ShardTests'

started_rabbit=no
if ! rabbitmqctl -q ping >/dev/null 2>&1; then
    Tests/Fixtures/rabbitmq/start.sh || exit 1
    started_rabbit=yes
fi
cleanup() { [ "$started_rabbit" = yes ] && Tests/Fixtures/rabbitmq/stop.sh >/dev/null; }
trap cleanup EXIT

status=0
pass() { bash Tests/test-pass.sh "$@" || status=1; }
pass .build/test-output.txt --skip ParleyRuntimeTests
pass .build/test-output-runtime.txt --filter ParleyRuntimeTests --skip "$heavy|BotLoopTests|ChaosTests|WebChatBrowserTests"
pass .build/test-output-heavy.txt --filter "$heavy"
pass .build/test-output-loops.txt --filter BotLoopTests
pass .build/test-output-browser.txt --filter WebChatBrowserTests
pass .build/test-output-chaos.txt --filter ChaosTests

outputs=(.build/test-output.txt .build/test-output-runtime.txt .build/test-output-heavy.txt .build/test-output-loops.txt
         .build/test-output-browser.txt .build/test-output-chaos.txt)
# Every pass ends with "Test run with N tests", and each test that failed
# has a line "✘ Test name() failed after …" of its own.
total=$(cat "${outputs[@]}" | grep -Eo 'Test run with [0-9]+ tests' | grep -Eo '[0-9]+' | awk '{s+=$1} END {print s+0}')
failed=$(cat "${outputs[@]}" | grep -E '^✘ Test ' | grep -v '^✘ Test run with' | grep -c ' failed after')
passed=$((total - failed))
echo "swift-testing: ${passed} passed, ${failed} failed"
# A pass that crashed has no summary line, so its tests are in neither count.
for o in "${outputs[@]}"; do
    grep -q 'Test run with [0-9]* tests' "$o" 2>/dev/null || echo "swift-testing: $o has no summary (the pass crashed or did not run): see its end"
done
exit "$status"
