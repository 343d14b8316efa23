// The other process of the `defaults.notify` figures: observes one key and, for every change it
// is told of, writes the changed value's low byte to stdout (one byte per change, unbuffered).
//
//     DefaultsObserver ours GROUP KEY   — SharedDefaults(group:).changes(forKey: KEY) of app
//                                         group GROUP, opened with the owner's authority in the
//                                         APPEX_HOME of the environment
//     DefaultsObserver raw PATH KEY     — the baseline: inotify on PATH's directory (IN_MODIFY:
//                                         every commit writes the WAL file), and on each wake-up
//                                         a raw SELECT of KEY in PATH (table t, RawSQLite); a
//                                         value that differs from the last one is a change
//
// The raw mode waits, after each wake-up and before its SELECT, until no writer holds the WAL
// write lock (byte 120 of the -shm file, sqlite.org/walformat.html): a writer's IN_MODIFY comes
// from writing its frames, before its fsync and before it publishes the commit in the WAL
// index, so a SELECT at once usually finds the old value and nothing wakes the observer again
// (measured: every change then waited for the 100 ms look, p50 = p99 = 100 ms). The writer
// releases that lock right after publishing, so the wait ends when the commit is visible.
//
// Prints "ready\n" once every later commit will be seen. Ends when its stdin reaches end of
// file (the benchmark closed it, or died), so it never outlives the benchmark.
import AppexCore
import AppexStore
import Foundation
import RawSQLite
#if canImport(Glibc)
import Glibc
#endif

/// Writes `bytes` to stdout, straight to the descriptor.
func emit(_ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { exit(0) }  // the reader is gone
        offset += written
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("DefaultsObserver: \(message)\n".utf8))
    exit(1)
}

/// Exits once stdin is at end of file (a thread of its own; used by `ours`, whose main work is
/// an async loop).
func exitAtEndOfInput() {
    Thread.detachNewThread {
        var byte: UInt8 = 0
        while true {
            let count = read(0, &byte, 1)
            if count == 0 || (count < 0 && errno != EINTR) { exit(0) }
        }
    }
}

func observeOurs(group: String, key: String) async {
    let defaults: SharedDefaults
    do {
        defaults = try SharedDefaults(group: AppGroup(group, context: .owner, environment: .current()))
    } catch {
        fail("cannot open the defaults of \(group): \(error)")
    }
    exitAtEndOfInput()
    let changes = defaults.changes(forKey: key)  // every commit from here on is delivered
    emit(Array("ready\n".utf8))
    for await change in changes {
        guard case .integer(let value) = change.value else { fail("\(key) changed to \(String(describing: change.value)), not an integer") }
        emit([UInt8(truncatingIfNeeded: value)])
    }
}

func observeRaw(path: String, key: String) -> Never {
    let table: RawTable
    do { table = try RawTable(path: path) } catch { fail("\(error)") }
    let directory = (path as NSString).deletingLastPathComponent
    let inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    guard inotify >= 0, inotify_add_watch(inotify, directory, UInt32(IN_MODIFY)) >= 0 else {
        fail("cannot watch \(directory): \(String(cString: strerror(errno)))")
    }
    var last = table.read(key)  // after the watch is in place: no commit falls between
    // Kept open for the process's life: closing a descriptor of the file would drop the POSIX
    // locks the process's SQLite connection holds on it.
    let shm = open(path + "-shm", O_RDWR | O_CLOEXEC)
    guard shm >= 0 else { fail("cannot open \(path)-shm: \(String(cString: strerror(errno)))") }
    emit(Array("ready\n".utf8))
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        // As SharedDefaults' observer: wake on an event, or look anyway every 100 ms.
        var fds = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: 0, events: Int16(POLLIN), revents: 0)]
        if poll(&fds, 2, 100) < 0 && errno != EINTR { fail("poll: \(String(cString: strerror(errno)))") }
        if fds[1].revents != 0 {
            let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count == 0 || (count < 0 && errno != EINTR) { exit(0) }
        }
        while buffer.withUnsafeMutableBytes({ read(inotify, $0.baseAddress, $0.count) }) > 0 {}
        awaitNoWriter(shm)
        let value = table.read(key)
        if value != last {
            last = value
            emit([UInt8(truncatingIfNeeded: value ?? 0)])
        }
    }
}

/// Blocks until no process holds SQLite's WAL write lock on the -shm file `shm`: takes a shared
/// open-file-description lock on its byte (it waits for a writer's exclusive lock, and conflicts
/// with SQLite's POSIX locks as a lock of another process would), then drops it at once.
func awaitNoWriter(_ shm: Int32) {
    let setLockWaiting: Int32 = 38  // F_OFD_SETLKW (glibc defines it only under _GNU_SOURCE)
    var lock = flock()
    lock.l_type = Int16(F_RDLCK)
    lock.l_whence = Int16(SEEK_SET)
    lock.l_start = 120
    lock.l_len = 1
    while fcntl(shm, setLockWaiting, &lock) != 0 {
        guard errno == EINTR else { fail("cannot wait for the WAL write lock: \(String(cString: strerror(errno)))") }
    }
    lock.l_type = Int16(F_UNLCK)
    _ = fcntl(shm, setLockWaiting, &lock)
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else { fail("usage: DefaultsObserver ours GROUP KEY | raw PATH KEY") }
switch arguments[1] {
case "ours": await observeOurs(group: arguments[2], key: arguments[3])
case "raw": observeRaw(path: arguments[2], key: arguments[3])
default: fail("unknown mode \(arguments[1])")
}
