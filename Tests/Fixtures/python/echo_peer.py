#!/usr/bin/env python3
"""Echo bot on python-socketio's AsyncClient: the benchmark's peer for Parley.

It does on SocketChat exactly what Parley's echo plugin (Plugins/echo.lua)
does, written the idiomatic python-socketio way, so the benchmark compares
Parley against it:

    connect (websocket transport), emit connectUser(name), then for every
    newChatMessage(nick, msg, date) from someone else:
        "!echo TEXT" -> chatMessage(name, "TEXT")
        "!ping"      -> chatMessage(name, "pong")

    .venv/bin/python Tests/Fixtures/python/echo_peer.py --url http://127.0.0.1:PORT

Like Parley's bots it asks (`echo=false` in the handshake's query) not to be
sent its own messages back: Parley's server honours that, python-socketio's
ignores it, and either way the bot skips its own. It also says
`typingUpdates(false)`, as Parley's bots without a typing handler do: Parley's
server then leaves it out of the typing sets it sends with every message.

Prints `READY` on stdout once connected and announced (the server has sent
back our userConnectUpdate). SIGTERM or SIGINT: disconnects and exits 0. If the
server goes away first it exits 1. Nothing is logged per message.
"""

import argparse
import asyncio
import signal
import sys

import socketio


async def run(opts):
    name, ns = opts.name, opts.namespace
    # reconnection=False: a benchmark peer that lost its server should stop, not retry.
    sio = socketio.AsyncClient(reconnection=False)
    announced = asyncio.Event()
    gone = asyncio.Event()  # set once disconnected, by us or by the server
    stopping = False

    @sio.on("disconnect", namespace=ns)
    async def on_disconnect(*_reason):
        gone.set()

    @sio.on("userConnectUpdate", namespace=ns)
    async def on_user_connect(user, *_):
        if isinstance(user, dict) and user.get("nickname") == name:
            announced.set()

    @sio.on("newChatMessage", namespace=ns)
    async def on_message(*args):
        # newChatMessage(nick, msg, date); a server that ignores echo=false
        # sends our own messages back too: skip them, or "!echo !echo x" would loop.
        if len(args) < 2 or args[0] == name or not isinstance(args[1], str):
            return
        msg = args[1]
        if msg.startswith("!echo "):
            await sio.emit("chatMessage", (name, msg[6:]), namespace=ns)
        elif msg == "!ping":
            await sio.emit("chatMessage", (name, "pong"), namespace=ns)

    try:
        url = opts.url if "echo=" in opts.url else opts.url + ("&" if "?" in opts.url else "?") + "echo=false"
        await sio.connect(url, transports=["websocket"], namespaces=[ns], wait_timeout=10)
        await sio.emit("connectUser", name, namespace=ns)
        # No typing handler here, as in Parley's echo bot: ask not to be sent
        # the typing sets (Parley's server honours it, others ignore it).
        await sio.emit("typingUpdates", False, namespace=ns)
        await asyncio.wait_for(announced.wait(), timeout=10)
    except (socketio.exceptions.ConnectionError, asyncio.TimeoutError) as e:
        print(f"echo_peer: could not join {opts.url} {ns}: {e or 'timed out'}", file=sys.stderr)
        await sio.disconnect()
        return 1
    print("READY", flush=True)

    def stop():
        nonlocal stopping
        stopping = True
        asyncio.ensure_future(sio.disconnect())

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)
    # Not sio.wait(): it sleeps a whole second after the disconnect.
    await gone.wait()
    if not stopping:
        print("echo_peer: disconnected by the server", file=sys.stderr)
        return 1
    return 0


def main():
    p = argparse.ArgumentParser(description="SocketChat echo bot on python-socketio's AsyncClient.")
    p.add_argument("--url", default="http://127.0.0.1:3000", help="server URL (default %(default)s)")
    p.add_argument("--name", default="echo", help="nickname (default %(default)s)")
    p.add_argument("--namespace", default="/", help="Socket.IO namespace (default /)")
    sys.exit(asyncio.run(run(p.parse_args())))


if __name__ == "__main__":
    main()
