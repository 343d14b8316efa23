// What the sandbox tests' host exports to the hostile fixture: a generic call, so the caller
// names a type the host must have registered. A concrete actor type both sides link, since a
// generic method through a @Resolvable protocol is not served (docs/decisions/0020-exported-interfaces.md).
public import AppexIPC
public import Distributed

/// A host-side actor that describes any value of a type it registered.
public distributed actor FixtureInspector {
    public typealias ActorSystem = IPCActorSystem

    /// Makes one in `actorSystem`.
    public init(actorSystem: IPCActorSystem) {
        self.actorSystem = actorSystem
    }

    /// The value's type and description, as the serving side sees them.
    public distributed func describe<Value: Codable & Sendable>(_ value: Value) -> String {
        "\(Value.self): \(value)"
    }
}
