#!/usr/bin/env python3
"""The symbols an extension's start touches, in the order it first touches them.

Usage:
    extension-start-order.py record EXECUTABLE OUTPUT
        Launches EXECUTABLE as an Appex host would (docs/protocol.md: descriptors 3 and 4, the
        documented environment, the host's hello, one 64-byte raw request) under valgrind's
        lackey tool, which traces every instruction fetch and data access, and writes to
        OUTPUT the names of the functions and data objects the process touched until its
        first reply was read (and the process ended), each once, in the order of its first
        touch. The extension's own modules (named by --drop PREFIX, repeatable) are left out:
        the list is the Appex runtime's start, the same in every extension.
    extension-start-order.py check EXECUTABLE ORDER
        Prints how many of ORDER's symbols EXECUTABLE defines; exits 1 below 80 %: the list
        has gone stale (code renamed or moved since it was recorded) and should be recorded
        again with Scripts/extension-start-order.sh.
    extension-start-order.py scans EXECUTABLE
        Launches EXECUTABLE the same way under gdb, with a breakpoint on the Swift runtime's
        conformance lookup that scans every conformance record of the binary
        (swift_conformsToProtocolMaybeInstantiateSuperclasses, reached only when a (type,
        protocol) pair is not cached yet), and exits 1 naming each lookup's caller when one
        happened before the first reply: an extension's start makes none (decision 0168; a
        Dictionary or Set, a Task or a checked continuation in a generic container, instantiated
        on the start path, brings one back).

Why (docs/decisions/0168-extension-start-layout.md): the kernel maps 64 KB of an executable
around each page a process touches (fault-around). Laid out in this order by the linker
(`ld.lld --symbol-ordering-file`), the start's code and data sit in few 64 KB windows, so an
extension's resident memory and its start's page faults are those of what it runs.
"""
import bisect
import ctypes
import re
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile


PR_CAPBSET_DROP, CAP_SYS_NICE = 24, 23

# A C library string or memory function's variants: __memmove_avx_unaligned_erms,
# __memmove_evex_unaligned_erms, __strlen_avx2, __strlen_evex, ...
VARIANT = re.compile(r"^(__\w+?)_(sse2|ssse3|sse4_1|sse4_2|sse42|avx|avx2|evex|evex512|avx512)(?:_\w+)?$")
WIDE = ("evex", "evex512", "avx512")


def varint(value):
    out = b""
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out += bytes([low | 0x80])
        else:
            return out + bytes([low])


def string(text):
    data = text.encode()
    return varint(len(data)) + data


def frame(kind, request, payload):
    return struct.pack("<IBBHQ", len(payload), kind, 0, 0, request) + payload


def read_exactly(sock, count, executable):
    data = b""
    while len(data) < count:
        try:
            chunk = sock.recv(count - len(data))
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            raise SystemExit(f"extension-start-order: {executable} closed its connection before answering")
        data += chunk
    return data


def read_frame(sock, executable):
    length, kind, _flags, _reserved, request = struct.unpack("<IBBHQ", read_exactly(sock, 16, executable))
    return kind, request, read_exactly(sock, length, executable)


def launch(command, after_reply=None):
    """Runs `command` (the extension last) with the launch contract; one request, one reply,
    then `after_reply()` while the connection is still open, then the end of the connection.
    A wrapper that stays the extension's parent (gdb) sets APPEX_HOST_PID to itself."""
    executable = command[-1]
    home = tempfile.mkdtemp(prefix="appex-order-")
    identifier = "com.example.order.extension"
    point = "com.example.hostapp.HostAppFeature"
    data = os.path.join(home, "ExtensionData", identifier)
    container = os.path.join(home, "Containers", identifier)
    os.makedirs(data)
    os.makedirs(os.path.join(container, "tmp"))
    host, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    broker, broker_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    environment = {
        "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": container, "TMPDIR": container + "/tmp",
        "APPEX_HOME": home, "APPEX_CONNECTION_FD": "3", "APPEX_KEYCHAIN_FD": "4",
        "APPEX_HOST_PID": str(os.getpid()), "APPEX_BUNDLE_PATH": os.path.dirname(os.path.abspath(executable)),
        "APPEX_BUNDLE_IDENTIFIER": identifier, "APPEX_EXTENSION_POINT": point, "APPEX_DATA_DIRECTORY": data,
        "LIBDISPATCH_LOG": "NO",
    }

    def descriptors():
        os.dup2(child.fileno(), 3)
        os.dup2(broker_child.fileno(), 4)
        # An extension never has CAP_SYS_NICE, so libdispatch's manager thread fails to take
        # nice -4 and goes down its report path (decision 0168): the recording goes there too.
        # Dropping it needs CAP_SETPCAP; a recorder run without it has no CAP_SYS_NICE to drop.
        ctypes.CDLL(None, use_errno=True).prctl(PR_CAPBSET_DROP, CAP_SYS_NICE, 0, 0, 0)

    process = subprocess.Popen(command, env=environment, preexec_fn=descriptors, pass_fds=(3, 4), cwd=data)
    child.close()
    broker_child.close()
    try:
        return converse(process, host, broker, identifier, point, executable, after_reply)
    finally:
        host.close()  # the extension reads the end of its connection and exits
        broker.close()
        if process.poll() is None:  # a failed check leaves no extension (or gdb) running
            process.kill()
            process.wait()
        shutil.rmtree(home, ignore_errors=True)


