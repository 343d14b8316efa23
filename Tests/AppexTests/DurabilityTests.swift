import AppexCore
import AppexHost
import AppexTesting
import AppexSystem
import Foundation
import Testing

/// Decisions survive `kill -9` of the process writing them.
@Suite struct DurabilityTests {
    @Test("CLI writers killed with SIGKILL at random moments never corrupt the registry or lose a reported decision")
    func killedWriters() async throws {
        let fixture = try HostFixture()
        try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        var rng = SystemRandomNumberGenerator()
        var lastReported: DiscoveredExtension.State?
        var reportedRounds = 0
        for round in 0..<24 {
            let command = round.isMultiple(of: 2) ? "enable" : "disable"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: appexExecutable)
            process.arguments = [command, "--host", fixture.hostPath, "com.example.summarize"]
            process.environment = fixture.world.processVariables
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            // From before the CLI has started to after it has usually finished: some rounds die
            // mid-write, some after reporting.
            try await Task.sleep(for: .microseconds(Int.random(in: 0...400_000, using: &rng)))
            kill(process.processIdentifier, SIGKILL)
            let box = UncheckedBox((process, out))
            let said = await withCheckedContinuation { continuation in
                startDetachedThread(name: "test.child") {
                    let (process, out) = box.value
                    let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    process.waitUntilExit()
                    continuation.resume(returning: said)
                }
            }
            // The registry still opens and reads after every kill.
            let state = try fixture.state(of: "com.example.summarize")
            #expect(state == .enabled || state == .disabled || state == .unapproved)
            if said.hasPrefix("\(command)d ") {
                // The CLI reported the decision: it was committed before the kill.
                lastReported = command == "enable" ? .enabled : .disabled
                reportedRounds += 1
                #expect(state == lastReported)
            }
        }
        // The check above must have had something to check.
        #expect(reportedRounds >= 3, "only \(reportedRounds) of 24 writers reported before being killed")
        let integrity = try await run("/usr/bin/env", ["sqlite3", fixture.world.environment.registryPath, "PRAGMA integrity_check"], environment: fixture.world.processVariables)
        #expect(integrity.status == 0, "sqlite3 (installed by Scripts/setup.sh): \(integrity.standardError)")
        #expect(integrity.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
    }
}
