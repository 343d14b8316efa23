#if os(Linux)
import Synchronization

/// Watches a set of directories on the process's event thread (``EventThread``, its one
/// inotify), and calls a handler there after something changes in any of them.
///
/// The handler runs on the event thread: it must only note the change and return (the monitor
/// schedules a scan elsewhere).
package final class DirectoryWatcher: Sendable {
    private let handler: @Sendable () -> Void
    /// What the last ``watch(_:)`` left.
    private struct Watches {
        /// The registrations, by path.
        var tokens: [String: EventThread.Token] = [:]
        /// The paths asked for, registered or not (a missing one is tried again at each call).
        var paths: Set<String> = []
        /// ``EventThread/directoryLosses`` when they were checked.
        var losses: UInt64 = 0
    }

    /// `nil` once stopped.
    private let watches = Mutex<Watches?>(Watches())

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
    /// are skipped: they appear through their parent). A path already watched keeps its watch
    /// unless its directory was removed or moved away since (``EventThread/isCurrent(_:)``); then
    /// it is registered again, at the directory its path names now.
    ///
    /// Only what changed costs: paths added or dropped since the last call, paths that could not
    /// be watched then, and, when a watched directory was lost since, the registrations that are
    /// no longer current. The same set again, with nothing lost, costs a comparison of sets.
    ///
    /// - Returns: whether a path was registered that was not watched before, or was watched at
    ///   another directory (the caller should look again for changes it missed).
    @discardableResult
    package func watch(_ directories: Set<String>) -> Bool {
        guard let last = watches.withLock({ $0 }) else { return false }
        let losses = EventThread.shared.directoryLosses
        var next = Watches(tokens: last.tokens, paths: directories, losses: losses)
        var released: [EventThread.Token] = []
        var wanted = directories.subtracting(last.paths)
        for path in last.paths where !directories.contains(path) {
            if let token = next.tokens.removeValue(forKey: path) { released.append(token) }
        }
        if last.tokens.count < last.paths.count {
            wanted.formUnion(directories.filter { next.tokens[$0] == nil })
        }
        if losses != last.losses {
            for (path, token) in next.tokens where !EventThread.shared.isCurrent(token) {
                next.tokens[path] = nil
                released.append(token)
                wanted.insert(path)
            }
        }
        var registered: [EventThread.Token] = []
        for path in wanted {
            if let token = try? EventThread.shared.whenDirectoryChanges(path, handler) {
                next.tokens[path] = token
                registered.append(token)
            }
        }
        // The new registrations are made before the old ones go: a directory that stays keeps
        // its kernel watch throughout. Stopped meanwhile: the new ones go too.
        let stored = watches.withLock { watches -> Bool in
            guard watches != nil else { return false }
            watches = next
            return true
        }
        guard stored else {
            for token in registered { EventThread.shared.cancel(token) }
            return false
        }
        for token in released { EventThread.shared.cancel(token) }
        return !registered.isEmpty
    }

    /// Whether every path of the last ``watch(_:)`` is watched, at the directory it named then,
    /// and none was lost since: a caller whose set of paths has not changed need not call it.
    package var isUpToDate: Bool {
        guard let last = watches.withLock({ $0 }) else { return true }
        return last.tokens.count == last.paths.count && last.losses == EventThread.shared.directoryLosses
    }

    /// Stops watching, for good: a later ``watch(_:)`` watches nothing.
    package func stop() {
        let old = watches.withLock { watches in
            let old = watches?.tokens ?? [:]
            watches = nil
            return old
        }
        for token in old.values { EventThread.shared.cancel(token) }
    }
}
#endif
