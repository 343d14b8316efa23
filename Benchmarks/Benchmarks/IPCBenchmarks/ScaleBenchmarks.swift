import AppexCore
@_spi(Measurement) import AppexHost
import AppexTesting
// The IPC figures at a desktop's scale (issue 28), each beside its baseline in the same run:
//
// - host.extensions.100: 100 extensions (the benchmark extension in 100 signed bundles of their
//   own, the executable hard-linked) launched at once, until each has replied to a first call,
//   and kept running. Baseline: 100 posix_spawns of a bare C program (Fixtures/BareEcho, libc
//   only) holding a socketpair as its descriptor 3, spawned at once, until each has echoed a
//   byte. Target: at most 2x.
// - host.extensions.100.rss: the resident memory of one of those 100 extensions, their average
//   (/proc/PID/statm), in the custom metric "rss". Baseline: the bare C child's likewise. Target:
//   at most 3 MB more. host.extensions.100.pss: the same as proportional set sizes
//   (/proc/PID/smaps_rollup: a page shared by n processes counts 1/n in each), what each of the
//   100 costs the machine.
// - host.extensions.100.cpu: the CPU one launch of those 100 costs, the host's threads and each
//   process's own (/proc/PID/task/*/schedstat), in the custom metric "cpu" (nanoseconds).
//   Baseline: the same for the 100 bare C children. No target: on a machine with fewer cores than
//   launches at once, host.extensions.100's time follows it (decision 0154).
// - host.extensions.100.against-floor: host.extensions.100 against its floor (the C echo
//   extension through the same host and sandbox), the two alternating in the same samples, in
//   "latency" and "pairedBaseline". Target (issue 48): at most 1.1x.
// - ipc.concurrent.8: 8 callers, each making 64-byte calls to its own extension for 5 s, each
//   from a task preferring its process's executor; the time per call over all of them (5 s
//   divided by the calls made), in "latency", and Scripts/bench.sh prints the rate. Baseline, in
//   the same samples: 8 C ping-pong pairs (a thread and a forked child each, waiting for replies
//   as the executor does) for 5 s, in "pairedBaseline". Target: at least half the C pairs' rate.
import BenchChildren
import Benchmark
import CPingPong
import Foundation

/// A host with 100 extensions of its own, made once per benchmark process.
final class ScaleWorld: Sendable {
    static let shared: ScaleWorld = {
        do {
            return try ScaleWorld(
                count: 100,
                host: "ScaleHostApp",
                executable: BenchWorld.shared.binDirectory + "/BenchExtension"
            )
        } catch {
            FileHandle.standardError.write(Data("cannot build the scale fixture: \(error)\n".utf8))
            exit(1)
        }
    }()

    /// The same, with the C echo extension (Examples/Polyglot/C/echo.c, libc only) in each of the
    /// 100 bundles: host.extensions.100.floor, what the host and the sandbox cost with a child that
    /// starts in microseconds.
    static let floor: ScaleWorld = {
        do {
            return try ScaleWorld(count: 100, host: "FloorHostApp", executable: BareChild.polyglotEcho)
        } catch {
            FileHandle.standardError.write(Data("cannot build the floor fixture: \(error)\n".utf8))
            exit(1)
        }
    }()

    let hostPath: String
    let discovery: ExtensionDiscovery
    let identities: [AppExtensionIdentity]
    let environment: AppexEnvironment

