#if !os(Linux)
import Dispatch
import Synchronization

/// Polling stand-in for the inotify watcher where inotify does not exist: reports a possible
/// change every half second, and the monitor's snapshot comparison filters out non-changes.
package final class DirectoryWatcher: Sendable {
    private let timer: DispatchSourceTimer

    package init(_ handler: @escaping @Sendable () -> Void) throws(SystemError) {
        timer = DispatchSource.makeTimerSource()
        timer.schedule(deadline: .now() + .milliseconds(500), repeating: .milliseconds(500))
        timer.setEventHandler(handler: handler)
        timer.resume()
    }

    deinit { stop() }

    @discardableResult
    package func watch(_ directories: Set<String>) -> Bool { false }

    /// Always: the poll sees every change.
    package var isUpToDate: Bool { true }

    package func stop() { timer.cancel() }
}
#endif
