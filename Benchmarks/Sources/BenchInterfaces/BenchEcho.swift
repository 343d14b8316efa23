// The distributed interface the benchmark extension exports (shared by both sides).
public import AppexIPC
public import Distributed

/// Echoes bytes back, as a distributed actor.
@Resolvable
public protocol BenchEcho: DistributedActor where ActorSystem == IPCActorSystem {
    /// Returns `bytes`.
    distributed func echo(_ bytes: [UInt8]) async throws -> [UInt8]
}
