#!/usr/bin/env python3
"""A python-socketio AsyncClient in a SocketChat room, watching for its own kick.

It shows that a third-party client sees Parley's moderation notices and the
server's namespace DISCONNECT:

    connect (websocket), emit connectUser(name), print READY once announced;
    userKicked({nickname: name, reason, …}) -> print "KICKED <reason>"
    the namespace's disconnect               -> print DISCONNECTED, exit 0

    .venv/bin/python Tests/Fixtures/python/kick_watcher.py --url http://127.0.0.1:PORT --name bob

Exits 1 if it cannot join, or is not disconnected within --timeout seconds.
"""

import argparse
import asyncio
import sys

import socketio


async def run(opts):
    name, ns = opts.name, opts.namespace
    sio = socketio.AsyncClient(reconnection=False)
    announced = asyncio.Event()
    gone = asyncio.Event()

    @sio.on("userConnectUpdate", namespace=ns)
    async def on_user_connect(user, *_):
        if isinstance(user, dict) and user.get("nickname") == name:
            announced.set()

    @sio.on("userKicked", namespace=ns)
    async def on_kicked(notice, *_):
        if isinstance(notice, dict) and notice.get("nickname") == name:
            print(f"KICKED {notice.get('reason', '')}", flush=True)

    @sio.on("disconnect", namespace=ns)
    async def on_disconnect(*_reason):
        print("DISCONNECTED", flush=True)
        gone.set()

    try:
        await sio.connect(opts.url, transports=["websocket"], namespaces=[ns], wait_timeout=10)
        await sio.emit("connectUser", name, namespace=ns)
        await asyncio.wait_for(announced.wait(), timeout=10)
    except (socketio.exceptions.ConnectionError, asyncio.TimeoutError) as e:
        print(f"kick_watcher: could not join {opts.url} {ns}: {e or 'timed out'}", file=sys.stderr)
        return 1
    print("READY", flush=True)
    try:
        await asyncio.wait_for(gone.wait(), timeout=opts.timeout)
    except asyncio.TimeoutError:
        print("kick_watcher: never disconnected", file=sys.stderr)
        await sio.disconnect()
        return 1
    await sio.disconnect()
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--name", default="bob")
    ap.add_argument("--namespace", default="/")
    ap.add_argument("--timeout", type=float, default=20)
    sys.exit(asyncio.run(run(ap.parse_args())))


if __name__ == "__main__":
    main()
