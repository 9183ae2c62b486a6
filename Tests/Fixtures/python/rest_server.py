#!/usr/bin/env python3
"""REST channel chat fixture (aiohttp + python-socketio), for Parley's REST transport tests.

The real server is not public; this one implements the API
shape its client apps use (docs/transports/rest.md describes it):
chats are *sent* over HTTP and *received* over a Socket.IO namespace per
channel, and a client that was away asks for what it missed with
`cursor_date`.

    .venv/bin/python Tests/Fixtures/python/rest_server.py --port 0 \
        --user bot@example.com:secret:parley --workspace parley --channel parley/general

Once it listens it prints exactly one line, `LISTENING <port>`, on stdout.
SIGTERM or SIGINT stops it with exit code 0.

API (every /v1 request needs the service key header; all but login need the
access token in the auth header; header names are options):

    POST /v1/users/login                   {email, password} -> {user_id, email, nickname,
                                           profileImage, token: {accessToken, refreshToken}}
    GET  /v1/auth/refresh                  auth header: the (expired) access token,
                                           RefreshToken: the refresh token -> {accessToken}
    GET  /v1/workspaces                    [{workspace_id, name, description, coverImage, owner_id, createdAt}]
    GET  /v1/workspaces/{wid}/channels     [{workspace_id, channel_id, name, description, ...}]
    POST /v1/workspaces/{wid}/channels     {name, description?} -> the channel (409 if it exists)
    GET  /v1/workspaces/{wid}/channels/{channel}/chats[?cursor_date=D]
                                           chats created strictly after D, oldest first (all without D)
    POST /v1/workspaces/{wid}/channels/{channel}/chats
                                           JSON or multipart with `content` (and `files`) -> the chat;
                                           the chat is also emitted as `channel` to namespace
                                           /ws-channel-{channel_id}, the sender's sockets included

`{channel}` is the channel's name or its id. Errors: 401 {"errorCode":"E05"}
for a missing/unknown/expired access token, 403 {"errorCode":"E01"} for a bad
service key, 404 for unknown workspaces and channels, 400 for a bad body.

Chat JSON: {"channel_id","channelName","chat_id","content","createdAt":
"yyyy-MM-ddTHH:mm:ss.SSSZ","files":[...],"user":{"user_id","email","nickname","profileImage"}}.
createdAt is strictly increasing over the whole server (a millisecond later
than the previous chat when the clock has not moved), so `cursor_date` never
splits two chats of the same millisecond.

Test-only endpoints (no auth; JSON bodies; see README.md here for details):
    POST /_test/post          {room: "ws/channel", user: nickname, text, extra?: {...}} -> the chat
    POST /_test/seed          {room, count, user?, prefix?} -> {"count": n}   (no broadcast)
    POST /_test/fail          {count, status, retry_after?, path?, method?}
    POST /_test/bare          {count}                  the next chat POSTs are stored, then answered 201 with no body
    POST /_test/hold          {count, seconds?}        the next chat POSTs are stored and broadcast, then answered after `seconds` (60)
    POST /_test/expire_tokens {refresh?: bool}
    POST /_test/sockets       {drop?: bool, refuse?: bool}
    POST /_test/emit          {room, data}             `channel` event with any JSON data
    POST /_test/raw           {room, packet}           raw Socket.IO packet text after "2/ws-channel-N,"
    POST /_test/malformed_next {count?, path?}          the next matching GETs answer broken JSON
    GET  /_test/chats?room=ws/channel                  every chat of the channel
    GET  /_test/stats                                  counters
"""

import argparse
import asyncio
import datetime
import itertools
import json
import logging
import signal
import socket
import ssl
import sys
import time

import socketio
from aiohttp import web

from fixture_record import recorder

log = logging.getLogger("rest_server")


def iso_ms(ms):
    d = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def parse_iso_ms(text):
    """'yyyy-MM-ddTHH:mm:ss.SSSZ' (the fraction optional) -> milliseconds, or None."""
    try:
        t = text.strip()
        if t.endswith("Z"):
            t = t[:-1] + "+00:00"
        d = datetime.datetime.fromisoformat(t)
        if d.tzinfo is None:
            d = d.replace(tzinfo=datetime.timezone.utc)
        return round(d.timestamp() * 1000)
    except (ValueError, AttributeError):
        return None


