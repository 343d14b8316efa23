import AppexCore
import AppexHost
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

/// Decisions survive `kill -9` of the process writing them.
@Suite(.timed) struct DurabilityTests {
    @Test("CLI writers killed with SIGKILL at random moments never corrupt the registry or lose a reported decision")
    func killedWriters() async throws {
        let fixture = try HostFixture()
        try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        let seed = TestSeed()
        var rng = seed.generator
        var state: DiscoveredExtension.State? = .unapproved
        var reportedRounds = 0
        // How long one whole CLI run takes on this machine now: the kill moments are spread over
        // that span (and a bit past it), so a loaded machine is not all early kills.
        let started = ContinuousClock.now
        let whole = try await run(
            appexExecutable,
            ["disable", "--host", fixture.hostPath, "com.example.summarize"],
            environment: fixture.world.processVariables
        )
        try #require(whole.status == 0, "a whole run failed: \(whole.standardError)")
        let elapsed: Double = (ContinuousClock.now - started) / .seconds(1)
        let span = max(0.4, 1.5 * elapsed)
        state = .disabled
        // 24 rounds, more (at most 48) until at least 3 have reported before their kill.
        var round = 0
        while round < 24 || (reportedRounds < 3 && round < 48) {
            defer { round += 1 }
            let command = round.isMultiple(of: 2) ? "enable" : "disable"
            let target: DiscoveredExtension.State = command == "enable" ? .enabled : .disabled
            // Killed (SIGKILL) from before the CLI has started to after it has usually finished:
            // some rounds die mid-write, some after reporting.
            let lifetime = Double.random(in: 0...span, using: &rng)
            let output = try await run(
                appexExecutable,
                [command, "--host", fixture.hostPath, "com.example.summarize"],
                environment: fixture.world.processVariables,
                timeout: lifetime
            )
            // The registry still opens and reads after every kill, and holds either the decision
            // before the round (the write never committed) or the one the round asked for.
            let before = state
            state = try fixture.state(of: "com.example.summarize")
            #expect(
                state == before || state == target,
                "round \(round): \(command) left \(String(describing: state)) after \(String(describing: before)); \(seed)"
            )
            if output.standardOutput.hasPrefix("\(command)d ") {
                // The CLI reported the decision: it was committed before the kill.
                reportedRounds += 1
                #expect(
                    state == target,
                    "round \(round): \(command) was reported, the registry says \(String(describing: state)); \(seed)"
                )
            }
        }
        // The check above must have had something to check.
        #expect(reportedRounds >= 3, "only \(reportedRounds) of \(round) writers reported before being killed; \(seed)")
        let integrity = try await run(
            "/usr/bin/env",
            ["sqlite3", fixture.world.environment.registryPath, "PRAGMA integrity_check"],
            environment: fixture.world.processVariables
        )
        #expect(integrity.status == 0, "sqlite3 (installed by Scripts/setup.sh): \(integrity.standardError)")
        #expect(integrity.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
    }
}
