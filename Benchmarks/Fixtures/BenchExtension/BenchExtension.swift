// The extension the IPC benchmarks talk to: echoes the request's bytes, or answers
// "reply:N" with N bytes.
import AppexExtension
import AppexIPC
import BenchInterfaces
import Distributed
import Synchronization

/// NSXPCConnection style: an exported object and a raw request handler.
struct RawEcho: AppExtensionConfiguration {
    func accept(connection: HostConnection) -> Bool {
        connection.exportedObject = Echoer(actorSystem: connection.actorSystem)
        connection.payloadHandler = { request in
            // Echoes without a copy, as the C baseline's child does; only "reply:N" is read.
            if request.starts(with: replyPrefix), let size = Int(String(decoding: request.dropFirst(6), as: UTF8.self)) {
                return try Replies.shared.reply(of: size)
            }
            return request
        }
        connection.resume()
        return true
    }
}

/// What a request for a reply of a given size starts with.
private let replyPrefix = Array("reply:".utf8)

/// Replies made once per size and kept in sealed shared memory (`Payload(sharing:)`), as the
/// C baseline keeps its buffer: the figures measure moving the bytes, not making them. Sent
/// to a host that keeps everything in the socket, their bytes go through the socket.
final class Replies: Sendable {
    static let shared = Replies()
    private let made = Mutex<[Int: Payload]>([:])
    func reply(of size: Int) throws -> Payload {
        try made.withLock { made in
            if let reply = made[size] { return reply }
            let reply = try Payload(sharing: [UInt8](repeating: 0x5a, count: size))
            made[size] = reply
            return reply
        }
    }
}

@main
struct BenchExtension: AppExtension {
    static let boundAppExtensionPoint = ExtensionPointIdentifier(host: "com.example.hostapp", name: "HostAppFeature")
    var configuration: RawEcho { RawEcho() }
    /// A tracer, as a traced extension bootstraps one: an untraced call never reaches it (only
    /// a frame with a trace context is served in a span), ipc.roundtrip.64B.traced's calls do.
    init() { W3CTracer.bootstrapOnce() }
}

distributed actor Echoer: BenchEcho {
    typealias ActorSystem = IPCActorSystem
    distributed func echo(_ bytes: [UInt8]) -> [UInt8] { bytes }
}
