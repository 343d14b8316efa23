import AppexCore
import AppexSystem
import AppexVocabulary
import Foundation

/// The lock that keeps at most one refresh in flight across every process sharing a session:
/// `flock` on a file in the app group's container. `flock` locks belong to an open file
/// description, so two acquisitions in one process exclude each other as two processes do, and
/// the kernel releases the lock of a process that dies.
package struct RefreshLock: Sendable {
    /// The lock file.
    package let path: String

    package init(path: String) { self.path = path }

    /// Runs `body` holding the lock; waits at most `timeout` for it.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `retryable` when the lock stays held (naming the file), `storage`
    ///   when the file cannot be opened; and what `body` throws.
    package func withLock<Result: Sendable>(
        timeout: Duration = .seconds(60),
        _ body: () async throws(AppexError) -> Result
    ) async throws(AppexError) -> Result {
        let lock: FileLock
        do { lock = try FileLock(path: path) } catch {
            throw AppexError(
                .storage,
                "cannot open the refresh lock \(path)",
                context: AppexError.Context(path: path),
                underlyingError: error
            )
        }
        defer { lock.unlock() }
        let deadline = ContinuousClock.now + timeout
        var pause = Duration.microseconds(200)
        // Polled, not blocking: a blocked flock would hold a thread of Swift's pool.
        while true {
            do { if try lock.tryLock() { break } } catch {
                throw AppexError(
                    .storage,
                    "cannot lock \(path)",
                    context: AppexError.Context(path: path),
                    underlyingError: error
                )
            }
            guard ContinuousClock.now < deadline else {
                throw AppexError(
                    .retryable,
                    "another process has held the refresh lock \(path) for \(timeout): try again later",
                    context: AppexError.Context(path: path)
                )
            }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(20))
        }
        return try await body()
    }
}
