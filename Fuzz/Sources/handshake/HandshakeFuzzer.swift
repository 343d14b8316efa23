@_spi(Fuzzing) @_spi(Wire) import AppexIPC
import FuzzSupport

/// Decodes the input as a hello frame's payload both ways a connection starts: as the host decodes an extension's
/// hello (`Handshake.ExtensionHello(decoding:)`) and as an extension decodes its host's (`Handshake.HostHello`). Any
/// bytes must decode or be refused with an `AppexError` `protocolViolation`, never crash, hang or allocate more than
/// the input allows. A hello that decodes must encode and decode again to the same hello and the same bytes.
///
/// `handshake --write-seeds DIR` writes the seed corpus instead: hellos of both sides as they send them, with and
/// without the channel's limits and a refusal, and a protocol-1 (JSON) hello (what `Fuzz/Corpus/handshake` holds).
@main
enum HandshakeFuzzer {
    static func main() {
        if let folder = Seeds.folderToWrite { writeSeeds(to: folder) }
        LibFuzzer.run { input in
            check(Handshake.HostHello.self, input)
            check(Handshake.ExtensionHello.self, input)
        }
    }

    /// Decodes `input` as a `Hello`; one that decodes must survive encoding and decoding again.
    static func check<Hello: FuzzedHello>(_ type: Hello.Type, _ input: [UInt8]) {
        let hello: Hello
        do throws(AppexError) { hello = try Hello(decoding: input) } catch {
            guard error.code == .protocolViolation else {
                fatalError("a \(Hello.self) was refused with \(error.code), not protocol-violation: \(error)")
            }
            return
        }
        let bytes = hello.encoded()
        guard let again = try? Hello(decoding: bytes), again == hello, again.encoded() == bytes else {
            fatalError("a \(Hello.self) that decoded did not survive encoding and decoding again")
        }
    }

    /// Writes every seed to `directory` as `NAME.hello` and exits.
    static func writeSeeds(to directory: String) -> Never {
        var limits = FrameChannel.Configuration()
        limits.maximumFrameSize = 1 << 20
        limits.sharedMemoryThreshold = .max
        let host = Handshake.HostHello(
            hostBundleIdentifier: "com.example.host",
            extensionBundleIdentifier: "com.example.host.translate",
            extensionPoint: "com.example.translate"
        )
        var hostWithLimits = host
        hostWithLimits.channel = limits
        let answer = Handshake.ExtensionHello(
            extensionBundleIdentifier: "com.example.host.translate",
            boundExtensionPoint: "com.example.translate",
            processIdentifier: 4242
        )
        var declined = answer
        declined.processIdentifier = .max
        declined.declined = "the extension serves com.example.summarize, not com.example.translate"
        var hostWithDefaults = host
        hostWithDefaults.channel = FrameChannel.Configuration()
        var protocol3 = host
        protocol3.protocolVersion = 3
        let json =
            #"{"protocolVersion":1,"hostBundleIdentifier":"com.example.host","extensionPoint":"com.example.translate"}"#
        Seeds.write(
            [
                ("host.hello", host.encoded()),
                ("host-limits.hello", hostWithLimits.encoded()),
                ("host-default-limits.hello", hostWithDefaults.encoded()),
                ("extension.hello", answer.encoded()),
                ("extension-declined.hello", declined.encoded()),
                ("protocol-1.hello", Array(json.utf8)),
                ("protocol-3.hello", protocol3.encoded()),
            ],
            to: directory,
            target: "handshake"
        )
    }
}

/// What the two hellos share for this target.
protocol FuzzedHello: Equatable {
    init(decoding payload: [UInt8]) throws(AppexError)
    func encoded() -> [UInt8]
}

extension Handshake.HostHello: FuzzedHello {}
extension Handshake.ExtensionHello: FuzzedHello {}
