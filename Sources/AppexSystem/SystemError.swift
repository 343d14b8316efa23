package import SystemPackage

/// A system call that failed: which call, and the `errno` it set, as swift-system's `Errno`.
///
/// Every syscall Appex makes goes through AppexSystem, which throws this; the modules above carry
/// it as the `underlyingError` of the error they report (the path, bundle or peer it was about).
package struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The call that failed, as a person would look it up: `open`, `sendmsg`, `inotify_add_watch`.
    package let call: String
    /// What the C library said.
    package let errno: Errno

    /// Makes an error for `call`, which failed with `errno`.
    package init(_ call: String, _ errno: Errno) {
        self.call = call
        self.errno = errno
    }

    /// `"open failed: No such file or directory (errno 2)"`.
    package var description: String { "\(call) failed: \(errno) (errno \(errno.rawValue))" }
}
