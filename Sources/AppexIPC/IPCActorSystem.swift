import AppexCoding
public import Distributed
import Synchronization

/// A `DistributedActorSystem` over one connection between a host and an extension: a `distributed actor` in one process
/// is called from the other through a `@Resolvable` protocol, with compiler-checked signatures.
///
/// The Swift-native form of `NSXPCInterface` plus `exportedObject`:
///
/// ```swift
/// @Resolvable
/// protocol Translator: DistributedActor where ActorSystem == IPCActorSystem {
///     distributed func translate(_ text: String) async throws -> String
/// }
/// // exporting side
/// distributed actor TranslatorImpl: Translator { ... }
/// let exported = TranslatorImpl(actorSystem: system)   // then system.export(exported, as: "translator")
/// // calling side
/// let translator = try $Translator.resolve(id: IPCActorSystem.ActorID("translator"), using: system)
/// try await translator.translate("hello")
/// ```
///
/// Arguments and results travel in the compact binary coding (``/AppexCoding/CompactEncoder``: chosen by
/// measurement over JSON); a call's generic substitutions travel as mangled type names (the
/// target is the protocol requirement, so they are needed to run it).
///
/// ### Types a peer may name
///
/// The serving side never looks up a type by the name the peer sent. A name stands for a type
/// only when this system registered it: the types of the actors made with it (``actorReady(_:)``)
/// or exported by it (``export(_:as:)``), and the types passed to ``register(_:)`` — the generic
/// arguments its distributed methods are called with. The first substitution of a call through
/// a `@Resolvable` protocol names the caller's stub (`$Translator`), a type the serving side never
/// made: it stands for the served actor's own type, which the runtime then checks against the
/// protocol. Any other name refuses the call with ``/AppexIPC/AppexVocabulary/AppexError/Code/unregisteredType``, naming
/// the type as sent; the connection goes on.
public final class IPCActorSystem: DistributedActorSystem, Sendable {
    /// Names an actor on one side of a connection.
    public struct ActorID: Hashable, Sendable, Codable, CustomStringConvertible {
        /// The name the actor was exported under, or a generated one.
        public let name: String
        /// An identifier for the actor exported as `name`.
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The connection's exported object: what `remoteObject(as:)` resolves on the other side.
        public static let exportedObject = ActorID("appex.exportedObject")
    }

    public typealias InvocationEncoder = IPCInvocationEncoder
    public typealias InvocationDecoder = IPCInvocationDecoder
    public typealias ResultHandler = IPCResultHandler
    public typealias SerializationRequirement = Codable

    /// An actor the other side may call, under its id.
    private struct ReadyActor {
        let id: ActorID
        let actor: any DistributedActor
    }

    private struct State {
        /// In an array searched in order, not an `[ActorID: any DistributedActor]`: a system
        /// serves a handful of actors, and a dictionary's first growth made every extension's
        /// start look up `ActorID: Hashable` by scanning every protocol conformance of the binary
        /// (its storage's metadata is made from a mangled name; decision 0168).
        var actors: [ReadyActor] = []
        var pendingName: String?
        var counter = 0

        func actor(_ id: ActorID) -> (any DistributedActor)? {
            actors.first { $0.id == id }?.actor
        }

        /// Makes `actor` the one called as `id`, in place of any other.
        mutating func setActor(_ actor: any DistributedActor, as id: ActorID) {
            if let index = actors.firstIndex(where: { $0.id == id }) {
                actors[index] = ReadyActor(id: id, actor: actor)
            } else {
                actors.append(ReadyActor(id: id, actor: actor))
            }
        }
    }

    private let state = Mutex(State())
    private let types = IPCTypeRegistry()
    /// What the runtime worked out for each target served (see ``DistributedTargetCache``).
    private let targets = DistributedTargetCache()
    /// Where calls go. A struct, not a bare closure: a `Mutex` of a function type reabstracts
    /// it on every `withLock` write-back, and the thunks pile up — each remote call got slower
    /// than the last (measured: 250 µs → 2 ms over 20,000 calls).
    private struct Caller: Sendable {
        let call: @Sendable (_ invocation: [UInt8]) async throws(AppexError) -> [UInt8]
    }
    private let caller = Mutex<Caller?>(nil)

    /// A system not yet attached to a connection; attach it before remote calls.
    public init() {}

    /// The connection remote calls go over.
    @_spi(Wire) public func attach(_ connection: IPCConnection) {
        caller.withLock {
            $0 = Caller(call: { invocation throws(AppexError) in
                try await connection.call(invocation, kind: .invocation)
            })
        }
    }

    /// Where remote calls go, asked at every call: `call` sends an encoded invocation as an
    /// invocation frame and returns the reply's bytes. Lets an owner launch the
    /// peer on demand, follow it across relaunches, and report a remote call's failure as it
    /// reports its other calls' (an `AppExtensionProcess` says `interrupted` when the extension
    /// dies during the call, for a remote call as for `send`).
    @_spi(Wire) public func attach(
        caller call: @escaping @Sendable (_ invocation: [UInt8]) async throws(AppexError) -> [UInt8]
    ) {
        caller.withLock { $0 = Caller(call: call) }
    }

