public import AppexIPC
import AppexSystem
public import Distributed
import Foundation
import Synchronization

/// An app extension's entry point: declare the point it binds to and how it serves its host.
///
/// ```swift
/// @main
/// struct TranslateExtension: AppExtension {
///     static let boundAppExtensionPoint = ExtensionPointIdentifier(host: "com.example.hostapp", name: "HostAppFeature")
///     var configuration: some AppExtensionConfiguration {
///         ConnectionHandler { (request: TranslationRequest) in
///             TranslationReply(text: request.text.uppercased())
///         }
///     }
/// }
/// ```
///
/// Mirrors ExtensionKit's `AppExtension` with `@AppExtensionPoint.Bind`: the binding lives in
/// code, and `appex bundle` writes the bundle's Info.plist from it.
///
/// ### Implementing
/// Provide ``boundAppExtensionPoint``, ``configuration`` and `init()`; mark the type `@main`.
/// The process talks to its host over an inherited socket (descriptor 3), never standard
/// output, so stray `print`s cannot corrupt the channel.
public protocol AppExtension {
    /// The configuration's type.
    associatedtype Configuration: AppExtensionConfiguration

    /// The extension point this extension binds to.
    static var boundAppExtensionPoint: ExtensionPointIdentifier { get }

    /// How the extension serves its host's connection.
    var configuration: Configuration { get }

    /// Makes the extension; called once per process.
    init()
}

extension AppExtension {
    /// Runs the extension: offers the host's connection to ``configuration``, serves it until
    /// the host closes it, then exits. With `--print-binding` prints the bound point and exits
    /// (used by `appex bundle`).
    public static func main() async throws {
        if CommandLine.arguments.dropFirst().first == "--print-binding" {
            print(boundAppExtensionPoint.description)
            return
        }
        let runtime = try ExtensionRuntime.fromEnvironment()
        let hello = try runtime.receiveHello()
        let connection = HostConnection(hostBundleIdentifier: hello.hostBundleIdentifier)
        var accepted = Self().configuration.accept(connection: connection)
        var declined =
            accepted ? nil : connection.declineReason ?? "its configuration's accept(connection:) returned false"
        if accepted, let problem = connection.configurationProblem {
            accepted = false
            declined = problem
        }
        try runtime.answerHello(boundExtensionPoint: boundAppExtensionPoint, declined: declined)
        guard accepted else { return }
        await runtime.serve(connection)
    }
}

/// How an extension serves its host: decides whether to accept the host's connection and sets
/// up what it serves. Use ``ConnectionHandler``, or conform a type of your own.
public protocol AppExtensionConfiguration: Sendable {
    /// Decides whether to serve the host, once per process, before any request.
    ///
    /// To accept, set up what the connection serves — ``HostConnection/exportedObject`` (a
    /// `distributed actor` the host reaches as the connection's remote object), and/or
    /// ``HostConnection/requestHandler`` — call ``HostConnection/resume()``, and return `true`.
    /// Returning `false` refuses: the host's launch fails with `refused`, saying so.
    func accept(connection: HostConnection) -> Bool
}

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

    /// Calls the host's exported remote object: resolve the host's `@Resolvable` protocol.
    public func remoteObject<Stub: DistributedActor>(as stub: Stub.Type) throws -> Stub
    where Stub.ActorSystem == IPCActorSystem {
        try Stub.resolve(id: .exportedObject, using: actorSystem)
    }
}

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
    /// ``PeerHandler`` that answers each message, or reject it.
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
        Decision(handler: { session in
            let handler = makeHandler(session)
            return { bytes in
                let message: Handler.Input
                do { message = try JSONDecoder().decode(Handler.Input.self, from: Data(bytes)) } catch {
                    throw AppexError(
                        .coding,
                        "the host's message is not a \(Handler.Input.self)",
                        underlyingError: error
                    )
                }
                return Array(try JSONEncoder().encode(try await handler.handleIncomingRequest(message)))
            }
        })
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
    /// - Throws: ``AppexError``, as ``AppExtensionContext/callHost(_:expecting:timeout:)``.
    public func send<Message: Encodable, Reply: Decodable>(
        _ message: Message,
        expecting: Reply.Type = Reply.self,
        timeout: Duration? = nil
    ) async throws(AppexError) -> Reply {
        try await AppExtensionContext.callHost(message, expecting: Reply.self, timeout: timeout)
    }
}

private struct ClosurePeerHandler<Input: Decodable & Sendable, Output: Encodable & Sendable>: PeerHandler {
    let handle: @Sendable (Input) async throws -> Output
    func handleIncomingRequest(_ message: Input) async throws -> Output { try await handle(message) }
}

/// The extension's view of its host, while it runs.
///
/// Mirrors `NSExtensionContext`: the connection to the host is the process's own, so it is
/// reached from anywhere in the extension.
public enum AppExtensionContext {
    static let connection = Mutex<IPCConnection?>(nil)

    /// The distributed-actor system over the host connection: export the extension's
    /// `distributed actor`s with it (`actorSystem.export(actor, as: name)`), resolve the host's.
    public static let actorSystem = IPCActorSystem()

