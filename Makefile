# Parley: `make demo` runs the main job, `make test` passes the tests.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift

.PHONY: build release deps deps-test test demo bench clean venv fuzz fuzz-smoke fuzz-build reliability

build: deps
	$(SWIFT) build --product parley

# The Python test peers (python-socketio server, echo bot) live in a virtual
# environment made from Tests/Fixtures/python/requirements.txt (skipped when
# it is up to date, so no network then).
venv:
	bash Tests/Fixtures/python/setup-venv.sh .venv

# The Debian packages the build and the demo need (`deps`), and those the
# tests add (`deps-test`): installed when missing (see scripts/deps.sh).
deps:
	@bash scripts/deps.sh demo

deps-test:
	@bash scripts/deps.sh test

# Builds the binary first: the CLI and golden tests run the real `parley`.
test: deps-test venv
	$(SWIFT) build
	$(SWIFT) build --build-tests
	@# Flush the build's hundreds of MB of dirty pages now: on ext4 the tests'
	@# first journal fsync would otherwise wait for all of them (seconds on a
	@# slow CI disk, enough to miss a test's deadline).
	sync
	@SWIFT=$(SWIFT) bash Tests/run-all.sh

# The main job: the embedded server, the greeter and moderator bots and six
# simulated people, for 20 seconds, with a transcript and a summary.
demo: deps build
	.build/debug/parley demo

# The binary to deploy, .build-release/release/parley: the reply path's functions
# packed together (see scripts/release-build.sh).
release: deps
	SWIFT=$(SWIFT) bash scripts/release-build.sh parley

# Built the way `release` is, so the bench measures what ships.
bench: deps-test venv
	SWIFT=$(SWIFT) bash scripts/release-build.sh ParleyBench
	.build-release/release/ParleyBench

# Coverage-guided fuzzing (libFuzzer) of every parser that reads bytes from
# the network or from users: see Tests/Fuzz/run.sh. Its own build directory,
# because the instrumented build must not mix with the normal one. lld is
# required (gold crashes linking the instrumented binary); -fsanitize=fuzzer-
# no-link instruments the C pattern matcher too.
FUZZ_RUNS ?= 1000000
FUZZ_FLAGS = -c release --scratch-path .build-fuzz --product parley-fuzz \
	-Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xswiftc -use-ld=lld \
	-Xswiftc -DPARLEY_FUZZ -Xcc -fsanitize=fuzzer-no-link

fuzz-build: deps-test
	$(SWIFT) build $(FUZZ_FLAGS)

fuzz: fuzz-build
	FUZZ_RUNS=$(FUZZ_RUNS) bash Tests/Fuzz/run.sh

# The CI pass: the same targets, 20,000 inputs each.
fuzz-smoke: fuzz-build
	FUZZ_RUNS=20000 bash Tests/Fuzz/run.sh

clean:
	rm -rf .build .build-release .build-fuzz

# The reliability report: fuzzing (FUZZ_RUNS per target), the chaos table of every
# transport, the flood figures (FLOOD_SECONDS), printed as one summary.
# Takes about an hour with the defaults; FUZZ_RUNS=20000 FLOOD_SECONDS=10 for a quick look.
reliability: deps-test venv
	bash Tests/reliability.sh