    /// Makes `actor` callable from the other side as `name`. Call it right after the actor's
    /// init (the actor was assigned a generated id; this re-registers it under `name`).
    public func export(_ actor: some DistributedActor, as name: String) where ActorID == IPCActorSystem.ActorID {
        types.register(type(of: actor))
        state.withLock { state in
            state.setActor(actor, as: ActorID(name))
        }
    }

    /// Lets the other side name `types` as generic arguments of the distributed calls this
    /// system serves: `system.register(Point.self)` before a peer calls
    /// `func echo<Value: Codable>(_ value: Value)` with a `Point`. A call that names a type not
    /// registered is refused with ``/AppexIPC/AppexVocabulary/AppexError/Code/unregisteredType``.
    ///
    /// Not needed for the types of this system's actors (registered when they are made or
    /// exported) or for the stub of a `@Resolvable` protocol (it stands for the served actor);
    /// needed for each type a generic distributed method or a generic actor is called with.
    /// Registering a type again does nothing.
    public func register(_ types: Any.Type...) {
        for type in types { self.types.register(type) }
    }

    // MARK: - DistributedActorSystem

    /// The actor exported as `id`, whatever its type.
    public func resolveAny(id: ActorID) throws -> (any DistributedActor)? {
        state.withLock { $0.actor(id) }
    }

    public func resolve<Act: DistributedActor>(id: ActorID, as actorType: Act.Type) throws -> Act?
    where Act.ID == ActorID {
        state.withLock { $0.actor(id) as? Act }
    }

    public func assignID<Act: DistributedActor>(_ actorType: Act.Type) -> ActorID where Act.ID == ActorID {
        state.withLock { state in
            state.counter += 1
            return ActorID("actor-\(state.counter)")
        }
    }

    public func actorReady<Act: DistributedActor>(_ actor: Act) where Act.ID == ActorID {
        types.register(type(of: actor))
        state.withLock { $0.setActor(actor, as: actor.id) }
    }

    public func resignID(_ id: ActorID) {
        state.withLock { state in
            state.actors.removeAll { $0.id == id }
        }
    }

    public func makeInvocationEncoder() -> IPCInvocationEncoder { IPCInvocationEncoder() }

    public func remoteCall<Act: DistributedActor, Err: Error, Res: Codable>(
        on actor: Act,
        target: RemoteCallTarget,
        invocation: inout IPCInvocationEncoder,
        throwing: Err.Type,
        returning: Res.Type
    ) async throws -> Res where Act.ID == ActorID {
        let reply = try await send(actor.id, target: target, invocation: invocation)
        return try InvocationCoding.decode(Res.self, from: reply)
    }

    public func remoteCallVoid<Act: DistributedActor, Err: Error>(
        on actor: Act,
        target: RemoteCallTarget,
        invocation: inout IPCInvocationEncoder,
        throwing: Err.Type
    ) async throws where Act.ID == ActorID {
        _ = try await send(actor.id, target: target, invocation: invocation)
    }

    private func send(
        _ id: ActorID,
        target: RemoteCallTarget,
        invocation: IPCInvocationEncoder
    ) async throws(AppexError) -> [UInt8] {
        guard let caller = caller.withLock({ $0 }) else {
            throw AppexError(.invalidated, "the actor system is not attached to a connection")
        }
        let envelope = IPCInvocationEnvelope(
            actor: id.name,
            target: target.identifier,
            generics: invocation.generics,
            arguments: invocation.arguments
        )
        return try await caller.call(envelope.encoded())
    }

    // MARK: - Serving

    /// Serves the other side's distributed calls: install it as the connection's invocation handler.
    @_spi(Wire) public var invocationHandler: IPCConnection.Handler {
        { [self] bytes in
            let invocation = try IPCInvocationEnvelope(decoding: bytes)
            guard let actor = state.withLock({ $0.actor(ActorID(invocation.actor)) }) else {
                throw AppexError(.remoteFailure, "no actor named \(invocation.actor) is exported here")
            }
            let generics = try substitutions(in: invocation, servedBy: actor)
            var decoder = IPCInvocationDecoder(invocation: invocation, generics: generics)
            let handler = IPCResultHandler()
            try await targets.execute(
                on: actor,
                target: RemoteCallTarget(invocation.target),
                decoder: &decoder,
                handler: handler,
                system: self
            )
            switch handler.outcome.withLock({ $0 }) {
            case .value(let bytes): return bytes
            case .failure(let message): throw AppexError(.remoteFailure, message)
            case nil: throw AppexError(.remoteFailure, "the distributed target returned nothing")
            }
        }
    }

