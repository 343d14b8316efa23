import AppexCoding
@_spi(Wire) import AppexIPC
import AppexTestTiers
import Distributed
import Foundation
import Synchronization
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

/// Echoes values of any type: the generic distributed method a peer names a type for.
distributed actor Echoer {
    typealias ActorSystem = IPCActorSystem

    /// How many calls ran, so a test can see that a refused one did not.
    private(set) var calls = 0

    distributed func echo<Value: Codable & Sendable>(_ value: Value) -> String {
        calls += 1
        return "\(Value.self): \(value)"
    }

    distributed func callCount() -> Int { calls }
}

/// A type the serving side registers.
struct Point: Codable, Sendable { var x, y: Int }
/// A type that exists in the process, is `Codable`, and is never registered.
struct Unregistered: Codable, Sendable { var secret: String }

/// Two systems over a socket pair; `serving` serves, `calling` calls. Invalidated by `end()`.
struct ConnectedSystems {
    let serving = IPCActorSystem()
    let calling = IPCActorSystem()
    let server: IPCConnection
    let client: IPCConnection

    init() throws {
        let (a, b) = try FrameChannel.pair()
        server = IPCConnection(channel: a, invocationHandler: serving.invocationHandler)
        client = IPCConnection(channel: b, invocationHandler: calling.invocationHandler)
        serving.attach(server)
        calling.attach(client)
        server.start()
        client.start()
    }

    func end() {
        server.invalidate()
        client.invalidate()
    }
}

/// The invocation a call makes, as the peer would receive it: `call` runs against a system whose
/// caller records the bytes and sends nothing.
func recordedInvocation(
    _ call: @Sendable (IPCActorSystem) async throws -> Void
) async throws -> IPCInvocationEnvelope {
    let recorded = Mutex<[UInt8]?>(nil)
    let recorder = IPCActorSystem()
    recorder.attach(caller: { bytes throws(AppexError) in
        recorded.withLock { $0 = bytes }
        throw AppexError(.cancelled, "recorded, not sent")
    })
    try? await call(recorder)
    let bytes = try #require(recorded.withLock { $0 })
    return try IPCInvocationEnvelope(decoding: bytes)
}

/// Distributed actors across a real socket pair: the exported-interface form of IPC.
@Suite(.timed) struct IPCActorSystemTests {
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

    @Test(
        "a generic distributed method runs with a registered type, refuses an unregistered one by name, and the connection goes on"
    )
    func genericArgumentsMustBeRegistered() async throws {
        let systems = try ConnectedSystems()
        defer { systems.end() }
        let exported = Echoer(actorSystem: systems.serving)
        systems.serving.export(exported, as: "echoer")
        systems.serving.register(Point.self)
        let echoer = try Echoer.resolve(id: IPCActorSystem.ActorID("echoer"), using: systems.calling)

        #expect(try await echoer.echo(Point(x: 1, y: 2)) == "Point: Point(x: 1, y: 2)")

        let refused = await #expect(throws: AppexError.self) {
            _ = try await echoer.echo(Unregistered(secret: "s"))
        }
        let name = try #require(_mangledTypeName(Unregistered.self))
        #expect(refused?.code == .remoteFailure)
        #expect(refused?.message.contains("unregistered-type:") == true, "\(String(describing: refused))")
        #expect(refused?.message.contains("\"\(name)\"") == true, "names the type as sent")
        #expect(refused?.message.contains("echo") == true, "names the target")
        #expect(refused?.message.contains("\"echoer\"") == true, "names the actor")

