#!/usr/bin/env python3
"""An aiohttp server for plugins' `bot.http` requests to reach, with the
answers hostile servers give. Prints `LISTENING <port>` once listening.

    GET  /weather?city=X    {"city": X, "sky": "sunny", "temp": 21}
    ANY  /echo              {"method", "path", "query", "headers", "body"} of the request
    GET  /status/N          an empty answer with status N
    GET  /redirect?to=URL   302 to URL (relative or absolute)
    GET  /hops/N            302 to /hops/N-1, then 200 at /hops/0
    GET  /drip              one byte every half second, never finishing
    GET  /endless           64 KiB chunks as fast as they go, never finishing
    GET  /count             how many requests each path had, as JSON

    .venv/bin/python Tests/Fixtures/python/http_target.py [--port 0]
"""

import argparse
import asyncio
import collections

from aiohttp import web

counts = collections.Counter()


async def weather(request):
    return web.json_response({"city": request.query.get("city", ""), "sky": "sunny", "temp": 21})


async def echo(request):
    body = await request.text()
    return web.json_response({
        "method": request.method, "path": request.path, "query": request.query_string,
        "headers": {k: v for k, v in request.headers.items()}, "body": body,
    })


async def status(request):
    return web.Response(status=int(request.match_info["n"]))


async def redirect(request):
    raise web.HTTPFound(request.query["to"])


async def hops(request):
    n = int(request.match_info["n"])
    if n == 0:
        return web.Response(text="arrived")
    raise web.HTTPFound(f"/hops/{n - 1}")


async def drip(request):
    resp = web.StreamResponse()
    await resp.prepare(request)
    while True:
        await resp.write(b".")
        await asyncio.sleep(0.5)


async def endless(request):
    resp = web.StreamResponse()
    await resp.prepare(request)
    chunk = b"x" * 65536
    while True:
        await resp.write(chunk)


async def count(request):
    return web.json_response(dict(counts))


@web.middleware
async def counting(request, handler):
    counts[request.path] += 1
    return await handler(request)


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    args = p.parse_args()
    app = web.Application(middlewares=[counting])
    app.router.add_get("/weather", weather)
    app.router.add_route("*", "/echo", echo)
    app.router.add_get("/status/{n}", status)
    app.router.add_get("/redirect", redirect)
    app.router.add_get("/hops/{n}", hops)
    app.router.add_get("/drip", drip)
    app.router.add_get("/endless", endless)
    app.router.add_get("/count", count)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, args.host, args.port)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    print(f"LISTENING {port}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main())