    /// Calls the interface the host exports (its `AppExtensionProcess.Configuration.exportedHandler`).
    ///
    /// - Throws: ``AppexError``: `invalidated` when there is no host connection; `coding` when
    ///   the request cannot be encoded or the reply is not a `Reply`; otherwise the call's
    ///   failure (`remote-failure` with the host's words, `deadline-exceeded`, `cancelled`,
    ///   `closed`), with the host's pid as the context's peer.
    public static func callHost<Request: Encodable, Reply: Decodable>(
        _ request: Request,
        expecting: Reply.Type = Reply.self,
        timeout: Duration? = nil
    ) async throws(AppexError) -> Reply {
        guard let connection = connection.withLock({ $0 }) else {
            throw AppexError(.invalidated, "no host connection: the extension is not running under its host")
        }
        let bytes: [UInt8]
        do { bytes = Array(try JSONEncoder().encode(request)) } catch {
            throw AppexError(.coding, "cannot encode \(Request.self) for the host", underlyingError: error)
        }
        let reply: [UInt8]
        do {
            reply = try await connection.call(bytes, timeout: timeout)
        } catch {
            throw error.updatingContext { $0.peer = ProcessControl.parentProcessIdentifier }  // the host is the parent (the launch contract)
        }
        do { return try JSONDecoder().decode(Reply.self, from: Data(reply)) } catch {
            throw AppexError(.coding, "the host's reply is not a \(Reply.self)", underlyingError: error)
        }
    }
}

/// The extension process's side of the launch contract (see docs/DESIGN.md, "Launching").
struct ExtensionRuntime {
    let connection: FrameChannel

    /// Reads the contract from the environment: the connection on descriptor
    /// `APPEX_CONNECTION_FD` (3), the host's pid in `APPEX_HOST_PID`. Arms the parent-death
    /// signal first, then checks the host is still the parent (it may have died before).
    ///
    /// - Throws: ``AppexError`` `launchFailed`, saying what of the contract is missing.
    static func fromEnvironment() throws(AppexError) -> ExtensionRuntime {
        let environment = ProcessInfo.processInfo.environment
        guard let fdText = environment["APPEX_CONNECTION_FD"], let fd = Int32(fdText) else {
            throw AppexError(
                .launchFailed,
                "not launched by an Appex host: APPEX_CONNECTION_FD is not set (run the extension through its host)"
            )
        }
        do { try ProcessControl.setParentDeathSignal(Signal.kill) } catch {
            throw AppexError(.launchFailed, "cannot arm the parent-death signal", underlyingError: error)
        }
        if let hostText = environment["APPEX_HOST_PID"], let host = Int32(hostText),
            ProcessControl.parentProcessIdentifier != host
        {
            ProcessControl.exitImmediately(0)  // the host died before we could arm the signal
        }
        let socket: OwnedDescriptor
        do { socket = try ProcessControl.adoptInheritedDescriptor(fd) } catch {
            throw AppexError(.launchFailed, "the connection descriptor \(fd) is not usable", underlyingError: error)
        }
        return ExtensionRuntime(connection: FrameChannel(owning: socket))
    }

    /// Waits for the host's hello and checks it is meant for this extension and speaks this
    /// protocol; adopts the channel limits it announces.
    func receiveHello() throws(AppexError) -> Handshake.HostHello {
        let me = ProcessInfo.processInfo.environment["APPEX_BUNDLE_IDENTIFIER"] ?? ""
        let hello = try Handshake.receive(Handshake.HostHello.self, on: connection, timeout: .seconds(30))
        guard hello.protocolVersion == Handshake.protocolVersion else {
            throw AppexError(
                .launchFailed,
                "the host speaks protocol \(hello.protocolVersion), this extension \(Handshake.protocolVersion)"
            )
        }
        guard hello.extensionBundleIdentifier == me else {
            throw AppexError(
                .launchFailed,
                "the host launched \(hello.extensionBundleIdentifier), but this is \(me)",
                context: AppexError.Context(bundleIdentifier: me)
            )
        }
        if let limits = hello.channel { connection.reconfigure(limits) }
        return hello
    }

    /// Answers the host's hello with the binding in code, and whether the connection is accepted.
    func answerHello(boundExtensionPoint: ExtensionPointIdentifier, declined: String?) throws(AppexError) {
        let me = ProcessInfo.processInfo.environment["APPEX_BUNDLE_IDENTIFIER"] ?? ""
        var answer = Handshake.ExtensionHello(
            extensionBundleIdentifier: me,
            boundExtensionPoint: boundExtensionPoint.description,
            processIdentifier: ProcessControl.processIdentifier
        )
        answer.declined = declined
        try Handshake.send(answer, on: connection)
    }

    /// Serves until the host closes the connection.
    func serve(_ host: HostConnection) async {
        let (closed, signal) = AsyncStream<Void>.makeStream()
        let connection = IPCConnection(
            channel: connection,
            payloadHandler: { request in
                guard let handler = host.handler else {
                    throw AppexError(
                        .refused,
                        "this extension serves no messages (its connection has no request handler)"
                    )
                }
                return try await handler(request)
            },
            invocationHandler: AppExtensionContext.actorSystem.invocationHandler,
            onClose: { _ in
                signal.yield()
                signal.finish()
            }
        )
        AppExtensionContext.connection.withLock { $0 = connection }
        AppExtensionContext.actorSystem.attach(connection)
        connection.start()
        for await _ in closed { break }
    }
}
