import AppexCore
import AppexHost
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

/// `appex bisect`: the one extension whose presence makes a command fail, found by halves, with
/// every decision put back, whether the bisect ends, is stopped, or is killed.
@Suite(.timed) struct BisectTests {
    let fixture: HostFixture
    init() throws { fixture = try HostFixture() }

    /// Five enabled extensions (four inside the host, one from elsewhere approved by the owner),
    /// and one inside that the owner disabled, which a bisect must leave alone.
    func install() async throws {
        let installer = ExtensionProcessTests(fixture: fixture)
        for name in ["a", "b", "c", "d", "e"] { _ = try installer.installEcho(id: "com.example.\(name)") }
        _ = try installer.installEcho(inHost: false, id: "com.example.f")
        for (command, id) in [("disable", "com.example.c"), ("enable", "com.example.f")] {
            let decided = try await appex(command, "--host", fixture.hostPath, id, in: fixture.world)
            try #require(decided.status == 0, "\(decided.standardError)")
        }
    }

    /// Every decision as recorded (none, enabled for a team, disabled), and `appex list` as the
    /// owner sees it: what a bisect must leave as it found.
    func listing() async throws -> String {
        let discovery = try fixture.discovery()
        let recorded = try ["a", "b", "c", "d", "e", "f"].map { name in
            "\(name): \(String(describing: try discovery.recordedDecision(bundleIdentifier: "com.example.\(name)")))"
        }
        let listed = try await appex("list", "--host", fixture.hostPath, "--json", in: fixture.world).standardOutput
        return recorded.joined(separator: "\n") + "\n" + listed
    }

    /// A command that fails while com.example.d is enabled (and otherwise runs `then`).
    func failsWithD(then: String = "true") -> String {
        "'\(appexExecutable)' list --host '\(fixture.hostPath)' | grep -Eq '^enabled +com\\.example\\.d ' && exit 1; \(then)"
    }

    /// A command tail that makes `flag` and waits while it is there: the test removes it, so no
    /// shell outlives the test, even one whose bisect was killed (its child is not).
    static func holdWhile(_ flag: String) -> String {
        "touch '\(flag)'; while [ -e '\(flag)' ]; do sleep 0.05; done"
    }

    @Test("`appex bisect` names the one extension whose presence makes the command fail, and puts back every decision")
    func findsTheOne() async throws {
        try await install()
        let before = try await listing()
        let result = try await appex("bisect", "--host", fixture.hostPath, "--test", failsWithD(), in: fixture.world)
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "fails with 5 of 5 enabled")
        #expect(lines.contains("passes with 0 of 5 enabled"))
        #expect(lines.last == "com.example.d makes the command fail", "\(lines)")
        // Five candidates: all, none, then three halvings at most, and the one alone.
        #expect(lines.count <= 2 + 3 + 1 + 2)
        #expect(try await listing() == before)
    }

    @Test(
        "a command that fails with no extension enabled, or passes with all, is no extension's doing: exit 1, decisions put back"
    )
    func nothingToFind() async throws {
        try await install()
        let before = try await listing()
        let always = try await appex("bisect", "--host", fixture.hostPath, "--test", "false", in: fixture.world)
        #expect(always.status == 1)
        #expect(always.standardOutput.contains("fails with none enabled"), "\(always.standardOutput)")
        let never = try await appex("bisect", "--host", fixture.hostPath, "--test", "true", in: fixture.world)
        #expect(never.status == 1)
        #expect(never.standardOutput.contains("passes with every extension enabled"), "\(never.standardOutput)")
        #expect(try await listing() == before)
    }

    @Test("a second bisect of the same host, while one runs, is refused and changes nothing")
    func oneAtATime() async throws {
        try await install()
        let before = try await listing()
        let flag = fixture.world.root.appending("running")
        let first = try LineChild(
            appexExecutable,
            ["bisect", "--host", fixture.hostPath, "--test", failsWithD(then: Self.holdWhile(flag))],
            environment: fixture.world.processVariables
        )
        defer {
            kill(first.pid, SIGKILL)
            try? FileManager.default.removeItem(atPath: flag)
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while !FileManager.default.fileExists(atPath: flag), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let during = try await listing()
        let second = try await appex("bisect", "--host", fixture.hostPath, "--test", "true", in: fixture.world)
        #expect(second.status == 1)
        #expect(second.standardError.contains("another appex bisect"), "\(second.standardError)")
        #expect(try await listing() == during)
        kill(first.pid, SIGTERM)
        first.end(within: 20)
        #expect(try await listing() == before)
    }

    @Test(
        "a bisect stopped (SIGTERM) while its command runs puts every decision back; one killed (SIGKILL) leaves its journal, and --restore puts them back"
    )
    func interrupted() async throws {
        try await install()
        let before = try await listing()
        let flag = fixture.world.root.appending("running")
        // With com.example.d disabled (the first half), the command waits: the bisect is stopped there.
        let command = failsWithD(then: Self.holdWhile(flag))
        defer { try? FileManager.default.removeItem(atPath: flag) }
        for signal in [SIGTERM, SIGKILL] {
            try? FileManager.default.removeItem(atPath: flag)
            let child = try LineChild(
                appexExecutable,
                ["bisect", "--host", fixture.hostPath, "--test", command],
                environment: fixture.world.processVariables
            )
            let deadline = ContinuousClock.now + .seconds(60)
            while !FileManager.default.fileExists(atPath: flag), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            try #require(
                FileManager.default.fileExists(atPath: flag),
                "the bisect never ran its command with d disabled"
            )
            #expect(try await listing() != before, "the decisions were not changed while the command ran")
            kill(child.pid, signal)
            child.end(within: 20)
            if signal == SIGTERM {
                #expect(child.process.terminationStatus == 130)
                #expect(try await listing() == before)
            } else {
                #expect(try await listing() != before)
                let restored = try await appex("bisect", "--host", fixture.hostPath, "--restore", in: fixture.world)
                #expect(restored.status == 0, "\(restored.standardError)")
                #expect(restored.standardOutput == "put back 5 decisions of a bisect that did not end\n")
                #expect(try await listing() == before)
            }
        }
    }
}