    /// `count` extensions in app `host`, each a bundle of its own around `executable` (hard-linked).
    init(count: Int, host: String, executable: String) throws {
        let base = BenchWorld.shared
        hostPath = base.world.root.appending(host + ".app")
        let name = URL(fileURLWithPath: executable).lastPathComponent
        environment = base.world.environment
        // The point the benchmark extension's code binds to, in a host app of its own.
        try FixtureBundles.makeHostApp(
            at: hostPath,
            bundleIdentifier: "com.example.hostapp",
            extensionPoints: ["HostAppFeature"],
            signedBy: base.world.team
        )
        for index in 0..<count {
            let bundle = try FixtureBundles.makeExtension(
                in: hostPath + "/Extensions",
                name: "Bench\(index)",
                bundleIdentifier: "com.example.scale.bench\(index)",
                extensionPoint: "com.example.hostapp.HostAppFeature",
                info: ["CFBundleExecutable": .string(name)]
            )
            // The real extension, hard-linked: 100 copies of a 26 MB executable would fill the disk.
            try FileManager.default.removeItem(atPath: bundle + "/" + name)
            try FileManager.default.linkItem(atPath: executable, toPath: bundle + "/" + name)
            try AppexBundle.sign(at: bundle, with: base.world.team)
        }
        discovery = try ExtensionDiscovery(hostBundleAt: hostPath, environment: environment)
        identities = try discovery.snapshot().extensions.compactMap(\.identity).sorted {
            $0.bundleIdentifier < $1.bundleIdentifier
        }
        guard identities.count == count else {
            throw AppexError(.notFound, "\(identities.count) of the \(count) scale extensions are valid")
        }
    }

    /// A process of extension `index` (not launched yet), sandboxed unless `sandboxed` is false
    /// (the benchmarks' switch).
    func process(_ index: Int, sandboxed: Bool = true) throws -> AppExtensionProcess {
        var configuration = AppExtensionProcess.Configuration(
            identity: identities[index],
            hostBundlePath: hostPath,
            environment: environment
        )
        configuration.isSandboxed = sandboxed
        return try AppExtensionProcess(configuration: configuration, discovery: discovery)
    }

    /// 8 processes kept running for ipc.concurrent.8.
    static let eight: [AppExtensionProcess] = {
        do {
            let processes = try (0..<8).map { try shared.process($0) }
            return processes
        } catch {
            FileHandle.standardError.write(Data("cannot make the 8 processes: \(error)\n".utf8))
            exit(1)
        }
    }()
}

/// The proportional set size of process `pid` in bytes (its private pages, and each page it
/// shares divided among those sharing it), from /proc/PID/smaps_rollup.
func proportionalBytes(_ pid: Int32) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix("Pss:") {
        guard
            let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({
                Int($0)
            })
        else { return nil }
        return kilobytes * 1024
    }
    return nil
}

/// The CPU time all threads of process `pid` have run, in nanoseconds (the first field of each
/// `/proc/PID/task/TID/schedstat`: exact, where `/proc/PID/stat` counts 10 ms ticks). A child's
/// time before its exec, the sandbox's setup, is its own.
func cpuNanoseconds(ofProcess pid: Int32) -> UInt64 {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    var total: UInt64 = 0
    for task in tasks {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
            let first = text.split(separator: " ").first, let nanoseconds = UInt64(first)
        else { continue }
        total += nanoseconds
    }
    return total
}

/// Waits (up to 10 s) until none of `pids` names a process: each was killed, and reaped by
/// its host's event thread (a zombie still answers signal 0).
func waitUntilGone(_ pids: [Int32]) {
    let deadline = ContinuousClock.now + .seconds(10)
    for pid in pids {
        while kill(pid, 0) == 0, ContinuousClock.now < deadline { usleep(200) }
    }
}

/// The resident memory of process `pid` in bytes, from /proc/PID/statm.
func residentBytes(_ pid: Int32) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return nil }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * sysconf(Int32(_SC_PAGESIZE))
}

