// The extension keychain.read.brokered runs in: sandboxed, it reaches the keychain only through
// its host's broker. "read:N" reads the benchmark's item N times and answers the time they took,
// in nanoseconds (8 bytes, little-endian).
import AppexExtension
import AppexIPC
import AppexStore

struct KeychainReader: AppExtensionConfiguration {
    func accept(connection: HostConnection) -> Bool {
        connection.payloadHandler = { request in
            let text = String(decoding: request.bytes, as: UTF8.self)
            guard text.hasPrefix("read:"), let count = Int(text.dropFirst(5)) else { return request }
            let keychain = try SharedKeychain(context: try ProcessContext.current())
            precondition(keychain.isBrokered, "the benchmark's extension must reach the keychain through its broker")
            let start = ContinuousClock.now
            for _ in 0..<count {
                guard try keychain.item(service: "api.example.com", account: "ada", accessGroup: "TEAMID.com.example.bench") != nil
                else { preconditionFailure("the benchmark's item is missing") }
            }
            let elapsed = ContinuousClock.now - start
            var nanoseconds = UInt64(elapsed.components.seconds) * 1_000_000_000 + UInt64(elapsed.components.attoseconds / 1_000_000_000)
            return Payload(withUnsafeBytes(of: &nanoseconds) { Array($0) })
        }
        connection.resume()
        return true
    }
}

@main
struct BenchKeychainExtension: AppExtension {
    static let boundAppExtensionPoint = ExtensionPointIdentifier(host: "com.example.hostapp", name: "HostAppFeature")
    var configuration: KeychainReader { KeychainReader() }
    init() {}
}