    /// The types the call's generic substitutions name, as this side registered them.
    ///
    /// The first name may also be the type the target is declared on (the target's identifier,
    /// `$s<type><member>…`, starts with it): a call through a `@Resolvable` protocol names the
    /// caller's stub there, its `Self`. It stands for `actor`'s own type — never a type the peer
    /// chose — and the runtime checks that the actor conforms to the protocol.
    private func substitutions(
        in invocation: IPCInvocationEnvelope,
        servedBy actor: any DistributedActor
    ) throws(AppexError) -> [Any.Type] {
        var resolved: [Any.Type] = []
        for (index, name) in invocation.generics.enumerated() {
            if index == 0, !name.isEmpty, invocation.target.hasPrefix("$s" + name) {
                resolved.append(type(of: actor))
            } else if let type = types.type(named: name) {
                resolved.append(type)
            } else {
                throw AppexError(
                    .unregisteredType,
                    "the peer named the type \(Self.shown(name)) as generic argument \(index + 1) of "
                        + "\(Self.shown(RemoteCallTarget(invocation.target).description)) on actor "
                        + "\(Self.shown(invocation.actor)), a type this side has not registered "
                        + "(IPCActorSystem.register(_:)); the call was refused"
                )
            }
        }
        return resolved
    }

    /// Text a peer sent, quoted and escaped, cut at 200 characters: fit for an error message.
    private static func shown(_ text: String) -> String {
        text.count > 200 ? String(reflecting: String(text.prefix(200))) + "…" : String(reflecting: text)
    }
}

/// Records a distributed call's generic substitutions and arguments (``/AppexCoding/CompactEncoder``).
public struct IPCInvocationEncoder: DistributedTargetInvocationEncoder {
    public typealias SerializationRequirement = Codable
    var generics: [String] = []
    var arguments: [[UInt8]] = []

    public mutating func recordGenericSubstitution<T>(_ type: T.Type) throws {
        guard let name = _mangledTypeName(type) else {
            throw AppexError(.coding, "cannot name the type \(type) for a distributed call")
        }
        generics.append(name)
    }

    public mutating func recordArgument<Value: Codable>(_ argument: RemoteCallArgument<Value>) throws {
        arguments.append(try InvocationCoding.encode(argument.value))
    }

    public mutating func recordErrorType<E: Error>(_ type: E.Type) throws {}
    public mutating func recordReturnType<R: Codable>(_ type: R.Type) throws {}
    public mutating func doneRecording() throws {}
}

/// Replays a recorded call on the serving side.
public struct IPCInvocationDecoder: DistributedTargetInvocationDecoder {
    public typealias SerializationRequirement = Codable
    let invocation: IPCInvocationEnvelope
    /// The types the invocation's generic substitutions name, resolved by the serving system
    /// among the types it registered.
    let generics: [Any.Type]
    var next = 0

    init(invocation: IPCInvocationEnvelope, generics: [Any.Type]) {
        self.invocation = invocation
        self.generics = generics
    }

    /// The call's generic substitutions, as the serving system resolved them.
    public mutating func decodeGenericSubstitutions() throws -> [Any.Type] { generics }

    public mutating func decodeNextArgument<Argument: Codable>() throws -> Argument {
        guard next < invocation.arguments.count else {
            throw AppexError(.coding, "a distributed call has too few arguments")
        }
        defer { next += 1 }
        return try InvocationCoding.decode(Argument.self, from: invocation.arguments[next])
    }

    public mutating func decodeErrorType() throws -> Any.Type? { nil }
    public mutating func decodeReturnType() throws -> Any.Type? { nil }
}

/// Captures what a served distributed call produced.
public final class IPCResultHandler: DistributedTargetInvocationResultHandler, Sendable {
    public typealias SerializationRequirement = Codable
    enum Outcome: Sendable {
        case value([UInt8])
        case failure(String)
    }
    let outcome = Mutex<Outcome?>(nil)

    public func onReturn<Success: Codable>(value: Success) async throws {
        let bytes = try InvocationCoding.encode(value)
        outcome.withLock { $0 = .value(bytes) }
    }

    public func onReturnVoid() async throws {
        outcome.withLock { $0 = .value([]) }
    }

    public func onThrow<Err: Error>(error: Err) async throws {
        outcome.withLock { $0 = .failure("\(error)") }
    }
}

/// The compact coder (AppexCoding) as distributed calls use it: a failure is an ``/AppexVocabulary/AppexError`` with
/// code `coding` whose underlying error is the coder's `CompactCodingError` (what and where),
/// which is what callers of a remote actor catch.
enum InvocationCoding {
    static func encode<T: Encodable>(_ value: T) throws(AppexError) -> [UInt8] {
        do {
            return try CompactEncoder().encode(value)
        } catch {
            throw AppexError(.coding, "cannot encode a \(T.self) for a distributed call", underlyingError: error)
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(AppexError) -> T {
        do {
            return try CompactDecoder().decode(type, from: bytes)
        } catch {
            throw AppexError(.coding, "cannot decode a \(T.self) in a distributed call", underlyingError: error)
        }
    }
}
