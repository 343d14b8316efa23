import AppexCore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

/// `appex conform` against extensions in Swift, C and Python (docs/protocol.md).
@Suite(.timed) struct ConformanceTests {
    @Test(
        "a Swift extension passes appex conform: each check named on its own line, the cancellation and deadline proven with a slow message"
    )
    func swiftExtensionConforms() async throws {
        let fixture = try HostFixture()
        let identity = try ExtensionProcessTests(fixture: fixture).installEcho()
        let result = try await appex(
            "conform",
            identity.bundlePath,
            "--message",
            #"{"command":"echo","text":"hi"}"#,
            "--slow-message",
            #"{"command":"hang","text":""}"#,
            in: fixture.world
        )
        Self.expectEveryCheckPassed(result, identifier: "com.example.echo")
    }

    /// Expects `appex conform`'s output to name every check, in order, as passed, then its verdict.
    static func expectEveryCheckPassed(_ result: ProcessOutput, identifier: String) {
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        let checks = ["handshake", "echo", "cancellation", "deadline", "large-payload", "bad-frame", "host-death"]
        for (line, check) in zip(lines, checks) {
            #expect(line.hasPrefix("ok   \(check): "), "\(line)")
        }
        #expect(lines.count == checks.count + 1)
        #expect(lines.last == "\(identifier) conforms to Appex's wire protocol 2")
    }

    @Test("an extension that does not answer is named at its first failed check, and appex conform exits 1")
    func failureIsNamed() async throws {
        let fixture = try HostFixture()
        let identity = try ExtensionProcessTests(fixture: fixture).installEcho()
        // "hang" as the test message: the echo check waits 5 s for an answer that never comes.
        let result = try await appex(
            "conform",
            identity.bundlePath,
            "--message",
            #"{"command":"hang","text":""}"#,
            in: fixture.world
        )
        #expect(result.status == 1)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("ok   handshake: ") == true)
        #expect(lines.last?.hasPrefix("FAIL echo: ") == true, "\(lines)")
        #expect(lines.last?.contains("deadline-exceeded") == true, "\(lines)")
        // What the extension printed meanwhile ("hanging", when the request arrived) says why.
        #expect(result.standardError.contains("com.example.echo printed ("), "\(result.standardError)")
        #expect(result.standardError.contains("] com.example.hostapp: hanging"), "\(result.standardError)")
    }

    @Test(
        "the C extension (libc only, Examples/Polyglot/C/echo.c), bundled, signed and sandboxed as a Swift one, passes appex conform"
    )
    func cExtensionConforms() async throws {
        let fixture = try HostFixture()
        let executable = fixture.world.root.appending("CEcho")
        let compiled = try await run(
            try #require(Self.compiler, "no C compiler (clang or cc) on PATH"),
            ["-O2", "-Wall", "-Werror", "-o", executable, Self.polyglot("C/echo.c")],
            environment: fixture.world.processVariables
        )
        #expect(compiled.status == 0, "\(compiled.standardError)")
        try await expectConforms(fixture, executable: executable, identifier: "com.example.cecho")
    }

    @Test(
        "the Python extension (standard library only, Examples/Polyglot/PythonEcho), bundled, signed and sandboxed as a Swift one, passes appex conform"
    )
    func pythonExtensionConforms() async throws {
        let fixture = try HostFixture()
        try await expectConforms(
            fixture,
            executable: Self.polyglot("PythonEcho/echo.py"),
            identifier: "com.example.pyecho"
        )
    }

    /// Bundles `executable` into the host as `identifier`, signed by the host's team, and expects
    /// `appex conform` to pass every check, the slow ones with a delayed echo.
    func expectConforms(_ fixture: HostFixture, executable: String, identifier: String) async throws {
        let key = fixture.world.root.appending("team.key")
        try fixture.world.team.write(to: key)
        let bundle = fixture.hostExtensions + "/\(identifier.split(separator: ".").last ?? "x").appex"
        let made = try await appex(
            "bundle",
            "--executable",
            executable,
            "--output",
            bundle,
            "--identifier",
            identifier,
            "--binding",
            HostFixture.point,
            "--key",
            key,
            in: fixture.world
        )
        #expect(made.status == 0, "\(made.standardError)")
        let result = try await appex(
            "conform",
            bundle,
            "--message",
            #"{"text":"hi"}"#,
            "--slow-message",
            #"{"text":"slow","delay_ms":3000}"#,
            in: fixture.world
        )
        Self.expectEveryCheckPassed(result, identifier: identifier)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("ok   echo: ") && $0.hasSuffix(#"{"text":"hi"}"#) }, "\(lines)")
        // An empty request (a frame of length 0) is answered like any other (docs/protocol.md 4.1).
        let host = URL(fileURLWithPath: bundle).deletingLastPathComponent().deletingLastPathComponent().path
        let empty = try await appex("call", "--host", host, identifier, "", in: fixture.world)
        #expect(empty.status == 0, "\(empty.standardError)")
        #expect(empty.standardOutput == "\n")
    }

    /// A file of Examples/Polyglot.
    static func polyglot(_ path: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/Polyglot/" + path).path
    }

    /// The C compiler: the toolchain's clang, else the system's cc.
    static let compiler: String? = ["clang", "cc"].lazy.compactMap { name in
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }.first
}