func scaleBenchmarks() {
    let rss = BenchmarkMetric.custom("rss", polarity: .prefersSmaller, useScalingFactor: false)
    let launches = Benchmark.Configuration(
        metrics: [.wallClock],
        timeUnits: .microseconds,
        warmupIterations: 1,
        maxDuration: .seconds(30),
        maxIterations: 5
    )
    let memory = Benchmark.Configuration(
        metrics: [rss],
        warmupIterations: 0,
        maxDuration: .seconds(30),
        maxIterations: 3
    )
    let request = [UInt8](repeating: 1, count: 64)
    let bareEcho = BareChild.path(of: "BareEcho")

    /// 100 extensions launched at once, until each replied to a first call; ended after `body`,
    /// and gone (reaped) before it returns, as the baseline's children are: the next iteration
    /// must not pay for this one's teardown.
    @Sendable func hundredExtensions(
        of world: ScaleWorld = .shared,
        sandboxed: Bool = true,
        _ body: ([AppExtensionProcess]) throws -> Void
    ) async throws {
        var processes: [AppExtensionProcess] = []
        defer {
            let pids = processes.compactMap(\.processIdentifier)
            for process in processes { process.invalidate() }
            waitUntilGone(pids)
        }
        for index in world.identities.indices { processes.append(try world.process(index, sandboxed: sandboxed)) }
        // All launched at once, as a host starting its extensions does; each until its first reply.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for process in processes {
                group.addTask { blackHole(try await process.call(request)) }
            }
            try await group.waitForAll()
        }
        try body(processes)
    }

    /// 100 bare C children, spawned at once, until each echoed a byte; ended after `body`.
    @Sendable func hundredBareChildren(_ body: ([Int32]) throws -> Void) throws {
        var children: [(socket: Int32, pid: Int32)] = []
        defer {
            for child in children {
                close(child.socket)
                waitpid(child.pid, nil, 0)
            }
        }
        for _ in 0..<100 {
            var pid: Int32 = 0
            let socket = cpingpong_spawn_holding(bareEcho, &pid)
            precondition(socket >= 0, "cannot spawn \(bareEcho)")
            children.append((socket, pid))
        }
        for child in children { precondition(cpingpong_echo_byte(child.socket) == 0, "a bare child did not echo") }
        try body(children.map(\.pid))
    }

    Benchmark("host.extensions.100", configuration: launches) { benchmark in
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            try await hundredExtensions { _ in benchmark.stopMeasurement() }
        }
    }

    // The floor under host.extensions.100: the same host, discovery, checks, sandbox and
    // handshake, with a C extension (libc only) in each bundle instead of the Swift one. Its
    // baseline is host.extensions.100's: the bare spawns (decision 0154).
    Benchmark("host.extensions.100.floor", configuration: launches) { benchmark in
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            try await hundredExtensions(of: .floor) { _ in benchmark.stopMeasurement() }
        }
    }

    // host.extensions.100 against its floor in the same samples: each sample launches the 100
    // Swift extensions and the 100 C ones, in alternating order, so that the machine's drift
    // between two benchmarks minutes apart (their ratio was 1.23x, 1.17x, 1.41x and 0.89x in four
    // runs on one day) does not make it. Its figure's baseline is the floor ("pairedBaseline").
    let latency = BenchmarkMetric.custom("latency", polarity: .prefersSmaller, useScalingFactor: false)
    let pairedBaseline = BenchmarkMetric.custom("pairedBaseline", polarity: .prefersSmaller, useScalingFactor: false)
    let pairedLaunches = Benchmark.Configuration(
        metrics: [.wallClock, latency, pairedBaseline],
        timeUnits: .microseconds,
        warmupIterations: 1,
        maxDuration: .seconds(60),
        maxIterations: 10
    )
    Benchmark("host.extensions.100.against-floor", configuration: pairedLaunches) { benchmark in
        for iteration in benchmark.scaledIterations {
            for swift in iteration % 2 == 0 ? [true, false] : [false, true] {
                let start = ContinuousClock.now
                var elapsed = Duration.zero
                try await hundredExtensions(of: swift ? .shared : .floor) { _ in elapsed = ContinuousClock.now - start }
                benchmark.measurement(swift ? latency : pairedBaseline, nanoseconds(elapsed))
            }
        }
    }

    Benchmark("host.extensions.100.floor.unsandboxed", configuration: launches) { benchmark in
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            try await hundredExtensions(of: .floor, sandboxed: false) { _ in benchmark.stopMeasurement() }
        }
    }

    Benchmark("host.extensions.100.baseline", configuration: launches) { benchmark in
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            try hundredBareChildren { _ in benchmark.stopMeasurement() }
        }
    }

    // Resident memory two ways: all the pages each process has mapped (RSS: the 100 count the
    // same executable's pages 100 times), and its proportional share (PSS: what each costs).
    for (suffix, size) in [("rss", residentBytes), ("pss", proportionalBytes)] as [(String, @Sendable (Int32) -> Int?)]
    {
        Benchmark("host.extensions.100.\(suffix)", configuration: memory) { benchmark in
            for _ in benchmark.scaledIterations {
                try await hundredExtensions { processes in
                    let sizes = processes.compactMap { $0.processIdentifier.flatMap(size) }
                    precondition(sizes.count == 100, "\(sizes.count) of the 100 extensions are running")
                    benchmark.measurement(rss, sizes.reduce(0, +) / sizes.count)
                }
            }
        }

        Benchmark("host.extensions.100.\(suffix).baseline", configuration: memory) { benchmark in
            for _ in benchmark.scaledIterations {
                try hundredBareChildren { pids in
                    let sizes = pids.compactMap(size)
                    precondition(sizes.count == 100, "\(sizes.count) of the 100 bare children are running")
                    benchmark.measurement(rss, sizes.reduce(0, +) / sizes.count)
                }
            }
        }
    }

    // The CPU a launch costs, all of it: the host's threads (over the whole launch of the 100)
    // and each process's own (the sandbox's setup before its exec included), per launch, when
    // every one has answered. On a machine with fewer cores than launches at once, the time to
    // launch them all follows it (decision 0154).
    let cpu = BenchmarkMetric.custom("cpu", polarity: .prefersSmaller, useScalingFactor: false)
    let cpuConfiguration = Benchmark.Configuration(
        metrics: [cpu],
        warmupIterations: 1,
        maxDuration: .seconds(30),
        maxIterations: 5
    )
    for (name, isFloor) in [("host.extensions.100.cpu", false), ("host.extensions.100.floor.cpu", true)] {
        Benchmark(name, configuration: cpuConfiguration) { benchmark in
            for _ in benchmark.scaledIterations {
                let before = cpuNanoseconds(ofProcess: getpid())
                try await hundredExtensions(of: isFloor ? .floor : .shared) { processes in
                    let host = cpuNanoseconds(ofProcess: getpid()) - before
                    let pids = processes.compactMap(\.processIdentifier)
                    precondition(pids.count == 100, "\(pids.count) of the 100 extensions are running")
                    let children = pids.map(cpuNanoseconds(ofProcess:)).reduce(0, +)
                    benchmark.measurement(cpu, Int((host + children) / 100))
                }
            }
        }
    }

    Benchmark("host.extensions.100.cpu.baseline", configuration: cpuConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            let before = cpuNanoseconds(ofProcess: getpid())
            try hundredBareChildren { pids in
                let host = cpuNanoseconds(ofProcess: getpid()) - before
                let children = pids.map(cpuNanoseconds(ofProcess:)).reduce(0, +)
                benchmark.measurement(cpu, Int((host + children) / 100))
            }
        }
    }

    let concurrent = Benchmark.Configuration(
        metrics: [latency, pairedBaseline],
        timeUnits: .nanoseconds,
        warmupIterations: 0,
        maxDuration: .seconds(60),
        maxIterations: 3
    )
    let window: Duration = .seconds(5)
    Benchmark("ipc.concurrent.8", configuration: concurrent) { benchmark in
        let processes = ScaleWorld.eight
        for process in processes { blackHole(try await process.call(request)) }  // launched, untimed
        for iteration in benchmark.scaledIterations {
            for oursNow in iteration % 2 == 0 ? [true, false] : [false, true] {
                if oursNow {
                    let deadline = ContinuousClock.now + window
                    let calls = try await withThrowingTaskGroup(of: Int.self) { group in
                        for process in processes {
                            group.addTask {
                                try await withTaskExecutorPreference(process.executor) {
                                    var calls = 0
                                    while ContinuousClock.now < deadline {
                                        blackHole(try await process.call(request))
                                        calls += 1
                                    }
                                    return calls
                                }
                            }
                        }
                        return try await group.reduce(0, +)
                    }
                    benchmark.measurement(latency, nanoseconds(window) / max(1, calls))
                } else {
                    let calls = cpingpong_concurrent(8, 64, 50_000, UInt64(nanoseconds(window)))
                    precondition(calls > 0, "the C pairs failed")
                    benchmark.measurement(pairedBaseline, nanoseconds(window) / Int(calls))
                }
            }
        }
    }
}
