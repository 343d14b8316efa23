#!/usr/bin/env bash
# The real OAuth 2 authorization server Appex's token tests run against: django-oauth-toolkit
# 3.4.1 (Tests/OAuthServer) on 127.0.0.1, SQLite-backed. Idempotent.
#
#     Scripts/oauth-server.sh start    # installs (once), migrates, seeds, starts; prints the port
#     Scripts/oauth-server.sh stop
#     Scripts/oauth-server.sh status   # "running PID on 127.0.0.1:PORT", or "stopped" (exit 1)
#     Scripts/oauth-server.sh port     # the port of the running server (exit 1 when stopped)
#
# One server per checkout, at a port the kernel chooses: the server binds port 0 itself and
# publishes the port it got in .build-oauth/state/server.port, so two checkouts on one machine
# (each with its own .build-oauth) never collide. Every start also makes a random instance
# token, .build-oauth/state/server.instance, which the server answers at GET /test/instance:
# readiness (here and in the tests, Tests/AppexTests/TestSupport) means the server on the
# published port answers with this checkout's token, not merely that something answers there.
#
# The virtualenv lives in .build-oauth/venv, the server's state (database, log, pid, port,
# token) in .build-oauth/state (both ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
command="${1:-start}"
base="$root/.build-oauth"
venv="$base/venv"
state="$base/state"
pidfile="$state/server.pid"
portfile="$state/server.port"
tokenfile="$state/server.instance"
server="$root/Tests/OAuthServer"

# Whether the recorded pid is a live process running this checkout's server.
running() {
  [ -f "$pidfile" ] || return 1
  local pid
  pid="$(cat "$pidfile")"
  kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$server/serve.py"
}
# Whether the server on the published port answers with the published instance token (Python's
# urllib: no curl needed on a fresh machine).
answers() {
  [ -x "$venv/bin/python" ] && [ -s "$portfile" ] && [ -s "$tokenfile" ] || return 1
  "$venv/bin/python" - "$(cat "$portfile")" "$(cat "$tokenfile")" >/dev/null 2>&1 <<'PY'
import json, sys, urllib.request
port, token = sys.argv[1], sys.argv[2]
with urllib.request.urlopen(f"http://127.0.0.1:{port}/test/instance", timeout=2) as response:
    sys.exit(0 if json.load(response).get("instance") == token else 1)
PY
}

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

# Ends the recorded server, if it is this checkout's, and forgets it (holds lock 8).
end_server() {
  if running; then
    local pid
    pid="$(cat "$pidfile")"
    kill "$pid"
    # Bounded: a server that ignores SIGTERM for 5 s is killed.
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
  fi
  rm -f "$pidfile" "$portfile" "$tokenfile"
}

case "$command" in
  start)
    mkdir -p "$base"
    install >&2  # standard output carries the port alone
    mkdir -p "$state"
    exec 8>"$state.lock"
    flock 8
    # A server of ours that is alive is given 60 s to answer as itself: under load (the product
    # tests, the demo and the widget host all at once) /test/instance can take longer than one
    # 2-s try, and restarting a busy server breaks every request in flight and, at a new port,
    # every client that read the old one ("Failed to connect to 127.0.0.1 port N" in the
    # product's tests after a restart here).
    if running; then
      for _ in $(seq 1 20); do
        if answers; then cat "$portfile"; exit 0; fi
        running || break
        sleep 1
      done
    fi
    # A restart binds the last published port again when it is free (serve.py), so clients that
    # read it before still reach the server.
    APPEX_OAUTH_PORT="$(cat "$portfile" 2>/dev/null || true)"
    export APPEX_OAUTH_PORT
    end_server  # a server that no longer answers as itself (or a stale record)
    export APPEX_OAUTH_STATE="$state" PYTHONDONTWRITEBYTECODE=1
    "$venv/bin/python" "$server/manage.py" migrate -v 0 >&2
    "$venv/bin/python" "$server/manage.py" seed >/dev/null
    # WAL is a property of the file: set once here, not by every request's connection.
    "$venv/bin/python" -c "import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute('PRAGMA journal_mode=WAL')" "$state/db.sqlite3"
    # A new instance token for every start: readiness proves it is talking to this server.
    APPEX_OAUTH_INSTANCE="$("$venv/bin/python" -c 'import secrets; print(secrets.token_hex(16))')"
    export APPEX_OAUTH_INSTANCE
    printf '%s\n' "$APPEX_OAUTH_INSTANCE" >"$tokenfile.new"
    mv "$tokenfile.new" "$tokenfile"
    # Detached from this shell: it outlives the script, and `stop` ends it. It inherits no
    # descriptor but 0-2: not the lock descriptors (8, 9), or it would hold the locks for its
    # whole life, and nothing the script's caller left open — Foundation's Process (the tests
    # run this script with it) learns that its child exited when the child's end of a socket
    # pair closes, and would wait for the server's end as long as the server lives.
    (
      for fd in /proc/$BASHPID/fd/*; do
        fd="${fd##*/}"
        if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi
      done
      PYTHONPATH="$server" exec setsid "$venv/bin/python" "$server/serve.py" "$portfile" >"$state/server.log" 2>&1 </dev/null
    ) &
    echo $! > "$pidfile"
    for _ in $(seq 1 300); do
      if answers; then cat "$portfile"; exit 0; fi
      if ! running; then echo "oauth-server: the server exited; its log:" >&2; cat "$state/server.log" >&2; exit 1; fi
      sleep 0.1
    done
    echo "oauth-server: the server (pid $(cat "$pidfile")) did not answer as instance $APPEX_OAUTH_INSTANCE within 30 s; log in $state/server.log" >&2
    exit 1
    ;;
  stop)
    mkdir -p "$state"
    exec 8>"$state.lock"
    flock 8
    end_server
    ;;
  status)
    if running && answers; then echo "running $(cat "$pidfile") on 127.0.0.1:$(cat "$portfile")"; else echo "stopped"; exit 1; fi
    ;;
  port)
    if running && answers; then cat "$portfile"; else echo "oauth-server: not running" >&2; exit 1; fi
    ;;
  *)
    echo "usage: $0 start|stop|status|port" >&2
    exit 2
    ;;
esac
