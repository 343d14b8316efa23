@_spi(Wire) import AppexIPC
import AppexVocabulary

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Answers the host's messages in a session with XPC's own signature, so Apple's sample code
/// compiles as written:
///
/// ```swift
/// struct TranslationHandler: XPCPeerHandler {
///     func handleIncomingRequest(_ message: TranslationRequest) -> (any Encodable)? {
///         TranslationReply(text: translate(message.text))
///     }
/// }
/// ```
///
/// Its reply is any `Encodable` value (XPC's `(any Encodable)?`) or a concrete type's; `nil`
/// answers `null`. Where a handler needs to wait or fail, ``PeerHandler`` (async, throwing)
/// is Appex's form of the same role.
public protocol XPCPeerHandler<Input, Output>: Sendable {
    /// The messages the host sends.
    associatedtype Input: Decodable & Sendable
    /// The replies: an `Encodable` type, or `any Encodable`.
    associatedtype Output
    /// Answers one message.
    func handleIncomingRequest(_ message: Input) -> Output?
}

extension XPCPeerHandler {
    /// This handler as the bytes-in, bytes-out closure a connection serves (JSON both ways, as
    /// ``PeerHandler``'s).
    var requestHandler: IPCConnection.Handler {
        { bytes in
            let message: Input
            do { message = try JSONDecoder().decode(Input.self, from: Data(bytes)) } catch {
                throw AppexError(.coding, "the host's message is not a \(Input.self)", underlyingError: error)
            }
            guard let reply = handleIncomingRequest(message) else { return Array("null".utf8) }
            guard let encodable = reply as? any Encodable else {
                throw AppexError(.coding, "\(Self.self) answered a \(type(of: reply)), which is not Encodable")
            }
            do { return Array(try JSONEncoder().encode(encodable)) } catch {
                throw AppexError(.coding, "cannot encode \(Self.self)'s reply", underlyingError: error)
            }
        }
    }
}

extension IncomingSessionRequest {
    /// Accepts the session with a handler written against XPC's `XPCPeerHandler`.
    public func accept<Handler: XPCPeerHandler>(_ makeHandler: @escaping @Sendable (HostSession) -> Handler) -> Decision
    {
        Decision(handler: { session in makeHandler(session).requestHandler })
    }
}

extension HostConnection {
    /// Answers the host's session messages with an `XPCPeerHandler`, as the ``PeerHandler``
    /// form of this method does.
    public func answerRequests(with handler: some XPCPeerHandler) {
        requestHandler = handler.requestHandler
    }
}
