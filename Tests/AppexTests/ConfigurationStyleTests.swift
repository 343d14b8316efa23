import AppexCore
import AppexFixtureInterfaces
import AppexHost
import AppexIPC
import AppexTestTiers
import AppexTesting
import Foundation
import Logging
import Testing

/// ExtensionKit's configuration styles, with the seed's translate extension in a real process.
@Suite(.timed) struct ConfigurationStyleTests {
    let fixture: HostFixture
    init() throws { fixture = try HostFixture() }

    /// Installs the translate fixture, with the style its data directory names.
    func installTranslate(style: String, logger: Logger? = nil) throws -> AppExtensionProcess {
        let id = "com.example.translate"
        let path = try fixture.addExtension("Translate", id: id, inHost: true, unsigned: true)
        try FileManager.default.removeItem(atPath: path + "/Extension")
        try FileManager.default.copyItem(atPath: translateExecutable, toPath: path + "/Extension")
        try AppexBundle.sign(at: path, with: fixture.world.team)
        let data = fixture.world.environment.home + "/ExtensionData/" + id
        try fixture.world.environment.makePrivateDirectory(fixture.world.environment.home + "/ExtensionData")
        try fixture.world.environment.makePrivateDirectory(data)
        try Data(style.utf8).write(to: URL(fileURLWithPath: data + "/style"))
        return try fixture.process(for: id, logger: logger)
    }

    @Test(
        "session style: the host's session sends typed messages to the extension's handler, seed 001's XPCPeerHandler (any Encodable) or Appex's PeerHandler",
        arguments: ["session", "peer-handler"]
    )
    func sessionStyle(_ style: String) async throws {
        let process = try installTranslate(style: style)
        defer { process.invalidate() }
        let session = try await process.makeSession()
        let reply = try await session.send(TranslationRequest(text: "hello"), expecting: TranslationReply?.self)
        #expect(reply == TranslationReply(text: "HELLO"))
        // The session style exports no object: asking for one fails with a typed error.
        let connection = try await process.makeConnection()
        let translator = try connection.remoteObject(as: $FixtureTranslator.self)
        await #expect(throws: AppexError.self) { _ = try await translator.translate("x") }
    }

    @Test("accept(connection:) style: the exported object is the connection's remote object")
    func connectionStyle() async throws {
        let process = try installTranslate(style: "connection")
        defer { process.invalidate() }
        let connection = try await process.makeConnection()
        let translator = try connection.remoteObject(as: $FixtureTranslator.self)
        let translated = try await translator.translate("bonjour")
        #expect(translated.text == "BONJOUR")
        #expect(translated.pid == 1 && process.processIdentifier.map { $0 > 1 } == true)
        // It set no request handler: a message is refused by the extension, with the reason.
        await #expect {
            _ = try await process.send(TranslationRequest(text: "x"), expecting: TranslationReply.self)
        } throws: { error in
            (error as? AppexError)?.code == .remoteFailure && "\(error)".contains("serves no messages")
        }
    }

    @Test(
        "seed 001's accept(connection:) as written: NSXPCConnection, exportedInterface = NSXPCInterface(with:), exportedObject, resume()"
    )
    func xpcConnectionStyle() async throws {
        let process = try installTranslate(style: "xpc-connection")
        defer { process.invalidate() }
        let translator = try await process.makeConnection().remoteObject(as: $FixtureTranslator.self)
        #expect(try await translator.translate("hola").text == "HOLA")
    }

    @Test("an exported object that does not serve its exportedInterface: the launch is refused, naming both")
    func wrongInterface() async throws {
        let process = try installTranslate(style: "wrong-interface")
        defer { process.invalidate() }
        await #expect {
            _ = try await process.makeConnection()
        } throws: { error in
            guard let error = error as? AppexError else { return false }
            return error.code == .refused && error.message.contains("does not conform to its exportedInterface")
                && error.message.contains("Translator") && error.message.contains("UnrelatedService")
        }
    }

    @Test("resume() gates delivery: a call made before the extension resumes is answered only after it does")
    func lateResume() async throws {
        let process = try installTranslate(style: "late-resume")
        defer { process.invalidate() }
        // The extension accepts during the launch and resumes 500 ms later: counted from before
        // the launch, the answer cannot come sooner (a lower bound: load only makes it later;
        // counted from after the launch, a slow launch ate into the 500 ms).
        let clock = ContinuousClock()
        let started = clock.now
        let translator = try await process.makeConnection().remoteObject(as: $FixtureTranslator.self)
        #expect(try await translator.translate("tard").text == "TARD")
        #expect(clock.now - started >= .milliseconds(500))
        // Once resumed, calls are served as usual.
        #expect(try await translator.translate("ok").text == "OK")
    }

    @Test(
        "an extension that never resumes: the host's call waits, the extension says why in the host's log, and invalidating ends the call"
    )
    func neverResumed() async throws {
        let log = InMemoryLogHandler()
        let process = try installTranslate(style: "never-resume", logger: log.logger)
        defer { process.invalidate() }
        let translator = try await process.makeConnection().remoteObject(as: $FixtureTranslator.self)
        let call = Task { try await translator.translate("jamais") }
        let entries = await log.waitForEntries(within: 30) { entries in
            entries.contains { $0.message.contains("has not called resume()") }
        }
        #expect(entries.contains { $0.message.contains("com.example.translate") })
        process.invalidate()
        await #expect(throws: AppexError.self) { _ = try await call.value }
    }

    @Test(
        "accept(connection:) with answerRequests(with:): one extension serves its exported object and session messages"
    )
    func connectionAndSession() async throws {
        let process = try installTranslate(style: "connection-and-session")
        defer { process.invalidate() }
        let translator = try await process.makeConnection().remoteObject(as: $FixtureTranslator.self)
        #expect(try await translator.translate("bonjour").text == "BONJOUR")
        let reply = try await process.makeSession().send(
            TranslationRequest(text: "hello"),
            expecting: TranslationReply?.self
        )
        #expect(reply == TranslationReply(text: "HELLO"))
    }

    @Test("an extension that rejects the session: the launch is refused with its reason, and no process is left")
    func declined() async throws {
        let process = try installTranslate(style: "decline")
        defer { process.invalidate() }
        await #expect {
            _ = try await process.makeSession()
        } throws: { error in
            guard let error = error as? AppexError else { return false }
            return error.code == .refused && error.message.contains("declined")
                && error.message.contains("switched off")
        }
        #expect(process.processIdentifier == nil)
    }

    @Test(
        "an extension that sets both requestHandler and payloadHandler is declined, naming both: neither silently wins"
    )
    func bothHandlers() async throws {
        let process = try installTranslate(style: "both-handlers")
        defer { process.invalidate() }
        await #expect {
            _ = try await process.makeSession()
        } throws: { error in
            guard let error = error as? AppexError else { return false }
            return error.code == .refused && error.message.contains("sets both requestHandler and payloadHandler")
        }
    }
}
