#if os(Linux)
@preconcurrency import Glibc

/// Waits for changes in a set of directories with inotify.
///
/// Used by one thread at a time (the monitor's), except ``wake()``, which any thread may call:
/// it writes a byte to a pipe, which is safe from anywhere.
final class DirectoryWatcher: @unchecked Sendable {
    private let inotify: Int32
    private let wakeup: Int32
    private let wakeupWriter: Int32
    private var watches: [String: Int32] = [:]

    init() throws(AppexErrorBox) {
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else { throw AppexErrorBox("inotify_init1 failed: errno \(errno)") }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            close(inotify)
            throw AppexErrorBox("pipe failed: errno \(errno)")
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        wakeup = pipeEnds[0]
        wakeupWriter = pipeEnds[1]
    }

    deinit {
        close(inotify)
        close(wakeup)
        close(wakeupWriter)
    }

    /// Watches exactly `directories` (missing ones are skipped; they appear through their parent).
    /// - Returns: whether a watch was added (the caller should look again for changes it missed).
    @discardableResult
    func watch(_ directories: Set<String>) -> Bool {
        var added = false
        for (path, descriptor) in watches where !directories.contains(path) {
            inotify_rm_watch(inotify, descriptor)
            watches[path] = nil
        }
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)
        for path in directories where watches[path] == nil {
            let descriptor = inotify_add_watch(inotify, path, mask | UInt32(IN_ONLYDIR))
            if descriptor >= 0 {
                watches[path] = descriptor
                added = true
            }
        }
        return added
    }

    /// Blocks until something changes, ``wake()`` is called, or `timeout` milliseconds pass
    /// (-1: no limit). Drains pending events.
    /// - Returns: `.changed`, `.woken` or `.timedOut`.
    func wait(timeoutMilliseconds timeout: Int32) -> WaitResult {
        var fds = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeup, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, 2, timeout)
        if ready <= 0 { return .timedOut }
        if fds[1].revents != 0 {
            var bytes = [UInt8](repeating: 0, count: 64)
            _ = read(wakeup, &bytes, bytes.count)
            return .woken
        }
        drain()
        return .changed
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            if n <= 0 { return }
        }
    }

    /// Makes a blocked ``wait(timeoutMilliseconds:)`` return `.woken`.
    func wake() {
        var one: UInt8 = 1
        _ = write(wakeupWriter, &one, 1)
    }

    enum WaitResult { case changed, woken, timedOut }
}
#endif
