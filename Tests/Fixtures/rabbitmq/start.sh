#!/usr/bin/env bash
# Starts the RabbitMQ node the STOMP tests use (Web-STOMP on
# ws://127.0.0.1:15674/ws, STOMP on 127.0.0.1:61613, guest/guest), bound to
# loopback through rabbitmq.conf beside this script. Idempotent: a node that
# is already running is only waited for. Needs Debian's rabbitmq-server.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export RABBITMQ_CONFIG_FILE="$here/rabbitmq.conf"
export RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
export ERL_EPMD_ADDRESS=127.0.0.1
export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"

if ! command -v rabbitmq-server >/dev/null; then
    echo "start.sh: rabbitmq-server is not installed (apt-get install -y rabbitmq-server)" >&2
    exit 1
fi
web_stomp_listening() { (exec 3<>/dev/tcp/127.0.0.1/15674) 2>/dev/null; }

# `ping` answers for a node whose app is stopped (what an interrupted
# broker-restart test leaves), where `status` fails and would start a second node.
if rabbitmqctl -q ping >/dev/null 2>&1; then
    # Running (perhaps with its app stopped by a test): make sure the app is up.
    rabbitmqctl -q start_app >/dev/null 2>&1 || true
    rabbitmqctl -q await_startup --timeout 60
    if ! web_stomp_listening; then
        # A node someone else started (a package's init script) without
        # Web-STOMP or our loopback config: replace it with ours.
        echo "start.sh: a RabbitMQ node without Web-STOMP on 127.0.0.1:15674 is running; restarting it with $RABBITMQ_CONFIG_FILE" >&2
        rabbitmqctl -q stop
        rabbitmq-plugins -q enable --offline rabbitmq_web_stomp >/dev/null
        rabbitmq-server -detached
    fi
else
    rabbitmq-plugins -q enable --offline rabbitmq_web_stomp >/dev/null
    rabbitmq-server -detached
fi
# await_startup fails at once while the new node has not yet registered with
# epmd, so wait for it to answer at all first (about 4-5 s on a quiet machine).
for _ in $(seq 1 120); do
    rabbitmqctl -q ping >/dev/null 2>&1 && break
    sleep 0.5
done
rabbitmqctl -q await_startup --timeout 60
echo "rabbitmq: up (web-stomp ws://127.0.0.1:15674/ws, stomp 127.0.0.1:61613)"
