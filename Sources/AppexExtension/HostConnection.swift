@_spi(Wire) public import AppexIPC
import AppexSystem
public import Distributed
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The host's connection, as an extension's ``AppExtensionConfiguration`` receives it.
///
/// Mirrors `NSXPCConnection` in an extension's `accept(connection:)`: set what it serves, then
/// ``resume()``. As with XPC, nothing is delivered until ``resume()``: the host's calls wait
/// (under their deadlines), and an extension that never resumes says so on standard error,
/// which its host logs.
public final class HostConnection: Sendable {
    private struct State {
        var requestHandler: (@Sendable ([UInt8]) async throws -> [UInt8])?
        var payloadHandler: PayloadRequestHandler?
        var interceptor: (@Sendable ([UInt8]) async throws -> [UInt8]?)?
        var exportedInterface: ExportedInterface?
        var declineReason: String?
        var isResumed = false
        var resumeWaiters: [Waiter] = []
    }

    /// A task waiting in ``waitUntilResumed()``. Not a `[CheckedContinuation<Void, Never>]`:
    /// that array's metadata, made from a mangled name at every extension's start, looked up
    /// `Never: Error` by scanning every protocol conformance of the binary (a checked
    /// continuation's layout is resilient, an unsafe one's fixed; decision 0168). Each waiter is
    /// resumed once: ``resume()`` takes them all under the lock.
    private struct Waiter {
        let continuation: UnsafeContinuation<Void, Never>
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

    /// The protocol ``exportedObject`` serves, as `NSXPCConnection.exportedInterface` says it:
    /// when set, a connection whose exported object does not conform is not served, and the
    /// refusal names both. `nil` (the default) checks nothing.
    public var exportedInterface: ExportedInterface? {
        get { state.withLock { $0.exportedInterface } }
        set { state.withLock { $0.exportedInterface = newValue } }
    }

    /// Serves the host's messages (`ExtensionSession`'s `send` on the host): takes a
    /// request's bytes, returns the reply's. Set this or ``payloadHandler``, not both: a
    /// connection with both is declined, naming them (neither silently wins).
    public var requestHandler: (@Sendable ([UInt8]) async throws -> [UInt8])? {
        get { state.withLock { $0.requestHandler } }
        set { state.withLock { $0.requestHandler = newValue } }
    }

    /// Serves the host's messages with bytes where they are: a large request is read in the
    /// host's shared memory, and a reply made once with `Payload(sharing:)` is sent again and
    /// again without a copy. Set this or ``requestHandler``, not both.
    public var payloadHandler: PayloadRequestHandler? {
        get { state.withLock { $0.payloadHandler } }
        set { state.withLock { $0.payloadHandler = newValue } }
    }

    /// Answers the messages it recognizes before ``requestHandler`` or ``payloadHandler`` see
    /// them (`nil`: not one of its own): how a UI extension's scenes share the connection with
    /// what the extension serves itself.
    package var interceptor: (@Sendable ([UInt8]) async throws -> [UInt8]?)? {
        get { state.withLock { $0.interceptor } }
        set { state.withLock { $0.interceptor = newValue } }
    }

    /// Starts delivering the host's messages and calls, as `NSXPCConnection.resume()` does.
    ///
    /// Nothing reaches ``exportedObject`` or the handlers before this call (the host's requests
    /// wait in the connection), so set them first. Call it in `accept(connection:)` before
    /// returning `true`, or later — from a task that finishes getting ready — and the waiting
    /// messages are delivered then. Calling it again does nothing.
    public func resume() {
        let waiters = state.withLock { state in
            state.isResumed = true
            defer { state.resumeWaiters = [] }
            return state.resumeWaiters
        }
        for waiter in waiters { waiter.continuation.resume() }
    }

    /// The extension's bundle identifier, for what it writes on standard error.
    var extensionName: String {
        ProcessControl.environmentVariable("APPEX_BUNDLE_IDENTIFIER") ?? "extension"
    }

    /// Whether ``resume()`` was called.
    var isResumed: Bool { state.withLock { $0.isResumed } }

    /// Returns once ``resume()`` was called.
    func waitUntilResumed() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let resumed = state.withLock { state in
                if !state.isResumed { state.resumeWaiters.append(Waiter(continuation: continuation)) }
                return state.isResumed
            }
            if resumed { continuation.resume() }
        }
    }

    /// The handler that serves the host's messages: whichever of the two was set.
    var handler: IPCConnection.PayloadHandler? {
        let (inner, interceptor) = state.withLock { state -> (IPCConnection.PayloadHandler?, _) in
            if let payloadHandler = state.payloadHandler { return (payloadHandler, state.interceptor) }
            guard let requestHandler = state.requestHandler else { return (nil, state.interceptor) }
            return ({ @Sendable payload in Payload(try await requestHandler(payload.bytes)) }, state.interceptor)
        }
        guard let interceptor else { return inner }
        return { @Sendable payload in
            if let reply = try await interceptor(payload.bytes) { return Payload(reply) }
            guard let inner else {
                throw AppexError(.refused, "this extension serves no messages but its scenes'")
            }
            return try await inner(payload)
        }
    }

    /// Why the connection cannot be served as configured (both handlers set, or an exported
    /// object that does not serve the exported interface), or `nil`.
    var configurationProblem: String? {
        let (bothHandlers, interface) = state.withLock { state in
            (state.requestHandler != nil && state.payloadHandler != nil, state.exportedInterface)
        }
        if bothHandlers { return "its HostConnection sets both requestHandler and payloadHandler; set one" }
        guard let interface else { return nil }
        guard let object = exportedObject else {
            return "its HostConnection's exportedInterface is \(interface), but it sets no exportedObject"
        }
        guard interface.isServed(by: object) else {
            return "its exportedObject, a \(type(of: object)), does not conform to its exportedInterface, \(interface)"
        }
        return nil
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
