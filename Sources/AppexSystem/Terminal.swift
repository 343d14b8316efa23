@preconcurrency import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The controlling terminal and the signals a long-running command stops on.
package enum Terminal {
    /// Writes `text` to standard error, whole, unbuffered (for a library that must not link
    /// Foundation's `FileHandle` for one line).
    package static func writeStandardError(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }

    /// Whether standard output is a terminal (colour and redraws only then).
    package static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Handlers of SIGINT and SIGTERM, while this value lives.
    package final class StopRequests: @unchecked Sendable {
        // @unchecked: the sources are only cancelled, once, in deinit; DispatchSource is thread-safe.
        private let sources: [any DispatchSourceSignal]

        fileprivate init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }

        deinit { for source in sources { source.cancel() } }
    }

    /// Calls `handler`, on a dispatch queue, when the process gets SIGINT or SIGTERM; the
    /// signals no longer kill the process, so it can stop cleanly. Keep the result alive.
    package static func onStopRequest(_ handler: @escaping @Sendable (Int32) -> Void) -> StopRequests {
        on([SIGINT, SIGTERM], handler)
    }

    /// Calls `handler`, on a dispatch queue, when the process gets SIGUSR1 (a service's
    /// `systemctl reload`, or `kill -USR1`), which then no longer ends the process. Keep the
    /// result alive.
    package static func onUserSignal(_ handler: @escaping @Sendable () -> Void) -> StopRequests {
        on([SIGUSR1]) { _ in handler() }
    }

    private static func on(_ signals: [Int32], _ handler: @escaping @Sendable (Int32) -> Void) -> StopRequests {
        StopRequests(
            signals.map { number in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { handler(number) }
                source.resume()
                return source
            }
        )
    }
}
