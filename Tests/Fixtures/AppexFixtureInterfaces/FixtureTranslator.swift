// The interface the echo fixture extension exports, shared by the fixture and the tests: the
// compiler checks both sides of every call.
public import AppexIPC
public import Distributed

/// What the fixture extension offers as a distributed actor.
@Resolvable
public protocol FixtureTranslator: DistributedActor where ActorSystem == IPCActorSystem {
    /// The text in upper case, and the extension's pid.
    distributed func translate(_ text: String) async throws -> TranslatedText
}

/// A translation, with who made it.
public struct TranslatedText: Codable, Sendable, Equatable {
    /// The translated text.
    public var text: String
    /// The pid of the process that translated it.
    public var pid: Int32
    /// Makes one.
    public init(text: String, pid: Int32) {
        self.text = text
        self.pid = pid
    }
}
