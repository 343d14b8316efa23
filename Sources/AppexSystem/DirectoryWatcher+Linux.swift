#if os(Linux)
@preconcurrency import Glibc

/// Waits for changes in a set of directories with inotify.
///
/// Used by one thread at a time (the monitor's), except ``wake()``, which any thread may call:
/// it writes a byte to a pipe, which is safe from anywhere.
package final class DirectoryWatcher: @unchecked Sendable {
    private let inotify: Int32
    private let wakeup: WakePipe
    /// Path → watch descriptor, and back (two paths may reach one inode and share its watch).
    private var watches: [String: Int32] = [:]
    private var paths: [Int32: Set<String>] = [:]

    package init() throws(SystemError) {
        inotify = try syscall("inotify_init1") { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
        do { wakeup = try WakePipe() } catch {
            close(inotify)
            throw error
        }
    }

    deinit {
        close(inotify)
    }

    /// Watches exactly `directories` (missing ones are skipped; they appear through their parent).
    /// - Returns: whether a watch was added (the caller should look again for changes it missed).
    @discardableResult
    package func watch(_ directories: Set<String>) -> Bool {
        var added = false
        for (path, descriptor) in watches where !directories.contains(path) {
            forget(path, descriptor: descriptor, removeWatch: true)
        }
        let mask = UInt32(
            IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO
                | IN_DELETE_SELF | IN_MOVE_SELF
        )
        for path in directories where watches[path] == nil {
            let descriptor = inotify_add_watch(inotify, path, mask | UInt32(IN_ONLYDIR))
            if descriptor >= 0 {
                watches[path] = descriptor
                paths[descriptor, default: []].insert(path)
                added = true
            }
        }
        return added
    }

    /// Drops `path`'s watch; removes it from the kernel only when no other path shares it.
    private func forget(_ path: String, descriptor: Int32, removeWatch: Bool) {
        watches[path] = nil
        paths[descriptor]?.remove(path)
        if paths[descriptor]?.isEmpty == true {
            paths[descriptor] = nil
            if removeWatch { inotify_rm_watch(inotify, descriptor) }
        }
    }

    /// Blocks until something changes, ``wake()`` is called, or `timeout` milliseconds pass
    /// (-1: no limit). Drains pending events.
    /// - Returns: `.changed`, `.woken` or `.timedOut`.
    package func wait(timeoutMilliseconds timeout: Int32) -> WaitResult {
        var ready: [Bool] = []
        do {
            try Socket.waitReadable([inotify, wakeup.readEnd.rawValue], ready: &ready, timeoutMilliseconds: timeout)
        } catch { return .timedOut }
        if ready.isEmpty || !ready.contains(true) { return .timedOut }
        if ready[1] {
            wakeup.drain()
            return .woken
        }
        drain()
        return .changed
    }

    /// Reads every pending event. A watched directory that was removed, moved away or replaced
    /// (its watch is gone: `IN_IGNORED`, `IN_DELETE_SELF`, `IN_MOVE_SELF`) is forgotten, so the
    /// next ``watch(_:)`` watches whatever now stands at that path.
    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let header = MemoryLayout<inotify_event>.size
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            var offset = 0
            while offset + header <= count {
                let (descriptor, mask, length) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                    for path in paths[descriptor] ?? [] {
                        forget(path, descriptor: descriptor, removeWatch: mask & UInt32(IN_IGNORED) == 0)
                    }
                }
                offset += header + length
            }
        }
    }

    /// Makes a blocked ``wait(timeoutMilliseconds:)`` return `.woken`.
    package func wake() {
        wakeup.wake()
    }

    package enum WaitResult { case changed, woken, timedOut }
}
#endif
