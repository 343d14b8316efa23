import AppexIPC
import Distributed
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A configuration made of a closure: the three forms of ExtensionKit's connection handler.
///
/// ```swift
/// // NSXPCConnection style
/// ConnectionHandler(onConnection: { connection in
///     connection.exportedObject = Translator(actorSystem: connection.actorSystem)
///     connection.resume()
///     return true
/// })
/// // XPC session style
/// ConnectionHandler(onSessionRequest: { request in
///     request.accept { session in TranslationHandler() }
/// })
/// // one typed closure
/// ConnectionHandler { (request: TranslationRequest) in TranslationReply(text: ...) }
/// ```
public struct ConnectionHandler: AppExtensionConfiguration {
    private let decide: @Sendable (HostConnection) -> Bool

    /// Accepts or refuses the host's connection with `onConnection` (see
    /// ``AppExtensionConfiguration/accept(connection:)``).
    public init(onConnection: @escaping @Sendable (HostConnection) -> Bool) {
        decide = onConnection
    }

    /// Decides on the host's session request with `onSessionRequest`: accept it with a
    /// ``PeerHandler`` or an ``XPCPeerHandler`` that answers each message, or reject it.
    /// ExtensionKit's trailing-closure form, `ConnectionHandler { request in … return
    /// request.accept { session in … } }`, calls this.
    public init(onSessionRequest: @escaping @Sendable (IncomingSessionRequest) -> IncomingSessionRequest.Decision) {
        decide = { connection in
            let decision = onSessionRequest(
                IncomingSessionRequest(hostBundleIdentifier: connection.hostBundleIdentifier)
            )
            guard let handler = decision.handler else {
                connection.declineReason = decision.reason
                return false
            }
            connection.requestHandler = handler(HostSession())
            connection.resume()
            return true
        }
    }

    /// Serves each request of the host with `handle`: it takes a `Decodable` message and
    /// returns an `Encodable` reply (JSON on the wire); an error it throws reaches the host's
    /// caller as a remote failure carrying the error's description.
    public init<Request: Decodable & Sendable, Reply: Encodable & Sendable>(
        _ handle: @escaping @Sendable (Request) async throws -> Reply
    ) {
        self.init(onSessionRequest: { request in
            request.accept { _ in ClosurePeerHandler(handle: handle) }
        })
    }

    /// Runs the closure given at creation.
    public func accept(connection: HostConnection) -> Bool {
        decide(connection)
    }
}
