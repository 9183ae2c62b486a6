#!/usr/bin/env bash
# A release build of one product (`parley`, `ParleyBench`), laid out for a
# bot that answers a message now and then.
#
# Such a reply finds its code cold: each line of code it runs through is
# fetched again, and each page those lines sit on is looked up again. Where
# the compiler and the linker put them by default, the 2,400 or so lines an
# echo reply runs through lie on about 390 pages of 4 KiB. So:
# - every function gets its own section (`-function-sections`, for Swift and
#   C), and lld lays out the functions listed in scripts/hot-path.order
#   first, in that order;
# - the Swift runtime and standard library are linked in
#   (`--static-swift-stdlib`, as the container image is built), so the
#   runtime's functions a reply calls (reference counts, exclusivity checks,
#   metadata lookups) are in that list too, called directly rather than
#   through a shared library.
# The reply's code then lies on about 140 pages, and a paced reply costs
# about a quarter less CPU (docs/benchmarks.md, "The code a reply touches").
#
# `ParleyBench --socketio-instructions --write-order FILE` writes the list
# from a callgrind run of the echo bot. A name the linker no longer finds is
# skipped, so a stale list costs speed, never correctness.
#
# It builds in .build-release, not .build: SwiftPM does not rebuild a Swift
# module whose only change is a frontend flag, so a module built before
# without `-function-sections` would stay one section and be laid out
# whole.
#
# Usage: scripts/release-build.sh PRODUCT [more swift build options]
set -euo pipefail
product=${1:?usage: scripts/release-build.sh PRODUCT [swift build options]}
shift
order="$(cd "$(dirname "$0")" && pwd)/hot-path.order"
# SwiftPM does not see the order file change either: link again every time.
rm -f .build-release/release/"$product"
exec "${SWIFT:-swift}" build -c release --scratch-path .build-release --product "$product" \
    -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \
    -Xswiftc -use-ld=lld -Xlinker --symbol-ordering-file="$order" -Xlinker --no-warn-symbol-ordering \
    --static-swift-stdlib \
    "$@"
