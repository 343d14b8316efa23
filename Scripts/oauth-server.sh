#!/usr/bin/env bash
# The real OAuth 2 authorization server Appex's token tests run against: django-oauth-toolkit
# 3.4.1 (Tests/OAuthServer) on 127.0.0.1, SQLite-backed. Idempotent.
#
#     Scripts/oauth-server.sh start [PORT]   # installs (once), migrates, seeds, starts; prints the PID
#     Scripts/oauth-server.sh stop [PORT]
#     Scripts/oauth-server.sh status [PORT]
#
# The virtualenv lives in .build-oauth/venv, the server's state in .build-oauth/state-PORT
# (both ignored by git). Default PORT 8765 (APPEX_OAUTH_PORT).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
command="${1:-start}"
port="${2:-${APPEX_OAUTH_PORT:-8765}}"
base="$root/.build-oauth"
venv="$base/venv"
state="$base/state-$port"
pidfile="$state/server.pid"
server="$root/Tests/OAuthServer"
url="http://127.0.0.1:$port/.well-known/oauth-authorization-server"

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }
# Whether the metadata answers (Python's urllib: no curl needed on a fresh machine).
answers() { [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import urllib.request; urllib.request.urlopen('$url', timeout=2)" >/dev/null 2>&1; }

install() {
  # One installer at a time (tests in several processes may start the server together).
  exec 9>"$base.lock"
  flock 9
  if [ ! -x "$venv/bin/python" ] || ! cmp -s "$server/requirements.txt" "$venv/requirements.txt"; then
    if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' 2>/dev/null; then
      sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
      $sudo apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv
    fi
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$server/requirements.txt"
    cp "$server/requirements.txt" "$venv/requirements.txt"
  fi
}

case "$command" in
  start)
    mkdir -p "$base"
    install
    mkdir -p "$state"
    exec 8>"$state.lock"
    flock 8
    if running && answers; then cat "$pidfile"; exit 0; fi
    export APPEX_OAUTH_STATE="$state" PYTHONDONTWRITEBYTECODE=1
    "$venv/bin/python" "$server/manage.py" migrate -v 0
    "$venv/bin/python" "$server/manage.py" seed >/dev/null
    # WAL is a property of the file: set once here, not by every request's connection.
    "$venv/bin/python" -c "import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute('PRAGMA journal_mode=WAL')" "$state/db.sqlite3"
    # waitress, threaded (Django's development server left reused keep-alive connections hanging
    # under many concurrent clients). Detached from this shell: it outlives the script, and
    # `stop` ends it. It must not inherit the lock descriptors (8, 9), or it would hold the
    # locks for its whole life.
    PYTHONPATH="$server" setsid "$venv/bin/waitress-serve" --listen="127.0.0.1:$port" --threads=16 \
      appex_oauth.wsgi:application \
      >"$state/server.log" 2>&1 < /dev/null 8>&- 9>&- &
    echo $! > "$pidfile"
    for _ in $(seq 1 300); do
      if answers; then cat "$pidfile"; exit 0; fi
      if ! running; then echo "oauth-server: the server exited; its log:" >&2; cat "$state/server.log" >&2; exit 1; fi
      sleep 0.1
    done
    echo "oauth-server: no answer from $url within 30 s; log in $state/server.log" >&2
    exit 1
    ;;
  stop)
    if running; then kill "$(cat "$pidfile")"; fi
    rm -f "$pidfile"
    ;;
  status)
    if running && answers; then echo "running $(cat "$pidfile") on 127.0.0.1:$port"; else echo "stopped"; exit 1; fi
    ;;
  *)
    echo "usage: $0 start|stop|status [PORT]" >&2
    exit 2
    ;;
esac
