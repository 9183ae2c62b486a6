#!/usr/bin/env bash
# Stops the node start.sh started; does nothing when none is running.
set -uo pipefail
if command -v rabbitmqctl >/dev/null && rabbitmqctl -q status >/dev/null 2>&1; then
    rabbitmqctl -q stop
fi
echo "rabbitmq: stopped"
