#!/usr/bin/env python3
"""SocketChat fixture server on python-socketio, for Parley's Socket.IO tests.

It reproduces the SocketChat seed server (a node socket.io app) event for
event, plus a few extra events that Parley's tests need (see "Test events"
below). Every Socket.IO namespace is accepted and is its own independent chat
room; "/" is the lobby.

Run it from the venv made by setup-venv.sh:

    .venv/bin/python Tests/Fixtures/python/socketchat_server.py --port 0

Once it listens it prints exactly one line, `LISTENING <port>`, on stdout
(tests read it to learn the port). SIGTERM or SIGINT stops it with exit code 0.
`--help` lists the options.

With `--certfile CERT.pem --keyfile KEY.pem` it serves TLS instead of plain
TCP (wss:// and https:// on the same port); the certificate file may hold the
chain after the server's own certificate.

SocketChat events (client -> server, answered to everyone in the namespace):
    connectUser(nick)      -> userList([users]), userConnectUpdate(user)
    chatMessage(nick, msg) -> userTypingUpdate({nick: 1}), newChatMessage(nick, msg, date)
                              (acks `true` when the client asks for an ack)
    startType(nick)        -> userTypingUpdate({nick: 1, ...})
    stopType(nick)         -> userTypingUpdate({...})
    exitUser(nick)         -> userExitUpdate(nick)           (removes the user)
    (socket closes)        -> userList, userExitUpdate(nick), userTypingUpdate
                              (the user stays in the list with isConnected false)

With `--record FILE` every connectUser and chatMessage the server accepts is
appended to FILE as one JSON line ({"t": unix time, "event", "nick", "msg"?}),
flushed before the event is answered or acked: the server's own record of
what the room received, which survives a restart of the fixture (the chaos
runner restarts it on the same port and appends to the same file).

Test events (not in SocketChat):
    echoAck(*args)          ack: the same arguments back
    slowAck(seconds, *args) ack: "late", after sleeping `seconds`
    binaryEcho(bytes)       binaryReply(bytes) to the sender only; ack: the length
    serverSay(nick, msg)    newChatMessage(nick, msg, date) to everyone, typing untouched
    kickMe(reason)          the server disconnects this socket (a DISCONNECT packet)
"""

import argparse
import asyncio
import datetime
import logging
import signal
import socket
import ssl
import sys

import engineio
import socketio
from aiohttp import web

from fixture_record import recorder

log = logging.getLogger("socketchat")


class Room:
    """The state of one namespace: what the node server keeps in globals."""

    def __init__(self):
        self.user_list = []     # [{"id", "nickname", "isConnected"}], in join order
        self.typing_users = {}  # nick -> 1, in the order they started typing
        # Node runs each handler to completion before the next one starts. Here
        # a handler pauses at every `await sio.emit`, so without this lock two
        # handlers' broadcasts could interleave. asyncio.Lock is first come,
        # first served, so events are also handled in the order they arrived.
        self.lock = asyncio.Lock()


rooms = {}  # namespace -> Room


def room(ns):
    if ns not in rooms:
        rooms[ns] = Room()
    return rooms[ns]


def js_locale_date(now=None):
    """The current local time as JavaScript's `new Date().toLocaleString()`
    prints it in the en-US locale: "11/21/2026, 3:04:05 PM"."""
    d = now or datetime.datetime.now()
    hour = d.hour % 12 or 12
    ampm = "AM" if d.hour < 12 else "PM"
    return f"{d.month}/{d.day}/{d.year}, {hour}:{d.minute:02}:{d.second:02} {ampm}"


def strings(event, args, n):
    """The first n arguments if they are all strings, else None (and a log line).
    The node server would take anything; this one ignores ill-formed events."""
    if len(args) >= n and all(isinstance(a, str) for a in args[:n]):
        return args[:n]
    log.info("ignored %s%r: expected %d string argument(s)", event, tuple(args), n)
    return None


def announce_exact_ping_interval(seconds):
    """python-engineio 4.15.1 announces pingInterval as int(seconds) * 1000, so
    --ping-interval 0.2 would be sent as 0 (while it really pings every 0.2 s).
    Rewrite the OPEN packet's pingInterval to the exact milliseconds as it is
    encoded. (pingTimeout is already exact.)"""
    encode = engineio.packet.Packet.encode

    def encode_exact(self, *args, **kwargs):
        if self.packet_type == engineio.packet.OPEN and isinstance(self.data, dict) \
                and "pingInterval" in self.data:
            self.data["pingInterval"] = round(seconds * 1000)
        return encode(self, *args, **kwargs)

    engineio.packet.Packet.encode = encode_exact


