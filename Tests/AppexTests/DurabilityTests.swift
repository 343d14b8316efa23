import AppexCore
import AppexHost
import AppexTesting
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
            try await Task.sleep(for: .microseconds(Int.random(in: 0...40_000, using: &rng)))
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
                #expect(state == lastReported)
            }
        }
        let integrity = try await run("/usr/bin/env", ["sqlite3", fixture.world.environment.registryPath, "PRAGMA integrity_check"], environment: fixture.world.processVariables)
        #expect(integrity.status == 0, "sqlite3 (installed by Scripts/setup.sh): \(integrity.standardError)")
        #expect(integrity.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
    }
}