def converse(process, host, broker, identifier, point, executable, after_reply):
    """The host's side of one launch: hellos, one request and its reply, the end."""
    hello = (varint(2) + string("com.example.hostapp") + string(identifier) + string(point) + b"\x01"
             + varint(16 << 20) + varint(1 << 30) + varint(262144) + varint(0))
    host.sendall(frame(1, 0, hello))
    kind, _, _ = read_frame(host, executable)
    if kind != 1:
        raise SystemExit(f"extension-start-order: {executable}'s first frame is kind {kind}, not a hello")
    host.sendall(frame(2, 1, bytes(64)))
    kind, request, _ = read_frame(host, executable)
    if kind != 3 or request != 1:
        raise SystemExit(f"extension-start-order: {executable} answered request 1 with kind {kind} for {request}")
    outcome = after_reply() if after_reply else None
    host.close()
    broker.close()
    if process.wait(timeout=600) != 0:
        raise SystemExit(f"extension-start-order: {executable} exited with status {process.returncode}")
    return outcome


def symbols(executable):
    """(address, size, name) of every function and data object `executable` defines, sorted."""
    listing = subprocess.run(["nm", "-S", "--defined-only", executable], capture_output=True, text=True, check=True)
    found = []
    for line in listing.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] in "tTwWdDbBrRvV":
            found.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
    found.sort()
    return found


def record(executable, output, drop):
    executable = os.path.abspath(executable)
    with tempfile.TemporaryDirectory(prefix="appex-order-") as scratch:
        # valgrind 3.19 cannot read the DWARF 5 a Swift build writes: trace a copy without it
        # (the same addresses; only the debug sections are gone).
        stripped = os.path.join(scratch, os.path.basename(executable))
        subprocess.run(["objcopy", "--strip-debug", executable, stripped], check=True)
        trace = os.path.join(scratch, "lackey.log")
        launch(["valgrind", "--tool=lackey", "--trace-mem=yes", f"--log-file={trace}", stripped])
        table = symbols(stripped)
        starts = [entry[0] for entry in table]
        seen, order, memo = set(), [], {}
        with open(trace) as lines:
            for line in lines:
                if line.startswith("=="):
                    continue
                fields = line.split()
                if len(fields) < 2:
                    continue
                address = int(fields[1].split(",")[0], 16)
                index = memo.get(address)
                if index is None:
                    index = bisect.bisect_right(starts, address) - 1
                    if index < 0 or not table[index][0] <= address < table[index][0] + max(1, table[index][1]):
                        index = -1
                    memo[address] = index
                if index >= 0 and index not in seen:
                    seen.add(index)
                    order.append(table[index][2])
    kept = [name for name in order if not any(name.startswith(prefix) for prefix in drop)]
    defined = {entry[2] for entry in table}
    kept = with_vdso_setup(with_wider_variants(kept, defined), defined)
    with open(output, "w") as file:
        file.write("\n".join(kept) + "\n")
    print(f"extension-start-order: {len(kept)} symbols written to {output} ({len(order) - len(kept)} of the extension's own left out)")


