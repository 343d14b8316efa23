import Distributed

/// The protocol a connection's exported object serves, as `NSXPCInterface` names it for XPC:
/// set ``HostConnection/exportedInterface`` to one, and the connection is served only if its
/// ``HostConnection/exportedObject`` conforms.
///
/// ```swift
/// connection.exportedInterface = NSXPCInterface(with: Translator.self)
/// connection.exportedObject = TranslatorService(actorSystem: connection.actorSystem)
/// connection.resume()
/// ```
///
/// The protocol is a `@Resolvable` distributed-actor protocol (the Swift form of an `@objc`
/// protocol: the host resolves `$Translator` to call it). `NSXPCInterface` is this type's
/// alias, for Apple's code.
public struct ExportedInterface: Sendable, CustomStringConvertible {
    /// The protocol's name, as the refusals say it.
    public let protocolName: String
    private let accepts: @Sendable (any DistributedActor) -> Bool

    /// The interface of the protocol `protocolType` (write `Translator.self`).
    public init<Protocol>(with protocolType: Protocol.Type) {
        var name = String(describing: protocolType)
        if name.hasPrefix("any ") { name.removeFirst(4) }
        protocolName = name
        accepts = { object in object is Protocol }
    }

    /// Whether `object` serves this interface.
    func isServed(by object: any DistributedActor) -> Bool {
        accepts(object)
    }

    /// The protocol's name.
    public var description: String { protocolName }
}

/// XPC's name for ``ExportedInterface``, so Apple's `accept(connection:)` compiles as written.
public typealias NSXPCInterface = ExportedInterface

/// XPC's name for the connection an extension's `accept(connection:)` receives: Appex's
/// ``HostConnection``.
public typealias NSXPCConnection = HostConnection
