@_spi(Wire) import AppexIPC
import AppexTestTiers
import Testing

/// The envelope a distributed call travels in: read back as written, and a malformed one refused
/// with what and where.
@Suite(.timed) struct IPCInvocationEnvelopeTests {
    static let sample = IPCInvocationEnvelope(
        actor: "translator-é",
        target: "$s15BenchInterfaces0A4EchoP4echoySays5UInt8VGAIYaKFTE",
        generics: ["", String(repeating: "N", count: 300)],
        arguments: [[], [1, 2, 3], [UInt8](repeating: 0xfe, count: 200), [UInt8](repeating: 7, count: 70_000)]
    )

    @Test("an envelope reads back as written, with multi-byte lengths, empty fields and non-ASCII names")
    func roundTrip() throws {
        #expect(try IPCInvocationEnvelope(decoding: Self.sample.encoded()) == Self.sample)
        let empty = IPCInvocationEnvelope(actor: "", target: "", generics: [], arguments: [])
        #expect(empty.encoded() == [0, 0, 0, 0])
        #expect(try IPCInvocationEnvelope(decoding: empty.encoded()) == empty)
    }

    @Test("every truncation of an envelope is refused as cut short, naming the field and the byte")
    func truncations() throws {
        let bytes = IPCInvocationEnvelope(actor: "a", target: "t", generics: ["G"], arguments: [[9, 9]]).encoded()
        for length in 0..<bytes.count {
            let error = #expect(throws: AppexError.self) {
                try IPCInvocationEnvelope(decoding: Array(bytes.prefix(length)))
            }
            #expect(error?.code == .coding)
            #expect(error?.message.contains("at byte") == true, "\(String(describing: error))")
        }
    }

    @Test(
        "a malformed envelope is refused with what was wrong",
        arguments: [
            ([1, 0x61, 1, 0x74, 0, 0, 0xaa], "1 bytes after its last argument"),
            ([1, 0x61, 1, 0x74, 0xff, 0xff, 0xff, 0x0f], "claims"),
            ([1, 0x61, 2, 0xc3, 0x28, 0, 0], "the target in a distributed call's envelope is not UTF-8"),
            (
                [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
                "malformed in the length of the actor's name"
            ),
            ([1, 0x61, 1, 0x74, 0, 1, 5, 1], "argument 1: 5 bytes announced"),
        ] as [([UInt8], String)]
    )
    func malformed(bytes: [UInt8], says: String) {
        let error = #expect(throws: AppexError.self) { try IPCInvocationEnvelope(decoding: bytes) }
        #expect(error?.code == .coding)
        #expect(error?.message.contains(says) == true, "\(String(describing: error))")
    }

    @Test("a malformed envelope sent over a connection fails that call with its reason, and the connection goes on")
    func overTheConnection() async throws {
        let systems = try ConnectedSystems()
        defer { systems.end() }
        let exported = UppercaseTranslator(actorSystem: systems.serving)
        systems.serving.export(exported, as: "translator")
        let refused = await #expect(throws: AppexError.self) {
            _ = try await systems.client.call([0xff], kind: .invocation)
        }
        #expect(refused?.code == .remoteFailure)
        #expect(refused?.message.contains("envelope") == true, "\(String(describing: refused))")
        let translator = try $Translator.resolve(id: IPCActorSystem.ActorID("translator"), using: systems.calling)
        #expect(try await translator.translate("on") == "ON")
    }
}
