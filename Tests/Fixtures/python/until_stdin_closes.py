#!/usr/bin/env python3
"""Runs a fixture script and stops it (SIGTERM) when stdin reaches EOF.

Tests and the bench start the python peers with a pipe as stdin that only
they hold; when they close it, or die by any signal (kill -9 included), the
pipe closes and the peer exits instead of lingering on its port. The script
runs in this same process (same PID, so /proc/PID/stat is the peer's own CPU).

    .venv/bin/python Tests/Fixtures/python/until_stdin_closes.py SCRIPT [ARGS...]
"""

import os
import runpy
import signal
import sys
import threading

# A parent that blocked or ignored these (Dispatch threads block SIGTERM, and
# exec keeps that) would make the peer deaf to its stop signal.
stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
for s in stops:
    signal.signal(s, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)


def watch():
    try:
        while os.read(0, 65536):  # raw reads: a buffered stdin's lock would trouble interpreter exit
            pass
    finally:
        os.kill(os.getpid(), signal.SIGTERM)


threading.Thread(target=watch, daemon=True).start()
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
