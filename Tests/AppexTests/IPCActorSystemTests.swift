import AppexIPC
import Distributed
import Foundation
import Testing

@Resolvable
protocol Translator: DistributedActor where ActorSystem == IPCActorSystem {
    distributed func translate(_ text: String) async throws -> String
    distributed func count(_ words: [String]) async throws -> Int
    distributed func refuse() async throws
}

distributed actor UppercaseTranslator: Translator {
    typealias ActorSystem = IPCActorSystem

    distributed func translate(_ text: String) -> String { text.uppercased() }
    distributed func count(_ words: [String]) -> Int { words.count }
    distributed func refuse() throws { throw Refusal() }

    struct Refusal: Error, CustomStringConvertible { var description: String { "this translator refuses" } }
}

/// Distributed actors across a real socket pair: the exported-interface form of IPC.
@Suite struct IPCActorSystemTests {
    @Test("a @Resolvable protocol resolved on one side calls the distributed actor on the other")
    func resolveAndCall() async throws {
        let (a, b) = try FrameChannel.pair()
        let serving = IPCActorSystem()
        let calling = IPCActorSystem()
        let server = IPCConnection(channel: a, invocationHandler: serving.invocationHandler)
        let client = IPCConnection(channel: b, invocationHandler: calling.invocationHandler)
        serving.attach(server)
        calling.attach(client)
        server.start()
        client.start()
        defer {
            server.invalidate()
            client.invalidate()
        }

        let exported = UppercaseTranslator(actorSystem: serving)
        serving.export(exported, as: "translator")

        let translator = try $Translator.resolve(id: IPCActorSystem.ActorID("translator"), using: calling)
        #expect(try await translator.translate("hello") == "HELLO")
        #expect(try await translator.count(["a", "b", "c"]) == 3)
        let error = await #expect(throws: AppexError.self) { try await translator.refuse() }
        #expect(error?.code == .remoteFailure)
        #expect(error?.message.contains("this translator refuses") == true)

        let missing = try $Translator.resolve(id: IPCActorSystem.ActorID("nobody"), using: calling)
        let notFound = await #expect(throws: AppexError.self) { try await missing.translate("x") }
        #expect(notFound?.message.contains("no actor named nobody") == true)
    }
}
