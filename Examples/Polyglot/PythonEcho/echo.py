#!/usr/bin/python3
"""An Appex extension in Python, standard library only, written from docs/protocol.md alone.

It serves the echo test point: every request is answered with its own bytes; a request whose
JSON holds "delay_ms": N is answered N milliseconds later, unless the host cancels it first
(then it is never answered). Large payloads arrive and leave in sealed memfds. It refuses
distributed-actor calls, ends the connection on a frame it does not understand, and exits when
the host goes.

Bundle: appex bundle --executable echo.py --output HOST.app/Extensions/PythonEcho.appex
        --identifier com.example.pyecho --binding HOST.POINT --key team.key
"""
import ctypes
import fcntl
import json
import mmap
import os
import select
import socket
import struct
import sys
import time

HELLO, REQUEST, REPLY, FAILURE, CANCEL, GOODBYE, INVOCATION = range(1, 8)
PROTOCOL = 2
HEADER = struct.Struct("<IBBBBQ")  # length, kind, flags, two reserved bytes, request id


def fail(why, status=1):
    sys.stderr.write("pyecho: %s\n" % why)
    sys.exit(status)


# The launch contract (protocol.md 3): die with the host; find the connection.
ctypes.CDLL(None).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
if "APPEX_CONNECTION_FD" not in os.environ:
    fail("not launched by an Appex host (no APPEX_CONNECTION_FD)")
if os.getppid() not in (0, int(os.environ.get("APPEX_HOST_PID", "0"))):
    sys.exit(0)  # the host went before the signal was armed
descriptor = int(os.environ["APPEX_CONNECTION_FD"])
fcntl.fcntl(descriptor, fcntl.F_SETFD, fcntl.FD_CLOEXEC)
connection = socket.socket(fileno=descriptor)
me = os.environ["APPEX_BUNDLE_IDENTIFIER"]
point = os.environ["APPEX_EXTENSION_POINT"]
limits = {"frame": 16 << 20, "shared": 1 << 30, "threshold": 256 << 10}
passed = []  # descriptors that came with shared-memory headers, in order


# Frames (protocol.md 4 and 7).

def read_exactly(count):
    data = bytearray()
    while len(data) < count:
        chunk, ancillary, _, _ = connection.recvmsg(count - len(data), socket.CMSG_SPACE(4 * 4))
        for level, kind, value in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                usable = len(value) - len(value) % 4
                passed.extend(struct.unpack("%di" % (usable // 4), value[:usable]))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def receive():
    """The next frame as (kind, request id, payload); None when the host closed the connection."""
    header = read_exactly(HEADER.size)
    if header is None:
        return None
    length, kind, flags, reserved1, reserved2, request_id = HEADER.unpack(header)
    if reserved1 or reserved2 or flags & ~1:
        fail("a frame header with reserved bits set")
    if not HELLO <= kind <= INVOCATION:
        fail("a frame of unknown kind %d: ending the connection" % kind, status=2)
    if flags & 1:  # the payload is in the sealed memfd that came with the header
        if not passed or length > limits["shared"]:
            fail("a shared-memory frame without its memfd, or too large")
        memfd = passed.pop(0)
        try:
            payload = mmap.mmap(memfd, length, prot=mmap.PROT_READ)[:] if length else b""
        finally:
            os.close(memfd)
        return kind, request_id, payload
    if length > limits["frame"]:
        fail("a frame larger than the host's own limit")
    payload = read_exactly(length) if length else b""
    if payload is None:
        return None
    return kind, request_id, payload


def send(kind, request_id, payload):
    try:
        if len(payload) < limits["threshold"]:
            connection.sendall(HEADER.pack(len(payload), kind, 0, 0, 0, request_id) + payload)
            return
        memfd = os.memfd_create("appex-payload", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        written = 0
        while written < len(payload):
            written += os.pwrite(memfd, payload[written:], written)
        fcntl.fcntl(memfd, fcntl.F_ADD_SEALS,
                    fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SEAL)
        header = HEADER.pack(len(payload), kind, 1, 0, 0, request_id)
        connection.sendmsg([header], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", memfd))])
        os.close(memfd)
    except (BrokenPipeError, ConnectionResetError):
        sys.exit(0)  # the host is gone


# The hello's wire form (protocol.md 5): varints and strings.

def varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def string(text):
    data = text.encode()
    return varint(len(data)) + data


class Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def byte(self):
        if self.at >= len(self.data):
            fail("the host's hello ends early")
        self.at += 1
        return self.data[self.at - 1]

    def varint(self):
        value = shift = 0
        while shift < 64:
            byte = self.byte()
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7
        fail("a varint wider than 64 bits")

    def string(self):
        count = self.varint()
        if count > len(self.data) - self.at:
            fail("a string runs past the host's hello")
        self.at += count
        return self.data[self.at - count:self.at].decode()


# The handshake: the host speaks first.
frame = receive()
if frame is None or frame[0] != HELLO or not frame[2]:
    fail("the host did not say hello")
if frame[2][0] != PROTOCOL:
    fail("the host does not speak protocol 2")
hello = Reader(frame[2])
hello.byte()
host, launched, host_point = hello.string(), hello.string(), hello.string()
if hello.at < len(hello.data) and hello.byte():
    limits = {"frame": hello.varint(), "shared": hello.varint(), "threshold": hello.varint()}
if launched != me:
    fail("launched as %s, but this is %s" % (launched, me))
pid = os.getpid()
send(HELLO, 0, bytes([PROTOCOL]) + string(me) + string(point) + varint((pid << 1) ^ (pid >> 63)) + b"\x00")


# Serving the echo point until the host closes the connection.

def delay_of(payload):
    try:
        message = json.loads(payload)
    except ValueError:
        return 0
    return message.get("delay_ms", 0) if isinstance(message, dict) else 0


pending = {}  # request id -> (when it is due, on the monotonic clock, its bytes)
while True:
    wait = None
    if pending:
        wait = max(0.0, min(due for due, _ in pending.values()) - time.monotonic())
    readable, _, _ = select.select([connection], [], [], wait)
    if readable:
        frame = receive()
        if frame is None:
            sys.exit(0)  # the host closed the connection: done
        kind, request_id, payload = frame
        if kind == REQUEST:
            delay = delay_of(payload)
            if delay > 0:
                pending[request_id] = (time.monotonic() + delay / 1000.0, payload)
            else:
                send(REPLY, request_id, payload)
        elif kind == CANCEL:
            pending.pop(request_id, None)  # no longer wanted: never answered
        elif kind == INVOCATION:
            send(FAILURE, request_id, b"remote-failure: this extension serves no distributed actors")
        elif kind == GOODBYE:
            sys.exit(0)
    now = time.monotonic()
    for request_id in [key for key, (due, _) in pending.items() if due <= now]:
        _, payload = pending.pop(request_id)
        send(REPLY, request_id, payload)
