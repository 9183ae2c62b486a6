"""What the fixture servers share: the --record file of what a room received.

The chaos runner reads it as the room's ground truth (see
Tests/ParleyRuntimeTests/Chaos/). The servers run as scripts, so their own
folder is on the import path.
"""
import json
import time


def recorder(path):
    """A function appending one JSON line per call to `path` (flushed at once), or a no-op."""
    if path is None:
        return lambda **fields: None
    f = open(path, "a", encoding="utf-8")

    def record(**fields):
        f.write(json.dumps({"t": time.time(), **fields}) + "\n")
        f.flush()
    return record
