public import AppexIPC
import AppexSystem
public import Distributed
import Foundation
import Synchronization

/// The host's connection, as an extension's ``AppExtensionConfiguration`` receives it.
///
/// Mirrors `NSXPCConnection` in an extension's `accept(connection:)`: set what it serves, then
/// ``resume()``. (Unlike XPC, forgetting `resume()` does not leave the host hanging: a
/// connection accepted with `true` is resumed anyway.)
public final class HostConnection: Sendable {
    private struct State {
        var requestHandler: (@Sendable ([UInt8]) async throws -> [UInt8])?
        var payloadHandler: IPCConnection.PayloadHandler?
        var declineReason: String?
    }

    /// The host app's bundle identifier, as the host said it in the handshake.
    public let hostBundleIdentifier: String
    private let state = Mutex(State())

    init(hostBundleIdentifier: String) {
        self.hostBundleIdentifier = hostBundleIdentifier
    }

    /// The distributed-actor system of this connection (``AppExtensionContext/actorSystem``).
    public var actorSystem: IPCActorSystem { AppExtensionContext.actorSystem }

    /// The object the host reaches as this connection's remote object
    /// (`ExtensionConnection.remoteObject(as:)` on the host): a `distributed actor` made with
    /// ``actorSystem``. Mirrors `NSXPCConnection.exportedObject`; the actor's `@Resolvable`
    /// protocol plays `exportedInterface`.
    public var exportedObject: (any DistributedActor)? {
        get { try? actorSystem.resolveAny(id: .exportedObject) }
        set {
            if let newValue {
                actorSystem.export(newValue, as: IPCActorSystem.ActorID.exportedObject.name)
            } else {
                actorSystem.resignID(.exportedObject)
            }
        }
    }

    /// Serves the host's messages (``ExtensionSession``'s `send` on the host): takes a
    /// request's bytes, returns the reply's. Set this or ``payloadHandler``, not both: a
    /// connection with both is declined, naming them (neither silently wins).
    public var requestHandler: (@Sendable ([UInt8]) async throws -> [UInt8])? {
        get { state.withLock { $0.requestHandler } }
        set { state.withLock { $0.requestHandler = newValue } }
    }

    /// Serves the host's messages with bytes where they are: a large request is read in the
    /// host's shared memory, and a reply made once with `Payload(sharing:)` is sent again and
    /// again without a copy. Set this or ``requestHandler``, not both.
    public var payloadHandler: IPCConnection.PayloadHandler? {
        get { state.withLock { $0.payloadHandler } }
        set { state.withLock { $0.payloadHandler = newValue } }
    }

    /// Marks the connection ready, for XPC-style code. Serving starts when `accept(connection:)`
    /// returns `true` — no message arrives before that — so set the handlers and exported object
    /// before returning; a handler set later misses the messages that came first.
    public func resume() {
        // Nothing to do: the runtime serves once accept(connection:) returns true.
    }

    /// The handler that serves the host's messages: whichever of the two was set.
    var handler: IPCConnection.PayloadHandler? {
        state.withLock { state in
            if let payloadHandler = state.payloadHandler { return payloadHandler }
            guard let requestHandler = state.requestHandler else { return nil }
            return { @Sendable payload in Payload(try await requestHandler(payload.bytes)) }
        }
    }

    /// Why the connection cannot be served as configured (both handlers set), or `nil`.
    var configurationProblem: String? {
        state.withLock { state in
            state.requestHandler != nil && state.payloadHandler != nil
                ? "its HostConnection sets both requestHandler and payloadHandler; set one" : nil
        }
    }

    /// Why the connection was refused, when a rejected session request said so.
    var declineReason: String? {
        get { state.withLock { $0.declineReason } }
        set { state.withLock { $0.declineReason = newValue } }
    }

    /// Answers the host's session messages (its `makeSession().send`) with `handler`, as an
    /// accepted session request would: for an extension that exports an object and also serves
    /// the session form. Sets ``requestHandler``.
    public func answerRequests(with handler: some PeerHandler) {
        requestHandler = handler.requestHandler
    }

    /// Calls the host's exported remote object: resolve the host's `@Resolvable` protocol.
    public func remoteObject<Stub: DistributedActor>(as stub: Stub.Type) throws -> Stub
    where Stub.ActorSystem == IPCActorSystem {
        try Stub.resolve(id: .exportedObject, using: actorSystem)
    }
}