        // The refused call never ran; later calls on the same connection do.
        #expect(try await echoer.echo(Point(x: 3, y: 4)) == "Point: Point(x: 3, y: 4)")
        #expect(try await echoer.callCount() == 2)
        #expect(systems.server.closeReason == nil && systems.client.closeReason == nil)
    }

    @Test(
        "a peer that names a type nobody registered is refused by name, whatever the type",
        arguments: [
            _mangledTypeName(Unregistered.self)!, _mangledTypeName(FileManager.self)!, _mangledTypeName(URL.self)!,
            "NotAType", "",
        ]
    )
    func hostileTypeName(_ name: String) async throws {
        let systems = try ConnectedSystems()
        defer { systems.end() }
        let exported = Echoer(actorSystem: systems.serving)
        systems.serving.export(exported, as: "echoer")
        systems.serving.register(Point.self)

        // A well-formed call, with the peer's own choice of type put in.
        var invocation = try await recordedInvocation { recorder in
            _ = try await Echoer.resolve(id: IPCActorSystem.ActorID("echoer"), using: recorder)
                .echo(Unregistered(secret: "s"))
        }
        invocation.generics = [name]
        let bytes = invocation.encoded()

        // Served directly: the typed error.
        let direct = await #expect(throws: AppexError.self) { _ = try await systems.serving.invocationHandler(bytes) }
        #expect(direct?.code == .unregisteredType)
        #expect(direct?.message.contains(String(reflecting: name)) == true, "\(String(describing: direct))")
        #expect(direct?.message.contains("echo") == true)

        // Over the connection: refused by name, and the connection goes on.
        let remote = await #expect(throws: AppexError.self) {
            _ = try await systems.client.call(bytes, kind: .invocation)
        }
        #expect(remote?.code == .remoteFailure)
        #expect(remote?.message.hasPrefix("unregistered-type: ") == true, "\(String(describing: remote))")
        #expect(remote?.message.contains(String(reflecting: name)) == true)
        let echoer = try Echoer.resolve(id: IPCActorSystem.ActorID("echoer"), using: systems.calling)
        #expect(try await echoer.echo(Point(x: 5, y: 6)) == "Point: Point(x: 5, y: 6)")
        #expect(try await echoer.callCount() == 1)
    }

    @Test("a call through a @Resolvable protocol may name only the protocol's stub as its Self")
    func resolvableSelf() async throws {
        let systems = try ConnectedSystems()
        defer { systems.end() }
        let exported = UppercaseTranslator(actorSystem: systems.serving)
        systems.serving.export(exported, as: "translator")

        let call = try await recordedInvocation { recorder in
            _ = try await $Translator.resolve(id: IPCActorSystem.ActorID("translator"), using: recorder).translate("hi")
        }
        #expect(call.generics == [_mangledTypeName($Translator.self)!])
        #expect(
            try CompactDecoder().decode(
                String.self,
                from: try await systems.client.call(
                    call.encoded(),
                    kind: .invocation
                )
            ) == "HI"
        )

        // In the stub's place, a type this system did not register is refused: even a distributed
        // actor type of this process (the runtime would look it up and check it, unharmed).
        for name in [_mangledTypeName(Echoer.self)!, _mangledTypeName(Unregistered.self)!] {
            var hostile = call
            hostile.generics = [name]
            let refused = await #expect(throws: AppexError.self) {
                _ = try await systems.client.call(hostile.encoded(), kind: .invocation)
            }
            #expect(refused?.message.hasPrefix("unregistered-type: ") == true, "\(String(describing: refused))")
        }
        let translator = try $Translator.resolve(id: IPCActorSystem.ActorID("translator"), using: systems.calling)
        #expect(try await translator.translate("still") == "STILL")
    }

    @Test(
        "calls of one generic target with different types, at once, each run with their own type (what the serving side keeps per target and types)"
    )
    func targetsKeptPerSubstitution() async throws {
        let systems = try ConnectedSystems()
        defer { systems.end() }
        let exported = Echoer(actorSystem: systems.serving)
        systems.serving.export(exported, as: "echoer")
        systems.serving.register(Point.self, String.self, [Int].self)
        let echoer = try Echoer.resolve(id: IPCActorSystem.ActorID("echoer"), using: systems.calling)
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<60 {
                group.addTask {
                    switch index % 3 {
                    case 0: (index, try await echoer.echo(Point(x: index, y: -index)))
                    case 1: (index, try await echoer.echo("text \(index)"))
                    default: (index, try await echoer.echo([index, index + 1]))
                    }
                }
            }
            for try await (index, answer) in group {
                switch index % 3 {
                case 0: #expect(answer == "Point: Point(x: \(index), y: \(-index))")
                case 1: #expect(answer == "String: text \(index)")
                default: #expect(answer == "Array<Int>: [\(index), \(index + 1)]")
                }
            }
        }
        // A throwing target and one that returns nothing, after the generic ones.
        let translator = try $Translator.resolve(id: IPCActorSystem.ActorID("translator"), using: systems.calling)
        systems.serving.export(UppercaseTranslator(actorSystem: systems.serving), as: "translator")
        for _ in 0..<3 {
            #expect(try await translator.count(["a"]) == 1)
            let refused = await #expect(throws: AppexError.self) { try await translator.refuse() }
            #expect(refused?.message.contains("this translator refuses") == true)
        }
        #expect(try await echoer.callCount() == 60)
    }

    @Test(
        "exported actors are found by name among many: a name exported again calls the newer actor, a resigned id is refused by name, the others stay callable"
    )
    func exportedActorsByName() async throws {
        let systems = try ConnectedSystems()
        defer { systems.end() }
        let served = (0..<40).map { _ in Echoer(actorSystem: systems.serving) }
        for (index, actor) in served.enumerated() { systems.serving.export(actor, as: "echoer-\(index)") }
        systems.serving.register(Int.self)
        for index in [0, 17, 39] {
            let echoer = try Echoer.resolve(id: IPCActorSystem.ActorID("echoer-\(index)"), using: systems.calling)
            #expect(try await echoer.echo(index) == "Int: \(index)")
            #expect(try await echoer.callCount() == 1)
        }
        // The same name again: the newer actor answers (it has served no call yet).
        let newer = Echoer(actorSystem: systems.serving)
        systems.serving.export(newer, as: "echoer-17")
        let seventeen = try Echoer.resolve(id: IPCActorSystem.ActorID("echoer-17"), using: systems.calling)
        #expect(try await seventeen.callCount() == 0)
        #expect(try systems.serving.resolveAny(id: IPCActorSystem.ActorID("echoer-17")) as? Echoer === newer)
        // Resigned: refused, naming the actor; its neighbours still answer.
        systems.serving.resignID(IPCActorSystem.ActorID("echoer-39"))
        let gone = try Echoer.resolve(id: IPCActorSystem.ActorID("echoer-39"), using: systems.calling)
        let refused = await #expect(throws: AppexError.self) { try await gone.callCount() }
        #expect(refused?.message.contains("no actor named echoer-39") == true)
        let first = try Echoer.resolve(id: IPCActorSystem.ActorID("echoer-0"), using: systems.calling)
        #expect(try await first.callCount() == 1)
        withExtendedLifetime(served) {}
    }

    @Test(
        "a @Resolvable call on an actor that does not conform to the protocol is refused, and the serving process lives on"
    )
    func resolvableOnAnotherActor() async {
        // In a child process: before registered types, the runtime ran the stub's body and the
        // serving process died.
        await #expect(processExitsWith: .success) {
            let systems = try ConnectedSystems()
            defer { systems.end() }
            let exported = Echoer(actorSystem: systems.serving)
            systems.serving.export(exported, as: "echoer")
            let wrong = try $Translator.resolve(id: IPCActorSystem.ActorID("echoer"), using: systems.calling)
            do {
                _ = try await wrong.translate("hi")
                exit(3)  // an Echoer cannot translate
            } catch let error as AppexError where error.code == .remoteFailure {
                // refused, as expected
            }
            let echoer = try Echoer.resolve(id: IPCActorSystem.ActorID("echoer"), using: systems.calling)
            guard try await echoer.callCount() == 0 else { exit(4) }
        }
    }
}
