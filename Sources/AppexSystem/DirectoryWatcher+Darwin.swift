#if !os(Linux)
import Foundation
import Synchronization

/// Polling stand-in for the inotify watcher where inotify does not exist: reports a possible
/// change every half second, and the monitor's snapshot comparison filters out non-changes.
package final class DirectoryWatcher: Sendable {
    private let woken = Mutex(false)
    package init() throws(SystemError) {}

    @discardableResult
    package func watch(_ directories: Set<String>) -> Bool { false }

    package func wait(timeoutMilliseconds timeout: Int32) -> WaitResult {
        let step: UInt32 = 10_000
        var waited: UInt32 = 0
        let limit = timeout < 0 ? UInt32(500_000) : min(UInt32(timeout) * 1000, 500_000)
        while waited < limit {
            if woken.withLock({
                let value = $0
                $0 = false
                return value
            }) {
                return .woken
            }
            usleep(step)
            waited += step
        }
        return timeout < 0 || UInt32(timeout) * 1000 > 500_000 ? .changed : .timedOut
    }

    package func wake() { woken.withLock { $0 = true } }

    package enum WaitResult { case changed, woken, timedOut }
}
#endif
