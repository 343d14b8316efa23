"""Serves the test authorization server (Scripts/oauth-server.sh starts it).

    python serve.py PORT_FILE

waitress, threaded (Django's development server left reused keep-alive connections hanging
under many concurrent clients), on 127.0.0.1 at a port the kernel chooses: the server binds
port 0 itself, so no other process can take the port between choosing and binding, and two
checkouts on one machine never collide. Once bound, it writes the port it got to PORT_FILE
(whole: written beside it and renamed into place), then serves until it is ended.

A restart (Scripts/oauth-server.sh restarts a server that no longer answers) passes the port the
last one published in APPEX_OAUTH_PORT: the new server binds it again when it is free, so a
client that read the port before the restart still reaches the server after it; when it is
taken, the kernel chooses again.

The instance token in APPEX_OAUTH_INSTANCE (made anew by every start) is what GET
/test/instance answers, so a client can tell this server from anything else that may answer on
that port later.
"""
import os
import sys

from waitress import create_server

from appex_oauth.wsgi import application


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: serve.py PORT_FILE")
    if not os.environ.get("APPEX_OAUTH_INSTANCE"):
        sys.exit("serve.py: APPEX_OAUTH_INSTANCE is not set")
    port_file = sys.argv[1]
    server = None
    previous = os.environ.get("APPEX_OAUTH_PORT", "")
    if previous.isdigit():
        try:
            server = create_server(application, host="127.0.0.1", port=int(previous), threads=16)
        except OSError:
            server = None
    if server is None:
        server = create_server(application, host="127.0.0.1", port=0, threads=16)
    partial = f"{port_file}.{os.getpid()}"
    with open(partial, "w") as file:
        file.write(f"{server.effective_port}\n")
    os.replace(partial, port_file)
    server.run()


if __name__ == "__main__":
    main()
