#!/usr/bin/env python3
"""An HTTP server that answers every request with one status and a body
quoting what it was sent: the request line (path and query), every header
and the body, the way careless error pages do ("Cannot GET /path?token=…").

The secrets tests point bots at it to prove that what a server echoes back
never reaches a log line. Prints `LISTENING <port>` once listening.

    .venv/bin/python Tests/Fixtures/python/echo_http_server.py [--port 0] [--status 500]
"""

import argparse
import http.server
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 (default): pick a free port")
    p.add_argument("--status", type=int, default=500, help="the status of every answer (default 500)")
    args = p.parse_args()

    class Echo(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self):
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n) if n else b""
            text = f"Cannot {self.requestline}\n{self.headers}\n".encode() + body
            self.send_response(args.status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)

        do_GET = do_POST = do_PUT = do_DELETE = answer

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer((args.host, args.port), Echo)
    print(f"LISTENING {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