def make_server(opts):
    announce_exact_ping_interval(opts.ping_interval)
    record = recorder(opts.record)
    sio = socketio.AsyncServer(
        async_mode="aiohttp",
        namespaces="*",             # accept every namespace
        cors_allowed_origins="*",   # a test fixture: never refuse a client for its Origin
        transports=opts.transports,
        # engine.io offers the websocket upgrade even to a polling-only
        # server (the upgrade then fails with 400): offer none there.
        allow_upgrades="websocket" in opts.transports,
        ping_interval=opts.ping_interval,
        ping_timeout=opts.ping_timeout,
        max_http_buffer_size=opts.max_payload,
        logger=opts.verbose,
        engineio_logger=opts.verbose,
    )

    # Handlers registered for namespace "*" serve every namespace. python-socketio
    # then passes the namespace first: handler(ns, sid, *event_arguments).
    def on(event):
        return sio.on(event, namespace="*")

    async def to_all(ns, event, data, skip_sid=None):
        # `data` is ONE argument (a list stays one array argument); a tuple is
        # sent as several arguments.
        await sio.emit(event, data, namespace=ns, skip_sid=skip_sid)

    @on("connect")
    async def connect(ns, sid, environ, auth):
        # auth is the CONNECT packet's payload (None when the client sent none).
        if opts.auth_token is not None and auth != {"token": opts.auth_token}:
            # The client gets CONNECT_ERROR {"message": "bad token"}.
            raise socketio.exceptions.ConnectionRefusedError("bad token")

    @on("connectUser")
    async def connect_user(ns, sid, *args):
        a = strings("connectUser", args, 1)
        if a is None:
            return
        (nick,) = a
        r = room(ns)
        async with r.lock:
            record(event="connectUser", ns=ns, nick=nick)
            user = next((u for u in r.user_list if u["nickname"] == nick), None)
            if user is not None:
                user["isConnected"] = True
                user["id"] = sid
            else:
                user = {"id": sid, "nickname": nick, "isConnected": True}
                r.user_list.append(user)
            await to_all(ns, "userList", r.user_list)
            await to_all(ns, "userConnectUpdate", user)

    @on("chatMessage")
    async def chat_message(ns, sid, *args):
        a = strings("chatMessage", args, 2)
        if a is None:
            return
        nick, msg = a
        r = room(ns)
        async with r.lock:
            record(event="chatMessage", ns=ns, nick=nick, msg=msg)
            date = js_locale_date()
            r.typing_users.pop(nick, None)
            await to_all(ns, "userTypingUpdate", r.typing_users)
            await to_all(ns, "newChatMessage", (nick, msg, date))
        return True  # the ack, if the client asked for one: [true]

    @on("startType")
    async def start_type(ns, sid, *args):
        a = strings("startType", args, 1)
        if a is None:
            return
        r = room(ns)
        async with r.lock:
            r.typing_users[a[0]] = 1
            await to_all(ns, "userTypingUpdate", r.typing_users)

    @on("stopType")
    async def stop_type(ns, sid, *args):
        a = strings("stopType", args, 1)
        if a is None:
            return
        r = room(ns)
        async with r.lock:
            r.typing_users.pop(a[0], None)
            await to_all(ns, "userTypingUpdate", r.typing_users)

    # Parley's wish not to be sent typing sets (Parley's own server honours
    # it). This fixture, as other SocketChat servers, keeps sending them; it
    # only records the wish, so tests can see when a bot says it.
    @on("typingUpdates")
    async def typing_updates(ns, sid, *args):
        if len(args) == 1 and isinstance(args[0], bool):
            record(event="typingUpdates", ns=ns, on=args[0])

    @on("exitUser")
    async def exit_user(ns, sid, *args):
        a = strings("exitUser", args, 1)
        if a is None:
            return
        r = room(ns)
        async with r.lock:
            # Removes the user of THIS socket, whatever nick the client sent...
            for i, u in enumerate(r.user_list):
                if u["id"] == sid:
                    del r.user_list[i]
                    break
            # ...but announces the nick it was sent.
            await to_all(ns, "userExitUpdate", (a[0],))

    # Disconnect work runs as a task of its own. python-engineio calls this
    # handler from INSIDE an emit when a send finds the client's pong overdue
    # (AsyncSocket.send -> check_ping_timeout -> close -> disconnect), and
    # every emit here runs under the room lock: taking the lock in the
    # handler itself then deadlocks the room for good (seen in the chaos
    # runner: a silently dropped bot's stale session, noticed by a person's
    # chatMessage broadcast, froze every later event).
    gone_tasks = set()

    @on("disconnect")
    async def disconnect(ns, sid, reason):
        task = asyncio.get_running_loop().create_task(client_gone(ns, sid))
        gone_tasks.add(task)
        task.add_done_callback(gone_tasks.discard)

    async def client_gone(ns, sid):
        r = room(ns)
        async with r.lock:
            nick = None
            for u in r.user_list:
                if u["id"] == sid:
                    u["isConnected"] = False  # the user stays in the list
                    nick = u["nickname"]
                    break
            r.typing_users.pop(nick, None)
            # skip_sid: node has already taken the leaving socket out of the
            # namespace here; python-socketio still lists it (and a kicked
            # client would get these after its DISCONNECT packet).
            await to_all(ns, "userList", r.user_list, skip_sid=sid)
            # The tuple makes `None` one argument: ["userExitUpdate", null] as
            # node sends it. A bare None would send no argument at all.
            await to_all(ns, "userExitUpdate", (nick,), skip_sid=sid)
            await to_all(ns, "userTypingUpdate", r.typing_users, skip_sid=sid)

    # ---- Test events ------------------------------------------------------

    @on("echoAck")
    async def echo_ack(ns, sid, *args):
        async with room(ns).lock:  # wait for this socket's earlier events
            pass
        return tuple(args)  # a tuple: each argument comes back as its own

    @on("slowAck")
    async def slow_ack(ns, sid, *args):
        seconds = args[0] if args else None
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            log.info("ignored slowAck%r: expected a number of seconds", tuple(args))
            return
        async with room(ns).lock:
            pass
        # Sleep outside the lock: the room goes on meanwhile.
        await asyncio.sleep(max(0.0, seconds))
        return ("late",)

    @on("binaryEcho")
    async def binary_echo(ns, sid, *args):
        data = args[0] if args else None
        if not isinstance(data, bytes):
            log.info("ignored binaryEcho: expected binary data")
            return
        async with room(ns).lock:
            await sio.emit("binaryReply", data, to=sid, namespace=ns)  # a BINARY_EVENT
        return len(data)

    @on("serverSay")
    async def server_say(ns, sid, *args):
        a = strings("serverSay", args, 2)
        if a is None:
            return
        async with room(ns).lock:
            await to_all(ns, "newChatMessage", (a[0], a[1], js_locale_date()))

    @on("kickMe")
    async def kick_me(ns, sid, *args):
        log.info("kicking %s from %s: %r", sid, ns, args)
        async with room(ns).lock:
            pass
        # Outside the lock: sio.disconnect runs our disconnect handler, which
        # takes the lock itself.
        await sio.disconnect(sid, namespace=ns)

    return sio


