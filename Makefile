# Parley: `make demo` runs the main job, `make test` passes the tests.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift

.PHONY: build test demo bench clean venv fuzz fuzz-smoke fuzz-build reliability

build:
	$(SWIFT) build --product parley

# The Python test peers (python-socketio server, echo bot) live in a virtual
# environment made from Tests/Fixtures/python/requirements.txt (skipped when
# it is up to date, so no network then).
venv:
	bash Tests/Fixtures/python/setup-venv.sh .venv

# Suites that load the machine on purpose (floods through the bot and the servers).
HEAVY = FloodTests|ServeLimitsTests

# Builds the binary first: the CLI and golden tests run the real `parley`.
test: venv
	$(SWIFT) build
	$(SWIFT) build --build-tests
	@# Flush the build's hundreds of MB of dirty pages now: on ext4 the tests'
	@# first journal fsync would otherwise wait for all of them (seconds on a
	@# slow CI disk, enough to miss a test's deadline).
	sync
	@# Four passes: the end-to-end runtime tests need the cooperative pool (as
	@# wide as the machine: 2 threads here) to themselves, and some unit suites
	@# block it with synchronous socket and process calls. The flood tests
	@# (HEAVY) burn both cores for seconds on purpose, which would starve the
	@# runtime tests' sub-second deadlines, so they get a pass of their own. The chaos runner
	@# (Tests/ParleyRuntimeTests/Chaos/) restarts servers and the shared
	@# RabbitMQ node dozens of times, so it runs alone, last; it writes its
	@# tables to .build/chaos/<transport>.txt.
	@SWIFT=$(SWIFT) bash Tests/test-pass.sh .build/test-output.txt --skip ParleyRuntimeTests
	@SWIFT=$(SWIFT) bash Tests/test-pass.sh .build/test-output-runtime.txt --filter ParleyRuntimeTests --skip '$(HEAVY)|ChaosTests'
	@SWIFT=$(SWIFT) bash Tests/test-pass.sh .build/test-output-heavy.txt --filter '$(HEAVY)'
	@SWIFT=$(SWIFT) bash Tests/test-pass.sh .build/test-output-chaos.txt --filter ChaosTests
	@n=$$(cat .build/test-output.txt .build/test-output-runtime.txt .build/test-output-heavy.txt .build/test-output-chaos.txt | grep -Eo 'Test run with [0-9]+ tests' | grep -Eo '[0-9]+' | awk '{s+=$$1} END {print s}'); \
	  echo "swift-testing: $${n:-0} passed, 0 failed"

# The main job: the embedded server, the greeter and moderator bots and six
# simulated people, for 20 seconds, with a transcript and a summary.
demo: build
	.build/debug/parley demo

bench: venv
	$(SWIFT) build -c release --product ParleyBench
	.build/release/ParleyBench

# Coverage-guided fuzzing (libFuzzer) of every parser that reads bytes from
# the network or from users: see Tests/Fuzz/run.sh. Its own build directory,
# because the instrumented build must not mix with the normal one. lld is
# required (gold crashes linking the instrumented binary); -fsanitize=fuzzer-
# no-link instruments the C pattern matcher too.
FUZZ_RUNS ?= 1000000
FUZZ_FLAGS = -c release --scratch-path .build-fuzz --product parley-fuzz \
	-Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xswiftc -use-ld=lld \
	-Xswiftc -DPARLEY_FUZZ -Xcc -fsanitize=fuzzer-no-link

fuzz-build:
	$(SWIFT) build $(FUZZ_FLAGS)

fuzz: fuzz-build
	FUZZ_RUNS=$(FUZZ_RUNS) bash Tests/Fuzz/run.sh

# The CI pass: the same targets, 20,000 inputs each.
fuzz-smoke: fuzz-build
	FUZZ_RUNS=20000 bash Tests/Fuzz/run.sh

clean:
	rm -rf .build .build-fuzz

# Issue 8's report: fuzzing (FUZZ_RUNS per target), the chaos table of every
# transport, the flood figures (FLOOD_SECONDS), printed as one summary.
# Takes about an hour with the defaults; FUZZ_RUNS=20000 FLOOD_SECONDS=10 for a quick look.
reliability: venv
	bash Tests/reliability.sh
