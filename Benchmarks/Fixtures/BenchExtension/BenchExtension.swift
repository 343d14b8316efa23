// The extension the IPC benchmarks talk to: echoes the request's bytes, or answers
// "reply:N" with N bytes.
import AppexCore
import AppexExtension
import AppexIPC
import BenchInterfaces
import Distributed

/// NSXPCConnection style: an exported object and a raw request handler.
struct RawEcho: AppExtensionConfiguration {
    func accept(connection: HostConnection) -> Bool {
        connection.exportedObject = Echoer(actorSystem: connection.actorSystem)
        connection.requestHandler = { request in
            if request.starts(with: Array("reply:".utf8)), let size = Int(String(decoding: request.dropFirst(6), as: UTF8.self)) {
                return [UInt8](repeating: 0x5a, count: size)
            }
            return request
        }
        connection.resume()
        return true
    }
}

@main
struct BenchExtension: AppExtension {
    static let boundAppExtensionPoint = ExtensionPointIdentifier(host: "com.example.hostapp", name: "HostAppFeature")
    var configuration: RawEcho { RawEcho() }
    init() {}
}

distributed actor Echoer: BenchEcho {
    typealias ActorSystem = IPCActorSystem
    distributed func echo(_ bytes: [UInt8]) -> [UInt8] { bytes }
}
