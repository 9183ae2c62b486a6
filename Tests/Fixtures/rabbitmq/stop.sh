#!/usr/bin/env bash
# Stops the node start.sh started; does nothing when none is running.
set -uo pipefail
# `ping`, not `status`: a node whose app is stopped must be stopped too.
if command -v rabbitmqctl >/dev/null && rabbitmqctl -q ping >/dev/null 2>&1; then
    rabbitmqctl -q stop
fi
echo "rabbitmq: stopped"
