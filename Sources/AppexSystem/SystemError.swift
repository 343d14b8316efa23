public import SystemPackage

/// A system call that failed: which call, and the `errno` it set, as swift-system's `Errno`.
///
/// Every syscall Appex makes goes through AppexSystem, which throws this; the modules above carry
/// it as the `underlyingError` of the error they report (the path, bundle or peer it was about).
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The call that failed, as a person would look it up: `open`, `sendmsg`, `inotify_add_watch`.
    public let call: String
    /// What the C library said.
    public let errno: Errno

    /// Makes an error for `call`, which failed with `errno`.
    public init(_ call: String, _ errno: Errno) {
        self.call = call
        self.errno = errno
    }

    /// `"open failed: No such file or directory (errno 2)"`.
    public var description: String { "\(call) failed: \(errno) (errno \(errno.rawValue))" }
}
