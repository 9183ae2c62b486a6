#!/usr/bin/env bash
# A release build of one product (`parley`, `ParleyBench`), laid out for a
# bot that answers now and then, whose reply finds its code cold: every
# function in a section of its own, those in scripts/hot-path.order laid out
# first by lld, the Swift runtime linked in, and the dependencies without
# run-time exclusivity checks. Why, and what it saves:
# docs/architecture.md, "The release build". The order file is written by
# `ParleyBench --socketio-instructions --write-order scripts/hot-path.order`;
# a name the linker no longer finds is skipped, so a stale list costs speed,
# never correctness.
#
# It builds in .build-release, not .build, and starts that over when its
# flags or Package.swift change: SwiftPM does not rebuild a Swift module
# whose only change is a frontend flag, so a module built before without
# `-function-sections` would stay one section and be laid out whole.
#
# Usage: scripts/release-build.sh PRODUCT [more swift build options]
set -euo pipefail
product=${1:?usage: scripts/release-build.sh PRODUCT [swift build options]}
shift
cd "$(dirname "$0")/.."
order="$PWD/scripts/hot-path.order"
flags=(
    -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections
    # No run-time exclusivity checks in the dependencies, as the standard
    # library is built; Parley's own modules turn them back on (Package.swift).
    -Xswiftc -enforce-exclusivity=unchecked
    -Xswiftc -use-ld=lld -Xlinker --symbol-ordering-file="$order" -Xlinker --no-warn-symbol-ordering
    --static-swift-stdlib
)
# Package.swift too: it gives Parley's modules a frontend flag of their own.
stamp=.build-release/flags
want="${flags[*]} $(sha256sum Package.swift | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    rm -rf .build-release/*/release
    mkdir -p .build-release
    printf '%s' "$want" > "$stamp"
fi
# SwiftPM does not see the order file change either: link again every time.
rm -f .build-release/release/"$product"
exec "${SWIFT:-swift}" build -c release --scratch-path .build-release --product "$product" "${flags[@]}" "$@"