def with_wider_variants(order, defined):
    """`order` with, after each C library function variant valgrind's CPU chose, its AVX-512
    (evex, avx512) siblings among the `defined` names: valgrind emulates no AVX-512, so a machine
    that has it runs those, which would otherwise lie far from the start's other code, each in a
    64 KB window of its own."""
    wider = {}  # function (__strlen) -> its AVX-512 variants (__strlen_evex, ...)
    for name in sorted(defined):
        match = VARIANT.match(name)
        if match and match.group(2) in WIDE:
            wider.setdefault(match.group(1), []).append(name)
    widened, seen = [], set(order)
    for name in order:
        widened.append(name)
        match = VARIANT.match(name)
        if match and match.group(2) not in WIDE:
            siblings = [other for other in wider.get(match.group(1), []) if other not in seen]
            seen.update(siblings)
            widened += siblings
    return widened


# valgrind gives its guest no vDSO, so the recording never sees the C library's static start set
# one up (setup_vdso, in _dl_non_dynamic_init: a link map for the vDSO, its symbols looked up).
VDSO_SETUP = ["_dl_new_object", "_dl_add_to_namespace_list", "_dl_name_match_p", "_dl_setup_hash",
              "_dl_lookup_symbol_x", "do_lookup_x", "check_match"]


def with_vdso_setup(order, defined):
    """`order` with the vDSO's setup (those of its functions `defined`) after
    `_dl_non_dynamic_init`, which runs it."""
    if "_dl_non_dynamic_init" not in order:
        return order
    missing = [name for name in VDSO_SETUP if name in defined and name not in order]
    at = order.index("_dl_non_dynamic_init") + 1
    return order[:at] + missing + order[at:]


def check(executable, order):
    defined = {entry[2] for entry in symbols(executable)}
    names = [line.strip() for line in open(order) if line.strip()]
    present = sum(1 for name in names if name in defined)
    share = present / len(names) if names else 0
    print(f"extension-start-order: {present} of the {len(names)} symbols of {order} are in {executable} ({share:.0%})")
    if share < 0.8:
        print("extension-start-order: the list is stale: record it again with Scripts/extension-start-order.sh",
              file=sys.stderr)
        sys.exit(1)


def scans(executable):
    executable = os.path.abspath(executable)  # the extension runs in its data directory
    lookup = next((entry for entry in symbols(executable)
                   if "swift_conformsToProtocolMaybeInstantiateSuperclasses" in entry[2]
                   and entry[2].startswith("_ZL")), None)
    if lookup is None:
        raise SystemExit(f"extension-start-order: {executable} has no swift_conformsToProtocolMaybeInstantiateSuperclasses to watch")
    with tempfile.TemporaryDirectory(prefix="appex-scans-") as scratch:
        hits = os.path.join(scratch, "hits")
        open(hits, "w").close()
        commands = os.path.join(scratch, "gdb")
        # Each hit's caller is written before the process goes on: the hits in the file when the
        # reply has been read all happened before it.
        with open(commands, "w") as file:
            file.write(f"""set pagination off
set print asm-demangle on
break *{lookup[0]:#x}
commands
silent
pipe bt 14 | grep -v -e swift_ -e 'swift::' -e _gatherGeneric -e DecodedMetadata -e 'std::function' >> {hits}
shell echo ---- >> {hits}
continue
end
run
""")
        # gdb is the extension's parent: the extension's host check compares APPEX_HOST_PID with it.
        wrapper = ["sh", "-c", f'APPEX_HOST_PID=$$ exec gdb -q -batch -x {commands} --args "$0"']
        before = launch(wrapper + [executable], after_reply=lambda: open(hits).read())
    count = before.count("----")
    if count:
        print(before, file=sys.stderr)
        print(f"extension-start-order: {executable} looked up {count} protocol conformance(s) by scanning before its "
              "first reply (callers above); an extension's start makes none (docs/decisions/0168)", file=sys.stderr)
        sys.exit(1)
    print(f"extension-start-order: {executable} scanned no protocol conformance before its first reply")


def main(arguments):
    drop = []
    while "--drop" in arguments:
        at = arguments.index("--drop")
        drop.append(arguments[at + 1])
        del arguments[at:at + 2]
    if len(arguments) == 3 and arguments[0] == "record":
        record(arguments[1], arguments[2], drop)
    elif len(arguments) == 3 and arguments[0] == "check":
        check(arguments[1], arguments[2])
    elif len(arguments) == 2 and arguments[0] == "scans":
        scans(arguments[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
