#!/usr/bin/env bash
# `make deps` (for `make demo`) and `make deps-test` (for `make test`): checks
# the Debian packages Parley needs and installs the missing ones with apt-get,
# as root directly or through `sudo -n`; otherwise prints the one line to run
# and exits 2. The Swift toolchain itself is not a package here (/opt/swift).
# Usage: scripts/deps.sh demo|test
set -euo pipefail

# The build and the demo: Lua's headers and static library, found with pkg-config.
demo=(liblua5.4-dev pkg-config)
# The tests add their peers: the stock interpreter and SQLite (the bench's
# peers, built with the tests), fiu-run (failing fsyncs on purpose), openssl
# (a throwaway CA), python's venv (python-socketio, aiohttp), RabbitMQ (STOMP),
# iproute2 (network namespaces for the vanished-peer tests), chromium and its
# WebDriver (the web chat's tests in a real browser).
test=("${demo[@]}" lua5.4 libsqlite3-dev fiu-utils openssl python3-venv python3-pip rabbitmq-server iproute2 chromium chromium-driver)

case "${1:-demo}" in
    demo) wanted=("${demo[@]}") ;;
    test) wanted=("${test[@]}") ;;
    *) echo "usage: scripts/deps.sh demo|test" >&2; exit 2 ;;
esac

installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }

missing=()
for p in "${wanted[@]}"; do installed "$p" || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && exit 0

line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
    run=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    run=(sudo -n)
else
    echo "Parley needs these Debian packages: ${missing[*]}" >&2
    echo "Install them (as root), then run make again:" >&2
    echo "    apt-get update && $line" >&2
    exit 2
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${run[@]}" apt-get update -qq
"${run[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
for p in "${missing[@]}"; do
    installed "$p" || { echo "deps: $p did not install" >&2; exit 1; }
done
