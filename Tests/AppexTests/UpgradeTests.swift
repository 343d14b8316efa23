import AppexCore
import AppexFixtureInterfaces
@_spi(Measurement) import AppexHost
import AppexTestTiers
import AppexTesting
import Foundation
import Logging
import Synchronization
import Testing

/// An installed extension replaced while its host calls it: calls in flight finish on the old
/// process, new calls go to the new one, and none fails; a replacement that is not valid leaves
/// the old one serving and says why.
@Suite(.timed) struct UpgradeTests {
    let fixture: HostFixture
    init() throws { fixture = try HostFixture() }

    /// Replaces the echo bundle as an installer would: the new one made beside, then moved into
    /// place (`tamper` breaks its seal after signing).
    func replaceEcho(tamper: Bool = false) throws {
        let staging = fixture.world.root.appending("staging-\(UUID().uuidString)")
        let made = try FixtureBundles.bundle(
            executable: echoExecutable,
            in: staging,
            name: "Echo",
            bundleIdentifier: "com.example.echo",
            extensionPoint: ExtensionPointIdentifier(HostFixture.point),
            signedBy: fixture.world.team
        )
        if tamper {
            let handle = try #require(FileHandle(forWritingAtPath: made + "/Info.plist"))
            handle.seekToEndOfFile()
            handle.write(Data("\n".utf8))
            try handle.close()
        }
        let installed = fixture.hostExtensions + "/Echo.appex"
        try FileManager.default.moveItem(atPath: installed, toPath: installed + ".old")
        try FileManager.default.moveItem(atPath: made, toPath: installed)
        try FileManager.default.removeItem(atPath: installed + ".old")
    }

    /// Calls the echo from `tasks` tasks until `stop`, counting replies and failures.
    final class Load: Sendable {
        let replies = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let stop = Atomic<Bool>(false)
    }

    func steadyLoad(_ process: AppExtensionProcess, tasks: Int) -> (Load, Task<Int, Never>) {
        let load = Load()
        let task = Task {
            await withTaskGroup(of: Int.self) { group in
                for index in 0..<tasks {
                    group.addTask {
                        var sent = 0
                        while !load.stop.load(ordering: .relaxed) {
                            sent += 1
                            do {
                                let reply = try await process.send(
                                    EchoRequest(command: "echo", text: "\(index)-\(sent)"),
                                    expecting: EchoReply.self
                                )
                                if reply.text == "\(index)-\(sent)" { load.replies.add(1, ordering: .relaxed) }
                            } catch {
                                load.failures.withLock { $0.append("\(error)") }
                            }
                        }
                        return sent
                    }
                }
                return await group.reduce(0, +)
            }
        }
        return (load, task)
    }

    /// Waits, at most 20 s, for `condition`.
    func eventually(_ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while await !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test(
        "a bundle replaced under a steady load of calls: the call in flight finishes on the old process, the next calls go to a new one, and every call is answered"
    )
    func upgradeLosesNoCall() async throws {
        _ = try ExtensionProcessTests(fixture: fixture).installEcho()
        let interruptions = Mutex<[AppexError]>([])
        let process = try await AppExtensionProcess(
            configuration: .init(
                identity: try #require(fixture.discovery().snapshot().extensions.first?.identity),
                hostBundlePath: fixture.hostPath,
                environment: fixture.world.environment,
                onInterruption: { error in interruptions.withLock { $0.append(error) } }
            )
        )
        defer { process.invalidate() }
        _ = try await process.echo()
        let old = try #require(process.processIdentifier)
        let (load, sending) = steadyLoad(process, tasks: 4)
        // A call in flight across the replacement, long enough to outlast the new launch on a
        // loaded machine (1.5 s did not, once, in the gate beside other suites).
        let slow = Task {
            try await process.send(EchoRequest(command: "sleep", text: "5000"), expecting: EchoReply.self)
        }
        try await Task.sleep(for: .milliseconds(200))
        try replaceEcho()
        try await eventually { (process.processIdentifier ?? old) != old }
        let new = try #require(process.processIdentifier)
        #expect(new != old, "no new process after the replacement")
        #expect(kill(old, 0) == 0, "the old process ended before its call in flight")
        _ = try await slow.value  // answered by the old process
        try await eventually { kill(old, 0) != 0 }
        #expect(kill(old, 0) != 0, "the old process outlived its last call")
        try await Task.sleep(for: .milliseconds(300))
        load.stop.store(true, ordering: .relaxed)
        let sent = await sending.value
        #expect(load.failures.withLock { $0 } == [])
        #expect(load.replies.load(ordering: .relaxed) == sent, "every call answered: \(sent) sent")
        #expect(process.processIdentifier == new)
        // The host hears of the old process's end (its scenes and actors ended with it), once.
        let heard = interruptions.withLock { $0 }
        #expect(heard.count == 1 && heard.first?.message.contains("replaced by a new build") == true, "\(heard)")
        #expect(process.crashCount == 0)
    }

    @Test("invalidate() during an upgrade also ends the old process, whose call in flight then fails at once")
    func invalidateEndsTheRetiredProcess() async throws {
        _ = try ExtensionProcessTests(fixture: fixture).installEcho()
        let process = try await AppExtensionProcess(
            configuration: .init(
                identity: try #require(fixture.discovery().snapshot().extensions.first?.identity),
                hostBundlePath: fixture.hostPath,
                environment: fixture.world.environment
            )
        )
        _ = try await process.echo()
        let old = try #require(process.processIdentifier)
        let slow = Task {
            try await process.send(EchoRequest(command: "sleep", text: "60000"), expecting: EchoReply.self)
        }
        try await Task.sleep(for: .milliseconds(200))
        try replaceEcho()
        try await eventually {
            _ = try? await process.echo()
            return (process.processIdentifier ?? old) != old
        }
        try #require(process.processIdentifier != old, "no new process after the replacement")
        let invalidated = ContinuousClock.now
        process.invalidate()
        await #expect(throws: AppexError.self) { try await slow.value }
        #expect(ContinuousClock.now - invalidated < .seconds(10))
        try await eventually { kill(old, 0) != 0 }
        #expect(kill(old, 0) != 0, "the old process outlived invalidate()")
    }

    @Test("a replacement whose seal does not hold leaves the running process serving, and says why")
    func invalidReplacementIsRefused() async throws {
        _ = try ExtensionProcessTests(fixture: fixture).installEcho()
        let log = InMemoryLogHandler()
        let process = try await AppExtensionProcess(
            configuration: .init(
                identity: try #require(fixture.discovery().snapshot().extensions.first?.identity),
                hostBundlePath: fixture.hostPath,
                environment: fixture.world.environment,
                logger: log.logger
            )
        )
        defer { process.invalidate() }
        _ = try await process.echo()
        let old = try #require(process.processIdentifier)
        let (load, sending) = steadyLoad(process, tasks: 2)
        try replaceEcho(tamper: true)
        try await eventually { process.lastUpgradeRefusal != nil }
        load.stop.store(true, ordering: .relaxed)
        let sent = await sending.value
        let refusal = try #require(process.lastUpgradeRefusal, "the tampered replacement was not refused")
        #expect(refusal.code == .refused, "\(refusal)")
        #expect(load.failures.withLock { $0 } == [])
        #expect(load.replies.load(ordering: .relaxed) == sent)
        #expect(process.processIdentifier == old, "the running process was replaced by a bundle that does not hold")
        let warnings = await log.waitForEntries { entries in entries.contains { $0.level == .warning } }
        #expect(warnings.contains { $0.message.contains("refused") && $0.metadata["reason"] != nil }, "\(warnings)")
    }
}
