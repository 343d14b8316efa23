import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import SystemPackage

/// The window's two listeners on one port: `[::1]` first, on the port asked for or one the kernel
/// picks, then `127.0.0.1` on the same port. A browser tries `[::1]` first for a `.localhost` name
/// (Chromium does), and another process could bind whichever loopback address the window left
/// free and receive its requests, cookie included: the window holds both.
///
/// Without IPv6 on the loopback interface, `[::1]` cannot be bound by anyone, and the window
/// listens on `127.0.0.1` alone. A port another process holds on either address fails the group
/// (`isAddressInUse`): the window never leaves one address of its port to someone else.
enum LoopbackListeners {
    /// A service group that serves `router` on both addresses at `port` (0: one the kernel
    /// picks), and calls `onReady` with the port once both are bound.
    static func group(
        port requested: Int,
        router: Router<WindowRequestContext>,
        stopsOnSignals: Bool,
        logger: Logger,
        onReady: @escaping @Sendable (Int) -> Void
    ) -> ServiceGroup {
        let (ports, port) = AsyncStream.makeStream(of: Result<Int?, any Error>.self)
        let bound = Bound()
        // One responder for both (the routes and the guard are the window's, whichever address).
        let responder = router.buildResponder()
        let six = Application(
            responder: responder,
            configuration: ApplicationConfiguration(address: .hostname("::1", port: requested), serverName: nil),
            onServerRunning: { channel in
                bound.set()
                port.yield(.success(channel.localAddress?.port))
            },
            logger: logger
        )
        let first = OptionalListener(application: six, bound: bound, port: port)
        let second = SecondListener(ports: ports, requested: requested) { chosen in
            Application(
                responder: responder,
                configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: chosen), serverName: nil),
                onServerRunning: { channel in
                    if let port = channel.localAddress?.port { onReady(port) }
                },
                logger: logger
            )
        }
        return ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: first, successTerminationBehavior: .ignore),
                    .init(service: second),
                ],
                gracefulShutdownSignals: stopsOnSignals ? [.sigterm, .sigint] : [],
                logger: logger
            )
        )
    }

    /// Whether `error` is a bind refused because another socket holds the address and port.
    static func isAddressInUse(_ error: any Error) -> Bool {
        guard let failure = error as? IOError else { return false }
        return Errno(rawValue: failure.errnoCode) == .addressInUse
    }

    /// The `[::1]` listener: when it cannot bind (no IPv6 loopback), it says so with a `nil`
    /// port and ends, which the group ignores; a port in use there fails the group, and the
    /// `127.0.0.1` listener with the same error.
    private struct OptionalListener: Service {
        let application: any Service
        let bound: Bound
        let port: AsyncStream<Result<Int?, any Error>>.Continuation

        func run() async throws {
            do {
                try await application.run()
            } catch {
                if bound.isSet || LoopbackListeners.isAddressInUse(error) {
                    // The 127.0.0.1 listener fails with the same error: whichever of the two the
                    // group hears from first, the error it reports is this one.
                    port.yield(.failure(error))
                    port.finish()
                    throw error
                }
                port.yield(.success(nil))
            }
        }
    }

    /// Whether the `[::1]` listener got its port (set from its server's start).
    private final class Bound: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    /// The `127.0.0.1` listener, on the port the first one got (the one asked for, when it got
    /// none).
    private struct SecondListener: Service {
        let ports: AsyncStream<Result<Int?, any Error>>
        let requested: Int
        let make: @Sendable (Int) -> any Service

        func run() async throws {
            var next = ports.makeAsyncIterator()
            guard let first = await next.next() else { return }  // cancelled before either bound
            try await make(first.get() ?? requested).run()
        }
    }
}
