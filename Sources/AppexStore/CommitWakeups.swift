import AppexSystem
import Synchronization

/// Wakes one waiter when writers signal a commit (they touch `signal` after each commit that
/// changed something) or every 100 ms, whichever comes first: the timer covers a signal file
/// that cannot be watched (removed, or no inotify watches left).
///
/// Only the signal file is watched, not its directory: SQLite's writes to the `-wal` file
/// happen before the commit is durable, and a waiter they woke would look too early, find
/// nothing, and wait again — at the cost of a read while the writer syncs. The waiting is a
/// ``Wakeup``'s.
final class CommitWakeups: Sendable {
    private let wakeup = Wakeup()
    private let tokens = Mutex<[EventThread.Token]>([])

    /// Watches `signal`, or — when it cannot be watched — its directory `fallbackDirectory`.
    init(signal: String, fallbackDirectory: String) {
        var tokens: [EventThread.Token] = []
        let wake: @Sendable () -> Void = { [wakeup] in wakeup.signal() }
        if let token = try? EventThread.shared.whenFileChanges(signal, wake) {
            tokens.append(token)
        } else if let token = try? EventThread.shared.whenDirectoryChanges(fallbackDirectory, wake) {
            tokens.append(token)
        }
        if let token = EventThread.shared.every(.milliseconds(100), wake) { tokens.append(token) }
        self.tokens.withLock { $0 = tokens }
    }

    deinit { stop() }

    /// Forgets a wakeup that came since the last wait. Call it just before looking at the
    /// queue: a commit whose wakeup came before the look is one the look sees, since writers
    /// signal after they commit.
    func clear() { wakeup.clear() }

    /// Returns at the next wakeup (or at once when one came since the last wait), or when the
    /// calling task is cancelled. The 100 ms timer bounds how long past any deadline it waits.
    func next() async { await wakeup.next() }

    /// Ends the watches; a wait in progress returns.
    func stop() {
        for token in tokens.withLock({ tokens in
            defer { tokens = [] }
            return tokens
        }) { EventThread.shared.cancel(token) }
        wakeup.stop()
    }
}
