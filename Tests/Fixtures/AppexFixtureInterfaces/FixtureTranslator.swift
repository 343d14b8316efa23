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

/// What the echo fixture's ConnectionHandler takes: a command (`echo`, `crash`, `hang`,
/// `print`, `fail`, `callback`, `garbage`, `oversize`) and a text.
public struct EchoRequest: Codable, Sendable {
    public var command: String
    public var text: String
    public init(command: String, text: String) {
        self.command = command
        self.text = text
    }
}

/// What the echo fixture answers: the text, and its pid.
public struct EchoReply: Codable, Sendable {
    public var text: String
    public var pid: Int32
    public init(text: String, pid: Int32) {
        self.text = text
        self.pid = pid
    }
}

/// What `AppexFixtureHost` reports after its launch/terminate cycles.
public struct LaunchCycleReport: Codable, Sendable {
    public var cycles: Int
    public var descriptorsBefore: Int
    public var descriptorsAfter: Int
    public var zombies: [Int32]
    public var distinctProcesses: Int
    public init(cycles: Int, descriptorsBefore: Int, descriptorsAfter: Int, zombies: [Int32], distinctProcesses: Int) {
        self.cycles = cycles
        self.descriptorsBefore = descriptorsBefore
        self.descriptorsAfter = descriptorsAfter
        self.zombies = zombies
        self.distinctProcesses = distinctProcesses
    }
}

/// What the translate fixture's session handler takes.
public struct TranslationRequest: Codable, Sendable {
    /// The text to translate.
    public var text: String
    /// Makes one.
    public init(text: String) { self.text = text }
}

/// What it answers.
public struct TranslationReply: Codable, Sendable, Equatable {
    /// The translation.
    public var text: String
    /// Makes one.
    public init(text: String) { self.text = text }
}
