#!/usr/bin/env bash
# Makes the Python virtual environment that runs the Socket.IO test peers
# (socketchat_server.py, echo_peer.py) and installs requirements.txt into it.
#
#   bash Tests/Fixtures/python/setup-venv.sh [VENV_DIR]     # default: <repo>/.venv
#
# Idempotent: a stamp file inside the venv holds the sha256 of requirements.txt;
# when it matches, nothing is done (no network). When requirements.txt changed,
# the venv is made anew. Prints one line saying what it did.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
venv="${1:-$repo/.venv}"
req="$here/requirements.txt"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$req" | cut -d' ' -f1)"

# Up to date: same requirements, the packages are there, and the venv's python
# still starts (it breaks if the python it was made from went away).
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] \
    && compgen -G "$venv/lib/python3*/site-packages/socketio/__init__.py" >/dev/null \
    && "$venv/bin/python" -c '' 2>/dev/null; then
  echo "python venv $venv: up to date"
  exit 0
fi

# --clear empties the folder first: refuse to do that to anything but a venv.
if [[ -e "$venv" && ! -f "$venv/pyvenv.cfg" ]]; then
  echo "setup-venv.sh: $venv exists and is not a Python venv; not touching it" >&2
  exit 1
fi
action="made"
[[ -e "$venv" ]] && action="remade"

python3 -m venv --clear "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
# Written last: an install that failed half-way is redone next time.
echo "$want" > "$stamp"
echo "python venv $venv: $action, $(grep -cE '^[A-Za-z]' "$req") packages installed"