def listening_socket(host, port):
    """A bound, listening socket; port 0 lets the system choose a free port."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def tls_context(opts):
    """The server-side TLS context for --certfile/--keyfile, or None (plain TCP)."""
    if opts.certfile is None:
        return None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(opts.certfile, opts.keyfile)
    return context


async def serve(opts):
    sio = make_server(opts)
    app = web.Application()
    sio.attach(app, socketio_path=opts.path)

    # shutdown_timeout: on stop, give open connections (long-lived websockets,
    # pending polls) this long to finish, then as long again once cancelled.
    runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=0.1)
    await runner.setup()
    sock = listening_socket(opts.host, opts.port)
    await web.SockSite(runner, sock, ssl_context=tls_context(opts)).start()
    print(f"LISTENING {sock.getsockname()[1]}", flush=True)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()

    await sio.shutdown()  # stops engine.io's ping task
    await runner.cleanup()


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="SocketChat fixture server (python-socketio).")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 (default): pick a free port")
    p.add_argument("--ping-interval", type=float, default=25.0, help="seconds (default 25)")
    p.add_argument("--ping-timeout", type=float, default=20.0, help="seconds (default 20)")
    p.add_argument("--transports", default="websocket,polling",
                   help="comma-separated: websocket,polling (default) or polling")
    p.add_argument("--max-payload", type=int, default=1_000_000,
                   help="engine.io maxPayload in bytes (default 1000000)")
    p.add_argument("--auth-token", default=None,
                   help='refuse CONNECTs whose auth is not {"token": TOKEN}')
    p.add_argument("--path", default="/socket.io/", help="Socket.IO path (default /socket.io/)")
    p.add_argument("--record", default=None, metavar="FILE",
                   help="append every connectUser and chatMessage accepted to FILE as JSON lines")
    p.add_argument("--certfile", default=None,
                   help="PEM certificate (chain): serve TLS (wss://, https://) instead of plain TCP")
    p.add_argument("--keyfile", default=None,
                   help="PEM private key for --certfile (default: the key is in the --certfile file)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quiet", dest="verbose", action="store_false",
                   help="no per-event logging (the default)")
    g.add_argument("--verbose", dest="verbose", action="store_true",
                   help="engine.io/socket.io logs and ignored events on stderr")
    p.set_defaults(verbose=False)
    opts = p.parse_args(argv)
    opts.transports = [t.strip() for t in opts.transports.split(",") if t.strip()]
    bad = set(opts.transports) - {"websocket", "polling"}
    if bad or not opts.transports:
        p.error(f"--transports: unknown {sorted(bad) or 'empty list'}")
    if opts.keyfile is not None and opts.certfile is None:
        p.error("--keyfile needs --certfile")
    return opts


def main():
    opts = parse_args()
    # Our own log lines (ignored events) go to stderr with --verbose; socketio
    # and engineio set up their own loggers from logger=/engineio_logger=.
    log.addHandler(logging.StreamHandler(sys.stderr))
    log.setLevel(logging.INFO if opts.verbose else logging.WARNING)
    log.propagate = False
    asyncio.run(serve(opts))


if __name__ == "__main__":
    main()
