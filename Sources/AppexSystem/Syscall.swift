package import SystemPackage

// The one wrapper every system call in Appex goes through: it retries `EINTR` and turns a
// failure into a `SystemError` that names the call (swift-nio's `NIOPosix/System.swift` is the
// model). `#if canImport(Glibc)` chains live in AppexSystem only.
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("Appex needs a POSIX C library")
#endif

extension Errno {
    /// The calling thread's `errno`, now.
    package static var current: Errno { Errno(rawValue: errno) }
}

/// Runs `body`, a C call that returns -1 (or any negative value) with `errno` set on failure,
/// again after `EINTR`.
///
/// - Parameters:
///   - call: the call's name, for the error.
///   - retryOnInterrupt: `false` for calls that must not be repeated (`close`).
/// - Returns: what `body` returned.
/// - Throws: ``SystemError`` naming `call` and its `errno`.
@inline(__always)
package func syscall<Result: SignedInteger>(
    _ call: @autoclosure () -> String,
    retryOnInterrupt: Bool = true,
    _ body: () -> Result
) throws(SystemError) -> Result {
    while true {
        let result = body()
        if result >= 0 { return result }
        let failure = errno
        if failure == EINTR && retryOnInterrupt { continue }
        throw SystemError(call(), Errno(rawValue: failure))
    }
}

/// As ``syscall(_:retryOnInterrupt:_:)`` for C calls that return an error number instead of
/// setting `errno` (`posix_spawn`, `pthread_create`): 0 is success.
@inline(__always)
package func syscallReturningError(_ call: @autoclosure () -> String, _ body: () -> Int32) throws(SystemError) {
    while true {
        let result = body()
        if result == 0 { return }
        if result == EINTR { continue }
        throw SystemError(call(), Errno(rawValue: result))
    }
}
