public import AppexIPC
public import Distributed

/// What a translator of ContactsExplorer's translate point exports in the connection form (seed
/// 001's `NSXPCConnection` style): the host reaches it with
/// `makeConnection().remoteObject(as: $NoteTranslator.self)`, and the compiler checks both sides.
@Resolvable
public protocol NoteTranslator: DistributedActor where ActorSystem == IPCActorSystem {
    /// `text` translated, with who translated it into which language.
    distributed func translate(_ text: String) async throws -> Translation
}
