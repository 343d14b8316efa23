import AppexCore
import AppexFixtureInterfaces
import AppexHost
import AppexStore
import AppexSystem
import AppexTestTiers
import AppexTesting
import AppexVocabulary
import CoreMetrics
import Foundation
import MetricsTestKit
import Testing

/// Each extension's figures in a host: `appex stats` reading a running host's counter file, and
/// swift-metrics (docs/decisions/0164-trace-context-across-the-boundary.md).
@Suite(.timed) struct StatisticsTests {
    let fixture: HostFixture
    let tests: ExtensionProcessTests
    init() throws {
        fixture = try HostFixture()
        tests = ExtensionProcessTests(fixture: fixture)
    }

    /// `appex stats --json` in this fixture's home: the running hosts.
    func runningHosts() async throws -> [HostStatistics] {
        let output = try await appex("stats", "--json", in: fixture.world)
        #expect(output.status == 0, "\(output.standardError)")
        return try JSONDecoder().decode([HostStatistics].self, from: Data(output.standardOutput.utf8))
    }

    /// The bytes `send` puts on the wire for `request`.
    static func encodedSize(_ request: EchoRequest) throws -> UInt64 {
        UInt64(try JSONEncoder().encode(request).count)
    }

    @Test(
        "appex stats, another process, reads this running host's row per extension: launches, crashes, interruptions, calls and failures, bytes sent, the running pid, and a keychain request beyond the entitlements as a refusal"
    )
    func runningHostIsRead() async throws {
        let echo = try tests.process(try tests.installEcho())
        defer { echo.invalidate() }
        let hello = EchoRequest(command: "echo", text: "hello")
        for _ in 0..<3 { _ = try await echo.send(hello, expecting: EchoReply.self) }
        let crash = EchoRequest(command: "crash", text: "")
        await #expect(throws: AppexError.self) { _ = try await echo.send(crash, expecting: EchoReply.self) }
        #expect(try await echo.echo("echo", "again").text == "again")
        let again = EchoRequest(command: "echo", text: "again")

        let hostile = try tests.process(
            try tests.installEcho(
                id: "com.example.hostile",
                entitlements: Entitlements(applicationGroups: [], keychainAccessGroups: ["TEAMID.com.example.mine"]),
                executable: hostileExecutable
            )
        )
        defer { hostile.invalidate() }
        let refused = try await hostile.send(
            EchoRequest(command: "keychain", text: "TEAMID.com.example.other"),
            expecting: EchoReply.self
        )
        #expect(refused.text.hasPrefix("refused: ") && refused.text.contains("missing-entitlement"), "\(refused.text)")

        let me = try #require(try await runningHosts().first { $0.processIdentifier == getpid() })
        let row = try #require(me.extensions.first { $0.bundleIdentifier == "com.example.echo" })
        #expect(row.launches == 2)
        #expect(row.crashes == 1)
        #expect(row.interruptions == 1)
        #expect(row.calls == 5)
        #expect(row.failedCalls == 1)
        #expect(
            row.bytesSent == 3 * (try Self.encodedSize(hello)) + (try Self.encodedSize(crash))
                + (try Self.encodedSize(again))
        )
        #expect(row.bytesReceived > 0)
        #expect(row.processIdentifier == echo.processIdentifier)
        #expect(row.meanCall.map { $0 > .zero && $0 <= row.longestCall } == true)
        #expect(row.refusals == 0 && row.widgetReloads == 0 && row.dailyReloadBudget == 0)
        let other = try #require(me.extensions.first { $0.bundleIdentifier == "com.example.hostile" })
        #expect(other.refusals == 1 && other.launches == 1 && other.crashes == 0)

