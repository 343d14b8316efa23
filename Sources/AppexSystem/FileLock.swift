#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on a file, held while this value lives (or until ``unlock()``).
///
/// `flock` locks belong to an open file description: two locks in one process exclude each other
/// as two processes do, and the kernel releases the lock of a process that dies.
package final class FileLock: Sendable {
    /// The lock file.
    package let path: String
    private let descriptor: OwnedDescriptor

    /// Opens (creating, 0600) the lock file at `path`; takes no lock yet.
    package init(path: String) throws(SystemError) {
        self.path = path
        descriptor = OwnedDescriptor(
            taking: try syscall("open(\(path))") { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        )
    }

    /// Takes the lock if no one holds it, without waiting.
    /// - Returns: whether this call took it.
    package func tryLock() throws(SystemError) -> Bool {
        do {
            _ = try syscall("flock(\(path))") { flock(descriptor.rawValue, LOCK_EX | LOCK_NB) }
            return true
        } catch  where error.errno == .wouldBlock || error.errno == .resourceTemporarilyUnavailable {
            return false
        }
    }

    /// Takes the lock, waiting while another holds it: only for a lock held for a moment (a
    /// ``RotatingLog``'s move: a `stat` and a `rename`).
    @available(*, noasync, message: "waits for another holder; take it only where it is held for a moment")
    package func lock() throws(SystemError) {
        _ = try syscall("flock(\(path))") { flock(descriptor.rawValue, LOCK_EX) }
    }

    /// Releases the lock (closing the file releases it too).
    package func unlock() {
        _ = flock(descriptor.rawValue, LOCK_UN)
    }
}
