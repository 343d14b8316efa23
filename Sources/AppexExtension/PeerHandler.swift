@_spi(Wire) public import AppexIPC
import AppexVocabulary
import Distributed
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Answers the host's messages in a session: mirrors XPC's `XPCPeerHandler`.
///
/// ```swift
/// struct TranslationHandler: PeerHandler {
///     func handleIncomingRequest(_ message: TranslationRequest) -> TranslationReply? {
///         TranslationReply(text: translate(message.text))
///     }
/// }
/// ```
public protocol PeerHandler: Sendable {
    /// The messages the host sends.
    associatedtype Input: Decodable & Sendable
    /// The replies.
    associatedtype Output: Encodable & Sendable
    /// Answers one message; a thrown error reaches the host's caller as a remote failure.
    func handleIncomingRequest(_ message: Input) async throws -> Output
}

/// The host's request to open a session: accept it with a ``PeerHandler`` or reject it.
public struct IncomingSessionRequest: Sendable {
    /// The host app's bundle identifier.
    public let hostBundleIdentifier: String

    /// What the extension decided.
    public struct Decision: Sendable {
        let handler: (@Sendable (HostSession) -> IPCConnection.Handler)?
        var reason: String?
    }

    /// Accepts the session; `makeHandler` makes the handler that answers its messages.
    public func accept<Handler: PeerHandler>(_ makeHandler: @escaping @Sendable (HostSession) -> Handler) -> Decision {
        Decision(handler: { session in makeHandler(session).requestHandler })
    }

    /// Refuses the session: the host's launch fails with `refused`.
    public func reject(reason: String) -> Decision {
        Decision(handler: nil, reason: reason)
    }
}

/// The extension's side of an accepted session: sends messages to the host.
public struct HostSession: Sendable {
    /// Sends `message` to the host's exported handler and decodes its reply.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError``, as ``AppExtensionContext/callHost(_:expecting:timeout:)``.
    public func send<Message: Encodable, Reply: Decodable>(
        _ message: Message,
        expecting: Reply.Type = Reply.self,
        timeout: Duration? = nil
    ) async throws(AppexError) -> Reply {
        try await AppExtensionContext.callHost(message, expecting: Reply.self, timeout: timeout)
    }
}

extension PeerHandler {
    /// This handler as the bytes-in, bytes-out closure a connection serves: each message decoded
    /// as `Input` (JSON, as the host's `send` writes it), the reply encoded as JSON.
    var requestHandler: IPCConnection.Handler {
        { bytes in
            let message: Input
            do { message = try JSONDecoder().decode(Input.self, from: Data(bytes)) } catch {
                throw AppexError(.coding, "the host's message is not a \(Input.self)", underlyingError: error)
            }
            return Array(try JSONEncoder().encode(try await handleIncomingRequest(message)))
        }
    }
}

struct ClosurePeerHandler<Input: Decodable & Sendable, Output: Encodable & Sendable>: PeerHandler {
    let handle: @Sendable (Input) async throws -> Output
    func handleIncomingRequest(_ message: Input) async throws -> Output { try await handle(message) }
}
