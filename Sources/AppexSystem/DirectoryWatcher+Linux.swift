#if os(Linux)
import Synchronization

/// Watches a set of directories on the process's event thread (``EventThread``, its one
/// inotify), and calls a handler there after something changes in any of them.
///
/// The handler runs on the event thread: it must only note the change and return (the monitor
/// schedules a scan elsewhere).
package final class DirectoryWatcher: Sendable {
    private let handler: @Sendable () -> Void
    /// The registrations, by path; `nil` once stopped.
    private let tokens = Mutex<[String: EventThread.Token]?>([:])

    /// A watcher that calls `handler` on the event thread after a change.
    ///
    /// - Throws: ``SystemError`` when the event thread or its inotify is not available (a monitor
    ///   that started anyway would never see a change).
    package init(_ handler: @escaping @Sendable () -> Void) throws(SystemError) {
        if let failure = EventThread.shared.directoryWatchFailure { throw failure }
        self.handler = handler
    }

    deinit { stop() }

    /// Watches exactly `directories`, each at whatever inode its path names now (missing ones
    /// are skipped: they appear through their parent). Every path is registered again, so a
    /// directory that was removed or replaced since the last call is watched anew.
    ///
    /// - Returns: whether a path is watched that was not before (the caller should look again
    ///   for changes it missed).
    @discardableResult
    package func watch(_ directories: Set<String>) -> Bool {
        var fresh: [String: EventThread.Token] = [:]
        for path in directories {
            if let token = try? EventThread.shared.whenDirectoryChanges(path, handler) { fresh[path] = token }
        }
        // The new registrations first: a directory that stays keeps its kernel watch throughout.
        // Stopped meanwhile: the new ones go too.
        let old = tokens.withLock { tokens -> [String: EventThread.Token]? in
            guard let old = tokens else { return nil }
            tokens = fresh
            return old
        }
        guard let old else {
            for token in fresh.values { EventThread.shared.cancel(token) }
            return false
        }
        for token in old.values { EventThread.shared.cancel(token) }
        return fresh.keys.contains { old[$0] == nil }
    }

    /// Stops watching, for good: a later ``watch(_:)`` watches nothing.
    package func stop() {
        let old = tokens.withLock { tokens in
            let old = tokens ?? [:]
            tokens = nil
            return old
        }
        for token in old.values { EventThread.shared.cancel(token) }
    }
}
#endif
