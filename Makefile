# Parley: `make demo` runs the main job, `make test` passes the tests.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift

.PHONY: build test demo bench clean

build:
	$(SWIFT) build --product parley

# Builds the binary first: the CLI and golden tests run the real `parley`.
test:
	$(SWIFT) build
	$(SWIFT) build --build-tests
	@set -o pipefail; $(SWIFT) test --skip-build 2>&1 | tee .build/test-output.txt
	@n=$$(grep -Eo 'Test run with [0-9]+ tests' .build/test-output.txt | grep -Eo '[0-9]+' | tail -1); \
	  echo "swift-testing: $${n:-0} passed, 0 failed"

# The main job: the embedded server, the greeter and moderator bots and six
# simulated people, for 20 seconds, with a transcript and a summary.
demo: build
	.build/debug/parley demo

bench:
	$(SWIFT) build -c release --product ParleyBench
	.build/release/ParleyBench

clean:
	rm -rf .build