class State:
    def __init__(self, opts):
        self.opts = opts
        self.ids = itertools.count(1)
        self.users = {}        # user_id -> {user_id, email, nickname, profileImage, password}
        self.workspaces = {}   # workspace_id -> {workspace_id, name, ...}
        self.channels = {}     # channel_id -> {workspace_id, channel_id, name, ...}
        self.chats = {}        # channel_id -> [chat]
        self.access = {}       # access token -> user_id (valid ones)
        self.refresh = {}      # refresh token -> user_id
        self.last_ms = 0
        self.failures = []     # [{count, status, retry_after, path, method}]
        self.malformed = []    # [{count, path}]
        self.bare_answers = 0  # chat POSTs still to answer 201 with no body
        self.held_answers = 0  # chat POSTs still to answer only after `hold_seconds`
        self.hold_seconds = 0.0
        self.refuse_sockets = False
        self.stats = {"logins": 0, "refreshes": 0, "refresh_failures": 0, "posts": 0,
                      "injected": 0, "unauthorized": 0, "chat_gets": 0, "cursor_gets": []}
        self.tokens = itertools.count(1)
        self.state_file = None  # the --state file, appended to; None: memory only
        self.record = recorder(opts.record)

    # ---- --state: survive a restart ------------------------------------------
    #
    # Every change (accounts, workspaces, channels, chats, tokens) is appended
    # to the state file as one JSON line, flushed before the request that
    # made it is answered; a restarted fixture replays the file. So a restart
    # (as the chaos runner does) keeps the chats, the channel ids the bot's
    # namespaces use and the bot's tokens, like a real server with a database.

    def persist(self, kind, obj):
        if self.state_file is not None:
            self.state_file.write(json.dumps({"kind": kind, "obj": obj}) + "\n")
            self.state_file.flush()

    def load(self, path):
        """Replays `path` (when it exists), then appends every later change to it."""
        try:
            with open(path, encoding="utf-8") as f:
                lines = [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            lines = []
        top_id, top_token = 0, 0
        for line in lines:
            kind, o = line["kind"], line["obj"]
            if kind == "user":
                self.users[o["user_id"]] = o
                top_id = max(top_id, o["user_id"])
            elif kind == "workspace":
                self.workspaces[o["workspace_id"]] = o
                top_id = max(top_id, o["workspace_id"])
            elif kind == "channel":
                self.channels[o["channel_id"]] = o
                self.chats.setdefault(o["channel_id"], [])
                top_id = max(top_id, o["channel_id"])
            elif kind == "chat":
                self.chats[o["channel_id"]].append(o)
                top_id = max(top_id, o["chat_id"])
                self.last_ms = max(self.last_ms, parse_iso_ms(o["createdAt"]))
            elif kind == "chat_replace":
                self.chats[o["channel_id"]][-1] = o
            elif kind in ("access", "refresh"):
                getattr(self, kind)[o["token"]] = o["user_id"]
                top_token = max(top_token, int(o["token"].rsplit("-", 1)[1]))
            elif kind == "expire":
                self.access.clear()
                if o.get("refresh"):
                    self.refresh.clear()
        for chats in self.chats.values():
            chats.sort(key=lambda x: x["createdAt"])
        self.ids = itertools.count(top_id + 1)
        self.tokens = itertools.count(top_token + 1)
        self.state_file = open(path, "a", encoding="utf-8")

    def now_ms(self):
        ms = max(int(time.time() * 1000), self.last_ms + 1)
        self.last_ms = ms
        return ms

    def user(self, nickname, email=None, password=None):
        for u in self.users.values():
            if u["nickname"] == nickname:
                return u
        uid = next(self.ids)
        u = {"user_id": uid, "email": email or f"{nickname}@example.com", "nickname": nickname,
             "profileImage": None, "password": password}
        self.users[uid] = u
        self.persist("user", u)
        return u

    def workspace(self, name):
        for w in self.workspaces.values():
            if w["name"] == name:
                return w
        wid = next(self.ids)
        w = {"workspace_id": wid, "name": name, "description": None, "coverImage": None,
             "owner_id": 0, "createdAt": iso_ms(self.now_ms())}
        self.workspaces[wid] = w
        self.persist("workspace", w)
        return w

    def channel(self, workspace, name, create=True):
        for c in self.channels.values():
            if c["workspace_id"] == workspace["workspace_id"] and (c["name"] == name or str(c["channel_id"]) == str(name)):
                return c
        if not create:
            return None
        cid = next(self.ids)
        c = {"workspace_id": workspace["workspace_id"], "channel_id": cid, "name": name, "description": None,
             "coverImage": None, "owner_id": 0, "createdAt": iso_ms(self.now_ms())}
        self.channels[cid] = c
        self.chats[cid] = []
        self.persist("channel", c)
        return c

    def room(self, room, create=True):
        ws, _, ch = room.partition("/")
        if not ws or not ch:
            raise web.HTTPBadRequest(text="room must be workspace/channel")
        return self.channel(self.workspace(ws), ch, create=create)

    def chat(self, channel, user, content, files=None, ms=None):
        c = {"channel_id": channel["channel_id"], "channelName": channel["name"], "chat_id": next(self.ids),
             "content": content, "createdAt": iso_ms(ms if ms is not None else self.now_ms()), "files": files or [],
             "user": {k: user[k] for k in ("user_id", "email", "nickname", "profileImage")}}
        self.chats[channel["channel_id"]].append(c)
        self.persist("chat", c)
        self.record(event="chat", room=f"{channel['channel_id']}", user=user["nickname"], text=content)
        return c

    def issue_tokens(self, uid):
        access = f"access-{next(self.tokens)}"
        refresh = f"refresh-{next(self.tokens)}"
        self.access[access] = uid
        self.refresh[refresh] = uid
        self.persist("access", {"token": access, "user_id": uid})
        self.persist("refresh", {"token": refresh, "user_id": uid})
        return access, refresh


def error(status, code, headers=None):
    return web.json_response({"errorCode": code}, status=status, headers=headers)


def make_app(opts):
    st = State(opts)
    if opts.state is not None:
        st.load(opts.state)
    for spec in opts.user:
        email, password, nickname = spec.split(":", 2)
        st.user(nickname, email=email, password=password)
    for name in opts.workspace:
        st.workspace(name)
    for room in opts.channel:
        st.room(room)

    sio = socketio.AsyncServer(async_mode="aiohttp", namespaces="*", cors_allowed_origins="*",
                               ping_interval=opts.ping_interval, ping_timeout=opts.ping_timeout,
                               logger=opts.verbose, engineio_logger=opts.verbose)

    @sio.on("connect", namespace="*")
    async def connect(ns, sid, environ, auth):
        if st.refuse_sockets:
            raise socketio.exceptions.ConnectionRefusedError("sockets are refused (test switch)")
        if not ns.startswith("/ws-channel-"):
            raise socketio.exceptions.ConnectionRefusedError("unknown namespace")
        try:
            cid = int(ns[len("/ws-channel-"):])
        except ValueError:
            raise socketio.exceptions.ConnectionRefusedError("unknown channel")
        if cid not in st.channels:
            raise socketio.exceptions.ConnectionRefusedError("unknown channel")
        st.record(event="connect", room=str(cid))

    async def broadcast(channel, data):
        await sio.emit("channel", data, namespace=f"/ws-channel-{channel['channel_id']}")

    # ---- middleware: injected failures, then auth --------------------------

    @web.middleware
    async def inject(request, handler):
        if not request.path.startswith("/_test/"):
            for f in st.failures:
                if f["count"] > 0 and f["path"] in request.path and f["method"] in (request.method, "*"):
                    f["count"] -= 1
                    st.stats["injected"] += 1
                    headers = {}
                    if f.get("retry_after") is not None:
                        headers["Retry-After"] = str(f["retry_after"])
                    return web.json_response({"errorCode": "E99", "message": "injected"}, status=f["status"],
                                             headers=headers)
            st.failures[:] = [f for f in st.failures if f["count"] > 0]
        return await handler(request)

    def authed(request, need_token=True):
        if request.headers.get(opts.key_header) != opts.service_key:
            raise_json(403, "E01")
        if not need_token:
            return None
        token = request.headers.get(opts.auth_header)
        uid = st.access.get(token)
        if uid is None:
            st.stats["unauthorized"] += 1
            raise_json(401, "E05")
        return st.users[uid]

    def raise_json(status, code):
        raise _Http(status, code)

    def _Http(status, code):
        """An aiohttp HTTP error with the server's JSON error body."""
        cls = {400: web.HTTPBadRequest, 401: web.HTTPUnauthorized, 403: web.HTTPForbidden,
               404: web.HTTPNotFound}[status]
        return cls(text=json.dumps({"errorCode": code}), content_type="application/json")

    def find_channel(request, create=False):
        try:
            wid = int(request.match_info["wid"])
        except ValueError:
            raise _Http(404, "E11")
        w = st.workspaces.get(wid)
        if w is None:
            raise _Http(404, "E11")
        name = request.match_info.get("channel")
        if name is None:
            return w, None
        c = st.channel(w, name, create=False)
        if c is None:
            raise _Http(404, "E12")
        return w, c

    # ---- the API ------------------------------------------------------------

    async def login(request):
        authed(request, need_token=False)
        try:
            body = await request.json()
        except json.JSONDecodeError:
            return error(400, "E02")
        email, password = body.get("email"), body.get("password")
        user = next((u for u in st.users.values() if u["email"] == email), None)
        if user is None or user["password"] is None or user["password"] != password:
            return error(401, "E03")
        st.stats["logins"] += 1
        access, refresh = st.issue_tokens(user["user_id"])
        out = {k: user[k] for k in ("user_id", "email", "nickname", "profileImage")}
        out["token"] = {"accessToken": access, "refreshToken": refresh}
        return web.json_response(out)

    async def refresh(request):
        authed(request, need_token=False)
        uid = st.refresh.get(request.headers.get(opts.refresh_header))
        if uid is None:
            st.stats["refresh_failures"] += 1
            return error(418, "E06")
        st.stats["refreshes"] += 1
        access = f"access-{next(st.tokens)}"
        st.access[access] = uid
        st.persist("access", {"token": access, "user_id": uid})
        return web.json_response({"accessToken": access})

    async def workspaces(request):
        authed(request)
        return web.json_response(list(st.workspaces.values()))

    async def channels(request):
        authed(request)
        w, _ = find_channel(request)
        return web.json_response([c for c in st.channels.values() if c["workspace_id"] == w["workspace_id"]])

    async def create_channel(request):
        authed(request)
        w, _ = find_channel(request)
        try:
            body = await request.json()
        except json.JSONDecodeError:
            return error(400, "E02")
        name = body.get("name")
        if not isinstance(name, str) or not name:
            return error(400, "E02")
        if st.channel(w, name, create=False) is not None:
            return error(409, "E12")
        return web.json_response(st.channel(w, name))

    async def get_chats(request):
        authed(request)
        _, c = find_channel(request)
        st.stats["chat_gets"] += 1
        for m in st.malformed:
            if m["count"] > 0 and m["path"] in request.path:
                m["count"] -= 1
                return web.Response(text='[{"chat_id": 1, "content": "cut sh', content_type="application/json")
        chats = st.chats[c["channel_id"]]
        cursor = request.query.get("cursor_date")
        if cursor is not None:
            st.stats["cursor_gets"].append(cursor)
            ms = parse_iso_ms(cursor)
            if ms is None:
                return error(400, "E02")
            chats = [x for x in chats if parse_iso_ms(x["createdAt"]) > ms]
        return web.json_response(chats)

    async def post_chat(request):
        user = authed(request)
        _, c = find_channel(request)
        content, files = None, []
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            async for part in reader:
                if part.name == "content":
                    content = await part.text()
                elif part.name == "files":
                    files.append(part.filename or "file")
                    await part.read()
        else:
            try:
                body = await request.json()
            except json.JSONDecodeError:
                return error(400, "E02")
            content, files = body.get("content"), body.get("files") or []
        if not isinstance(content, str):
            return error(400, "E02")
        st.stats["posts"] += 1
        chat = st.chat(c, user, content, files)
        await broadcast(c, chat)
        if st.held_answers > 0:
            # Stored and broadcast, but the answer is late: a send caught in flight.
            st.held_answers -= 1
            await asyncio.sleep(st.hold_seconds)
        if st.bare_answers > 0:
            # A server that confirms a post with 201 and no body (delivered all the same).
            st.bare_answers -= 1
            return web.Response(status=201)
        return web.json_response(chat)

    # ---- test controls ------------------------------------------------------

    async def body_of(request):
        try:
            return await request.json()
        except json.JSONDecodeError:
            raise _Http(400, "E02")

    async def t_post(request):
        b = await body_of(request)
        c = st.room(b["room"])
        chat = st.chat(c, st.user(b["user"]), b["text"])
        extra = b.get("extra")
        if isinstance(extra, dict):
            chat = {**chat, **extra}
            st.chats[c["channel_id"]][-1] = chat
            st.persist("chat_replace", chat)
        await broadcast(c, chat)
        return web.json_response(chat)

    async def t_seed(request):
        b = await body_of(request)
        c = st.room(b["room"])
        user = st.user(b.get("user", "archivist"))
        prefix = b.get("prefix", "old")
        n = int(b["count"])
        # Seeded history is spread over the past, a millisecond apart, older than anything live.
        start = int(time.time() * 1000) - n - 60_000
        start = max(start, st.last_ms + 1)
        for i in range(n):
            st.chat(c, user, f"{prefix} {i + 1}", ms=start + i)
        st.last_ms = max(st.last_ms, start + n)
        st.chats[c["channel_id"]].sort(key=lambda x: x["createdAt"])  # stable: oldest first, as the API answers
        return web.json_response({"count": n})

    async def t_fail(request):
        b = await body_of(request)
        st.failures.append({"count": int(b.get("count", 1)), "status": int(b["status"]),
                            "retry_after": b.get("retry_after"), "path": b.get("path", "/chats"),
                            "method": b.get("method", "POST")})
        return web.json_response({"ok": True})

    async def t_bare(request):
        b = await body_of(request)
        st.bare_answers = int(b.get("count", 1))
        return web.json_response({"ok": True})

    async def t_hold(request):
        b = await body_of(request)
        st.held_answers = int(b.get("count", 1))
        st.hold_seconds = float(b.get("seconds", 60))
        return web.json_response({"ok": True})

    async def t_expire(request):
        b = await body_of(request)
        st.access.clear()
        if b.get("refresh"):
            st.refresh.clear()
        st.persist("expire", {"refresh": bool(b.get("refresh"))})
        return web.json_response({"ok": True})

    async def t_sockets(request):
        b = await body_of(request)
        if "refuse" in b:
            st.refuse_sockets = bool(b["refuse"])
        if b.get("drop"):
            for eio_sid in list(sio.eio.sockets.keys()):
                await sio.eio.disconnect(eio_sid)
        return web.json_response({"ok": True})

    async def t_emit(request):
        b = await body_of(request)
        c = st.room(b["room"])
        await broadcast(c, b.get("data"))
        return web.json_response({"ok": True})

    async def t_raw(request):
        b = await body_of(request)
        c = st.room(b["room"])
        ns = f"/ws-channel-{c['channel_id']}"
        sent = 0
        for sid, eio_sid in list(sio.manager.get_participants(ns, None)):
            # Engine.IO adds the message type "4"; this is the Socket.IO packet: EVENT in namespace ns.
            await sio.eio.send(eio_sid, f"2{ns},{b['packet']}")
            sent += 1
        return web.json_response({"sent": sent})

    async def t_malformed(request):
        b = await body_of(request)
        st.malformed.append({"count": int(b.get("count", 1)), "path": b.get("path", "/chats")})
        return web.json_response({"ok": True})

    async def t_chats(request):
        c = st.room(request.query["room"], create=False)
        return web.json_response(st.chats[c["channel_id"]] if c else [])

    async def t_stats(request):
        return web.json_response(st.stats)

    app = web.Application(middlewares=[inject])
    app.router.add_post("/v1/users/login", login)
    app.router.add_get("/v1/auth/refresh", refresh)
    app.router.add_get("/v1/workspaces", workspaces)
    app.router.add_get("/v1/workspaces/{wid}/channels", channels)
    app.router.add_post("/v1/workspaces/{wid}/channels", create_channel)
    app.router.add_get("/v1/workspaces/{wid}/channels/{channel}/chats", get_chats)
    app.router.add_post("/v1/workspaces/{wid}/channels/{channel}/chats", post_chat)
    app.router.add_post("/_test/post", t_post)
    app.router.add_post("/_test/seed", t_seed)
    app.router.add_post("/_test/fail", t_fail)
    app.router.add_post("/_test/bare", t_bare)
    app.router.add_post("/_test/hold", t_hold)
    app.router.add_post("/_test/expire_tokens", t_expire)
    app.router.add_post("/_test/sockets", t_sockets)
    app.router.add_post("/_test/emit", t_emit)
    app.router.add_post("/_test/raw", t_raw)
    app.router.add_post("/_test/malformed_next", t_malformed)
    app.router.add_get("/_test/chats", t_chats)
    app.router.add_get("/_test/stats", t_stats)
    sio.attach(app, socketio_path=opts.path)
    return app, sio


def listening_socket(host, port):
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def serve(opts):
    app, sio = make_app(opts)
    runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=0.1)
    await runner.setup()
    sock = listening_socket(opts.host, opts.port)
    context = None
    if opts.certfile is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(opts.certfile, opts.keyfile)
    await web.SockSite(runner, sock, ssl_context=context).start()
    print(f"LISTENING {sock.getsockname()[1]}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await sio.shutdown()
    await runner.cleanup()


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="REST channel chat fixture server (aiohttp + python-socketio).")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 (default): pick a free port")
    p.add_argument("--user", action="append", default=[], metavar="EMAIL:PASSWORD:NICKNAME",
                   help="an account that can log in (repeatable)")
    p.add_argument("--workspace", action="append", default=[], metavar="NAME", help="a workspace (repeatable)")
    p.add_argument("--channel", action="append", default=[], metavar="WORKSPACE/NAME",
                   help="a channel, its workspace made when missing (repeatable)")
    p.add_argument("--service-key", default="test-key")
    p.add_argument("--auth-header", default="Authorization")
    p.add_argument("--key-header", default="SesacKey")
    p.add_argument("--refresh-header", default="RefreshToken")
    p.add_argument("--path", default="/socket.io/", help="Socket.IO path (default /socket.io/)")
    p.add_argument("--ping-interval", type=float, default=25.0)
    p.add_argument("--ping-timeout", type=float, default=20.0)
    p.add_argument("--certfile", default=None, help="PEM certificate (chain): serve https:// and wss:// instead")
    p.add_argument("--keyfile", default=None, help="PEM private key for --certfile (default: in the certificate file)")
    p.add_argument("--state", default=None, metavar="FILE",
                   help="keep everything in FILE too (appended JSON lines) and start from it: survives restarts")
    p.add_argument("--record", default=None, metavar="FILE",
                   help="append every stored chat and every channel socket connect to FILE as JSON lines")
    p.add_argument("--verbose", action="store_true")
    opts = p.parse_args(argv)
    if opts.keyfile is not None and opts.certfile is None:
        p.error("--keyfile needs --certfile")
    return opts


def main():
    opts = parse_args()
    log.addHandler(logging.StreamHandler(sys.stderr))
    log.setLevel(logging.INFO if opts.verbose else logging.WARNING)
    logging.getLogger("aiohttp").setLevel(logging.ERROR)
    asyncio.run(serve(opts))


if __name__ == "__main__":
    main()
