import AppexCore
import AppexFixtureInterfaces
import AppexHost
import AppexStore
import AppexTestTiers
import AppexTesting
import Foundation
import Synchronization
import Testing

/// What running extensions and observing defaults cost a host in OS threads: a small fixed
/// number, whatever their count (the event thread, the spawner, a few shared IPC executors and
/// Dispatch's workers), not threads per child or per observer. It prints the counts
/// (`swift test --filter ThreadBudgetTests`).
///
/// Before issue 11 the same test counted 3 threads per extension (reader, reaper, output) and
/// one per observer: 20 + 20 added about 80.
@Suite(.timed, .tags(.alone)) struct ThreadBudgetTests {
    static let extensions = 20
    static let observers = 20

    /// This process's OS threads: the entries of `/proc/self/task`.
    static func threadCount() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).count
    }

    @Test("20 running extensions and 20 live defaults observers in one process: its OS threads before and after")
    func extensionsAndObservers() async throws {
        // The test process alone: the test runner's threads and Swift's pool as they are now.
        let baseline = Self.threadCount()

        let fixture = try HostFixture()
        let tests = ExtensionProcessTests(fixture: fixture)
        // Each its own bundle identity of the echo fixture, inside the host: enabled.
        let identities = try (0..<Self.extensions).map { try tests.installEcho(id: "com.example.echo\($0)") }
        let group = try AppGroup("group.com.example.app", context: .owner, environment: fixture.world.environment)
        let defaults = try SharedDefaults(group: group)
        let before = Self.threadCount()

        // One call to each: launched on first use, and running after it.
        var processes = try identities.map { try tests.process($0) }
        defer { for process in processes { process.invalidate() } }
        var launched: [Int32] = []
        for process in processes {
            launched.append(try await process.echo("echo", "x").pid)
        }
        let pids = launched
        #expect(Set(pids).count == Self.extensions)
        #expect(pids.allSatisfy(isRunning))

        // One observer a key, each iterated in a task of its own; live once it has delivered
        // the change written after it started.
        let (live, liveness) = AsyncStream<Int>.makeStream()
        let observers = (0..<Self.observers).map { index in
            let changes = defaults.changes(forKey: "key\(index)")
            return Task { () -> Int in
                var delivered = 0
                for await _ in changes {
                    delivered += 1
                    if delivered == 1 { liveness.yield(index) }
                }
                return delivered
            }
        }
        for index in 0..<Self.observers { try defaults.set(index, forKey: "key\(index)") }
        #expect(Set(await collect(Self.observers, of: live)) == Set(0..<Self.observers))

        let after = Self.threadCount()
        print("threads: before=\(before) after=\(after) extensions=\(Self.extensions) observers=\(Self.observers)")
        print("threads: baseline=\(baseline) (the test process before any fixture)")
        // A fixed handful: at most 4 shared executors, the event thread, the spawner, and
        // Dispatch workers that the async forms used (they linger a while after their work).
        #expect(
            after - before <= 12,
            "\(after - before) threads for \(Self.extensions) extensions and \(Self.observers) observers"
        )

        // The end: every process invalidated and gone, every observer finished.
        for process in processes { process.invalidate() }
        for observer in observers { observer.cancel() }
        for observer in observers { #expect(await observer.value == 1) }
        liveness.finish()
        #expect(
            await eventually(within: 5) { !pids.contains(where: isRunning) },
            "an extension outlived its invalidation"
        )
        // Threads end a moment after their work does: give them that moment, then report.
        _ = await eventually(within: 5) { Self.threadCount() <= before }
        print("threads: ended=\(Self.threadCount()) (the extensions invalidated, the observers finished)")
        // A process's executor thread lives as long as its `AppExtensionProcess`: drop them too.
        processes.removeAll()
        _ = await eventually(within: 5) { Self.threadCount() <= before }
        print("threads: released=\(Self.threadCount()) (the AppExtensionProcess instances released as well)")
    }
}
