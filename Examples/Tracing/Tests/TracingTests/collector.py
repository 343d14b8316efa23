#!/usr/bin/env python3
"""A tiny OTLP/HTTP collector for the tracing example's tests (Python's standard library only).

Usage: collector.py DIRECTORY

Listens on 127.0.0.1, on a port the system picks, and prints that port on its first line of
standard output. Accepts POST /v1/traces (and /v1/metrics, /v1/logs) with OTLP/JSON bodies and
writes each body, as received, to DIRECTORY/NNNN-traces.json (written under another name, then
renamed: a reader never sees half a file). Answers 200 with `{}`, as OTLP/HTTP's success says.
Exits when its standard input closes, so it never outlives the test that started it.
"""

import gzip
import http.server
import os
import sys
import threading

directory = sys.argv[1]
lock = threading.Lock()
count = 0


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as OTLP/HTTP exporters expect

    def do_POST(self):
        global count
        signal = self.path.rstrip("/").rsplit("/", 1)[-1]
        if not self.path.startswith("/v1/") or signal not in ("traces", "metrics", "logs"):
            self.answer(404, b'{"message":"not an OTLP path"}')
            return
        body = self.read_body()
        if self.headers.get("Content-Encoding", "").lower() == "gzip":
            body = gzip.decompress(body)
        with lock:
            count += 1
            name = "%04d-%s.json" % (count, signal)
        path = os.path.join(directory, name)
        with open(path + ".part", "wb") as file:
            file.write(body)
        os.rename(path + ".part", path)
        self.answer(200, b"{}")

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()  # the chunk's CRLF
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def answer(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass  # quiet: the files are the record


def exit_when_stdin_closes():
    sys.stdin.buffer.read()
    os._exit(0)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
server.serve_forever()
