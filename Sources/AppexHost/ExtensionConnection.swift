public import AppexCore
public import AppexIPC
public import Distributed
import Foundation

/// The host's connection to an extension process, in `NSXPCConnection` style: the
/// extension's exported object as a compiler-checked remote object, and the host's own object
/// exported to the extension.
///
/// Made by ``AppExtensionProcess/makeConnection()-4gj4s``. A process has one connection to its
/// host (docs/decisions/0163-wire-protocol-and-conformance.md): every `ExtensionConnection` and
/// ``ExtensionSession`` of a process shares it, follows its relaunches, and ends with
/// ``AppExtensionProcess/invalidate()``.
///
/// ```swift
/// let connection = try process.makeConnection()
/// let translator = try connection.remoteObject(as: $Translator.self)
/// let text = try await translator.translate("hello")
/// ```
public struct ExtensionConnection: Sendable {
    /// The process behind the connection.
    public let process: AppExtensionProcess

    /// The extension's exported object (its `HostConnection.exportedObject`), through its
    /// `@Resolvable` protocol's stub. Mirrors `remoteObjectProxy` with `remoteObjectInterface`.
    public func remoteObject<Stub: DistributedActor>(as stub: Stub.Type) throws -> Stub
    where Stub.ActorSystem == IPCActorSystem {
        try Stub.resolve(id: .exportedObject, using: process.actorSystem)
    }

    /// Makes `object` the host's exported object: the extension reaches it with
    /// `HostConnection.remoteObject(as:)`. Make it with ``AppExtensionProcess/actorSystem``.
    public func export(_ object: some DistributedActor) {
        process.actorSystem.export(object, as: IPCActorSystem.ActorID.exportedObject.name)
    }
}

/// The host's session with an extension process, in XPC-session style: typed messages to the
/// extension's `PeerHandler`-style handler, replies decoded.
///
/// Made by ``AppExtensionProcess/makeSession()-3c4fu``; shares the process's connection (see
/// ``ExtensionConnection``).
public struct ExtensionSession: Sendable {
    /// The process behind the session.
    public let process: AppExtensionProcess

    /// Sends `message` (JSON) and decodes the reply.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError``, as ``AppExtensionProcess/send(_:expecting:timeout:)``.
    public func send<Message: Encodable, Reply: Decodable>(
        _ message: Message,
        expecting: Reply.Type = Reply.self,
        timeout: Duration? = nil
    ) async throws(AppexError) -> Reply {
        try await process.send(message, expecting: Reply.self, timeout: timeout)
    }
}

extension AppExtensionProcess {
    /// The connection to the extension, launching the process now if it does not run, so that
    /// a refusal (invalid, unapproved, declined by the extension) surfaces here. The launch holds
    /// no thread while it waits for the extension's handshake.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `refused`, `launchFailed`, `crashBudgetExhausted`, `invalidated`.
    public func makeConnection() async throws(AppexError) -> ExtensionConnection {
        try await launchIfNeededAsync()
        return ExtensionConnection(process: self)
    }

    /// A session with the extension, launching the process now if it does not run.
    ///
    /// - Throws: as `makeConnection()`.
    public func makeSession() async throws(AppexError) -> ExtensionSession {
        try await launchIfNeededAsync()
        return ExtensionSession(process: self)
    }

    /// As the async `makeConnection()`, waiting for the launch on this thread (from synchronous
    /// code only: in an async context the compiler picks the async form).
    @available(
        *,
        noasync,
        message: "launches and waits for the handshake on this thread; use the async makeConnection()"
    )
    public func makeConnection() throws(AppexError) -> ExtensionConnection {
        try launchIfNeeded()
        return ExtensionConnection(process: self)
    }

    /// As the async `makeSession()`, waiting for the launch on this thread.
    @available(*, noasync, message: "launches and waits for the handshake on this thread; use the async makeSession()")
    public func makeSession() throws(AppexError) -> ExtensionSession {
        try launchIfNeeded()
        return ExtensionSession(process: self)
    }
}