        // The table: a header, and a row naming the extension and its process.
        let table = try await appex("stats", "--pid", "\(getpid())", in: fixture.world)
        let lines = table.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("HOST ") == true, "\(table.standardOutput)")
        let echoLine = try #require(lines.first { $0.contains("com.example.echo") }, "\(table.standardOutput)")
        #expect(echoLine.contains("pid \(try #require(echo.processIdentifier))"), "\(echoLine)")
        echo.invalidate()
        let stopped = try #require(try await runningHosts().first { $0.processIdentifier == getpid() })
        let ended = try #require(stopped.extensions.first { $0.bundleIdentifier == "com.example.echo" })
        #expect(ended.processIdentifier == nil && ended.runningProcesses == 0)
        #expect(ended.crashes == 1 && ended.interruptions == 1, "the host's own end is neither")
    }

    @Test(
        "a host process killed with kill -9 leaves no row: appex stats shows it while it runs, then removes the file it left"
    )
    func killedHostLeavesNoRow() async throws {
        let identity = try tests.installEcho()
        let host = try LineChild(
            appexExecutable,
            [
                "call", "--host", fixture.hostPath, identity.bundleIdentifier, #"{"command":"echo","text":"hi"}"#,
                "--hold",
            ],
            environment: fixture.world.processVariables
        )
        // Whatever fails below, the host (and with it its extension) does not outlive the test.
        defer {
            if host.process.isRunning {
                kill(host.pid, SIGKILL)
                host.end()
            }
        }
        let lines = await readLines([host], within: 30)
        #expect(lines.first??.hasPrefix("extension pid ") == true, "\(lines)")  // after its one call
        let pid = host.pid
        let seen = try await runningHosts().first { $0.processIdentifier == pid }
        #expect(seen?.name == "appex")
        #expect(seen?.extensions.map(\.bundleIdentifier) == ["com.example.echo"])
        #expect(seen?.extensions.first?.calls == 1)
        let file = fixture.world.environment.home + "/Run/Statistics/\(pid).stats"
        #expect(FileManager.default.fileExists(atPath: file))

        kill(pid, SIGKILL)
        host.end()  // reaped: its file lock is gone
        #expect(try await runningHosts().allSatisfy { $0.processIdentifier != pid })
        #expect(!FileManager.default.fileExists(atPath: file))
        let table = try await appex("stats", "--pid", "\(pid)", in: fixture.world)
        #expect(table.standardOutput == "host process \(pid) is not running, or has launched no extension\n")
    }

    @Test(
        "two processes of one bundle share its row: both count as running, and the first one's end (the host's, by invalidate) leaves the other's pid, counted as neither a crash nor an interruption"
    )
    func twoProcessesOfOneBundle() async throws {
        let identity = try tests.installEcho()
        let first = try tests.process(identity)
        let second = try tests.process(identity)
        defer {
            first.invalidate()
            second.invalidate()
        }
        _ = try await first.echo("echo", "one")
        _ = try await second.echo("echo", "two")
        func row() async throws -> ExtensionStatistics {
            try #require(
                try await runningHosts().first { $0.processIdentifier == getpid() }?.extensions.first {
                    $0.bundleIdentifier == identity.bundleIdentifier
                }
            )
        }
        let both = try await row()
        #expect(both.runningProcesses == 2 && both.launches == 2 && both.calls == 2)
        #expect(both.processIdentifier == second.processIdentifier)
        let secondPID = second.processIdentifier
        first.invalidate()
        let one = try await row()
        #expect(one.runningProcesses == 1 && one.processIdentifier == secondPID)
        second.invalidate()
        let none = try await row()
        #expect(none.runningProcesses == 0 && none.processIdentifier == nil)
        #expect(none.crashes == 0 && none.interruptions == 0)
    }

    @Test(
        "files that are not a live host's counters are never shown: garbage and an empty file are left alone; a copy of a live host's file and one forged to name pid 1, which no running writer holds locked, are removed"
    )
    func foreignFilesAreSkipped() async throws {
        let echo = try tests.process(try tests.installEcho())
        defer { echo.invalidate() }
        _ = try await echo.echo("echo", "counted")
        let folder = fixture.world.environment.home + "/Run/Statistics"
        let mine = try Data(contentsOf: URL(fileURLWithPath: folder + "/\(getpid()).stats"))
        try Data("not counters".utf8).write(to: URL(fileURLWithPath: folder + "/garbage.stats"))
        try Data().write(to: URL(fileURLWithPath: folder + "/empty.stats"))
        // A copy of this host's file under another name: its header names this process, not 2.
        try mine.write(to: URL(fileURLWithPath: folder + "/2.stats"))
        // The header of pid 1 (running), with this process's start time: pid 1 did not write it.
        var forged = mine
        forged.replaceSubrange(20..<24, with: withUnsafeBytes(of: Int32(1).littleEndian) { Data($0) })
        try forged.write(to: URL(fileURLWithPath: folder + "/1.stats"))

        let hosts = try await runningHosts()
        #expect(hosts.map(\.processIdentifier) == [getpid()])
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: folder))
        // Not counter files at all: skipped, left for whoever put them there.
        #expect(left == ["\(getpid()).stats", "garbage.stats", "empty.stats"], "\(left)")
    }

    @Test(
        "a counter file keeps 1023 named rows and shares the last, (more), among the rest; a long name is cut on a character boundary; adds, maxima and guarded clears read back from another mapping"
    )
    func counterFileRows() throws {
        let folder = fixture.world.root.appending("counters")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/rows.stats"
        let file = try CounterFile(creatingAt: path, name: "rows")
        let long = String(repeating: "é", count: 200)  // 400 bytes: more than a row's 248
        let first = file.slot(named: long)
        for index in 1..<CounterFile.capacity - 1 { _ = file.slot(named: "row \(index)") }
        let more = file.slot(named: "one too many")
        #expect(file.slot(named: "and another") == more)
        #expect(file.slot(named: long) == first)
        file.add(3, to: 0, in: first)
        file.add(2, to: 0, in: more)
        file.add(5, to: 0, in: more)
        file.raise(1, in: first, to: 9)
        file.raise(1, in: first, to: 4)
        file.set(2, in: first, to: 42)
        file.replace(2, in: first, ifEqualTo: 41, with: 0)  // not its value: kept

        guard case .live(let contents)? = CounterFile.read(path) else {
            Issue.record("the file of a live writer did not read as live")
            return
        }
        #expect(contents.processIdentifier == getpid() && contents.name == "rows")
        #expect(contents.slots.count == CounterFile.capacity)
        #expect(contents.slots.first?.name == String(repeating: "é", count: 124))  // 248 bytes
        #expect(contents.slots.first?.counters.prefix(3) == [3, 9, 42])
        #expect(contents.slots.last?.name == "(more)")
        #expect(contents.slots.last?.counters.first == 7)
    }

    @Test(
        "the widget host's row counts each reload it takes from a widget's budget, and what the last reloaded widget has used of today's"
    )
    func widgetReloadsAreCounted() async throws {
        let widgets = try WidgetWorld()
        let host = try widgets.host(budget: 40)
        let start = Date()
        let states = try await host.refresh(now: start)
        let row = try #require(
            try await HostStatistics.running(in: widgets.environment).first { $0.processIdentifier == getpid() }?
                .extensions.first { $0.bundleIdentifier == WidgetWorld.widgetsIdentifier }
        )
        // One reload per widget (each its first timeline), one launch for them all.
        #expect(row.widgetReloads == UInt64(states.count), "\(row)")
        #expect(row.reloadsToday == 1 && row.dailyReloadBudget == 40, "\(row)")
        #expect(row.launches == 1)
        #expect(row.calls >= UInt64(states.count) + 1)  // its descriptors, then each timeline
    }

    @Test(
        "with a swift-metrics backend as the factory, an extension's launches, calls, call durations and bytes reach it, dimensioned by its bundle identifier"
    )
    func metricsReachTheBackend() async throws {
        let metrics = TestMetrics()
        // A bundle identifier no other test uses, its handlers made in this task, whose metrics
        // factory is this backend (swift-metrics' task-local factory: no process-wide bootstrap).
        let id = "com.example.metered"
        let identity = try tests.installEcho(id: id)
        let process = try withMetricsFactory(metrics) { try tests.process(identity) }
        defer { process.invalidate() }
        let request = EchoRequest(command: "echo", text: "metered")
        for _ in 0..<2 { _ = try await process.send(request, expecting: EchoReply.self) }
        let dimensions = [("extension", id)]
        #expect(try metrics.expectCounter("appex_extension_launches_total", dimensions).totalValue == 1)
        #expect(try metrics.expectCounter("appex_extension_calls_total", dimensions).totalValue == 2)
        #expect(try metrics.expectTimer("appex_extension_call_duration", dimensions).values.count == 2)
        #expect(
            try metrics.expectCounter("appex_extension_sent_bytes_total", dimensions).totalValue
                == 2 * Int64(try Self.encodedSize(request))
        )
        #expect(
            metrics.counters(label: "appex_extension_failed_calls_total", dimensions: dimensions).allSatisfy {
                $0.totalValue == 0
            }
        )
    }
}
