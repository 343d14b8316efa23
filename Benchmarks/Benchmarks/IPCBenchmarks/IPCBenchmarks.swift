// IPC and launch figures (issue 3), each beside its baseline measured in the same run:
//
// Round trips are measured in pairs: each sample alternates blocks of 50 calls of ours and 50 of
// the baseline (which goes first alternates too), each call timed and recorded in the custom
// metric "latency" (ours) or "pairedBaseline" (the baseline), which Scripts/bench.sh reads as the
// figure's baseline. Both see the same machine: on this VM the idle governor's state alone moved
// the C round trip between 8 and 18 µs from one run to the next (issue 28).
//
// - ipc.roundtrip.64B (p50, p99): a 64-byte request and its 64-byte reply through
//   AppExtensionProcess.call to a live extension process, from a loop that prefers the
//   process's IPCExecutor (docs/decisions/0015-reader-thread-task-executor.md: the recommended way to make calls in a row).
//   Baseline: the same exchange between this process and a forked C child on a socketpair, from
//   the same thread, each side waiting as an executor does: the parent for each reply, the child
//   for the next request, polling the socket without blocking for up to 50 µs (yielding the core
//   every 5 µs), then blocking in read (issue 28: a parent that blocked at once was slower to
//   wake, and made Appex look faster than C; issue 48: so was a child that blocked at once, once
//   the extension looked for the next request).
// - ipc.roundtrip.64B.cpu: the CPU time one call costs, host and extension together (both
//   processes' CPU clocks over a block of calls, divided by its calls): latency bought with a
//   spinning core shows here. Baseline: the C parent's and child's, over the same exchange.
// - ipc.roundtrip.64B.c-extension: the same 64 bytes through Appex's host side alone: an
//   IPCConnection (the layer under AppExtensionProcess.call) to a C child that answers frames
//   and waits as the C baseline's child does. Baseline: the C ping-pong. What the raw call costs
//   over this is the extension's side and AppExtensionProcess's.
// - ipc.roundtrip.64B.unaccounted: the raw call to the same extension with its memory limit held
//   as an address-space limit, so that no memory cgroup charges its socket buffers. Baseline:
//   the raw call: the ratio is what the memory cgroup costs a round trip.
// - ipc.roundtrip.64B.pinned (p50, p99): ipc.roundtrip.64B with this process's threads on CPU 0
//   and the extension's (and the C child's) on CPU 1 (sched_setaffinity), the placement spinning
//   is for. ipc.roundtrip.64B itself leaves placement to the scheduler.
// - ipc.roundtrip.64B.pool (p50, p99): the same call from a task with no executor preference
//   (its reply wakes a thread of Swift's pool). Baseline: the raw call of ipc.roundtrip.64B
//   (target: 1.5x).
// - ipc.roundtrip.64B.traced (p50, p99): the same call made inside a span, with a W3C tracer
//   bootstrapped in this process and in the extension (BenchInterfaces' W3CTracer: span ids,
//   traceparent written and parsed, nothing exported): the frame carries the traceparent, the
//   extension serves the call in a child span. Baseline: the untraced call, same process, same
//   run: the ratio is what tracing adds when it is on. ipc.roundtrip.64B is the figure with it off.
// - ipc.actor.roundtrip.64B (p50, p99): the same 64 bytes through a @Resolvable distributed-actor
//   call to the extension's exported actor, measured like ipc.roundtrip.64B. Baseline: the raw
//   call under it (target: 1.5x).
// - ipc.reply.1MiB: a small request answered with 1 MiB (shared memory above 256 KiB). Baseline:
//   the C child writing 1 MiB on the socket.
// - ipc.reply.64MiB / ipc.reply.64MiB.memfd: 64 MiB answers through the socket (a process
//   configured to keep everything in the socket) and in a sealed memfd. Baseline: the C child
//   writing 64 MiB on the socket.
// - launch.first-reply: a new extension process, launched unsandboxed (the benchmark's switch),
//   until its first reply. Baseline: posix_spawn of a C program that writes one byte to
//   descriptor 3, until that byte is read.
// - launch.first-reply.sandboxed: the same, sandboxed as every real launch is (Landlock ruleset,
//   seccomp, no_new_privs, the child's steps). Baseline: launch.first-reply, measured in the
//   same run: the figure is what the sandbox adds (target: at most 2 ms more).
// - launch.first-reply.enhanced: the same extension under a point with EXRequiresEnhancedSecurity
//   (user, mount and PID namespaces, a private /tmp and /proc, the seccomp allowlist, the seal
//   verified at every launch, the executable hashed after each exec and before a launch only
//   when not proven unchanged: docs/decisions/0003-the-seal.md; the fixture, made
//   when the process starts, is proven after its first launches). Baseline:
//   launch.first-reply.sandboxed: the figure is what enhanced security adds (target: +5 ms).
// - launch.first-reply.sandboxed.lone: launch.first-reply.sandboxed with 100 ms, untimed, after
//   each launch, as a real host launches: on cgroup v1 joining the extension's cgroups waits for
//   an RCU grace period unless another join passed moments before, which back-to-back launches
//   hide (docs/decisions/0129-resource-limits-by-default.md). Baseline: launch.first-reply with the same pause.
import BenchChildren
import AppexCore
@_spi(Measurement) import AppexHost
@_spi(Wire) import AppexIPC
import BenchInterfaces
import Distributed
import AppexTesting
import Benchmark
import BenchSmoke
import CPingPong
import Foundation
import SystemPackage
import Tracing

/// An executor's spin (IPCExecutor's default), which the C baseline's waits copy: the parent's
/// for each reply, the child's for the next request.
let executorSpinNanoseconds: UInt64 = 50_000

/// A host with the benchmark extension installed, made once per benchmark process.
final class BenchWorld: Sendable {
    static let shared: BenchWorld = {
        do { return try BenchWorld() } catch {
            FileHandle.standardError.write(Data("cannot build the benchmark fixture: \(error)\n".utf8))
            exit(1)
        }
    }()

    let world: AppexTestEnvironment
    let hostPath: String
    let identity: AppExtensionIdentity
    let discovery: ExtensionDiscovery
    let binDirectory: String

    init() throws {
        world = try AppexTestEnvironment(prefix: "appex-bench-ipc")
        hostPath = world.root.appending("HostApp.app")
        try FixtureBundles.makeHostApp(at: hostPath, bundleIdentifier: "com.example.hostapp", extensionPoints: ["HostAppFeature"], signedBy: world.team)
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        binDirectory = URL(fileURLWithPath: me).deletingLastPathComponent().path
        (discovery, identity) = try Self.install(in: hostPath, world: world, binDirectory: binDirectory)
        // The same host and extension, its point declared with enhanced security.
        enhancedHostPath = world.root.appending("EnhancedHostApp.app")
        _ = try FixtureBundles.makeHostApp(at: enhancedHostPath, bundleIdentifier: "com.example.hostapp", extensionPoints: [])
        let enhanced = ExtensionPointDeclaration(identifier: ExtensionPointIdentifier(host: "com.example.hostapp", name: "HostAppFeature"),
                                                 requiresEnhancedSecurity: true)
        try FixtureBundles.write(PropertyListFormat.xml.encode(enhanced.propertyList),
                                 to: enhancedHostPath + "/ExtensionPoints/HostAppFeature.appextensionpoint")
        try AppexBundle.sign(at: enhancedHostPath, with: world.team)
        (enhancedDiscovery, enhancedIdentity) = try Self.install(in: enhancedHostPath, world: world, binDirectory: binDirectory)
        running = try AppExtensionProcess(configuration: .init(identity: identity, hostBundlePath: hostPath, environment: world.environment), discovery: discovery)
        var unaccounted = AppExtensionProcess.Configuration(identity: identity, hostBundlePath: hostPath, environment: world.environment)
        unaccounted.limitsMemoryByAddressSpace = true
        // An executor of its own: sharing running's, neither would read its reply in place.
        unaccounted.executor = IPCExecutor(name: "appex.ipc.unaccounted")
        self.unaccounted = try AppExtensionProcess(configuration: unaccounted, discovery: discovery)
        var socketOnly = AppExtensionProcess.Configuration(identity: identity, hostBundlePath: hostPath, environment: world.environment)
        socketOnly.channel.maximumFrameSize = 128 << 20
        socketOnly.channel.sharedMemoryThreshold = .max
        self.socketOnly = try AppExtensionProcess(configuration: socketOnly, discovery: discovery)
        var pid: Int32 = 0
        cSocket = cpingpong_start(64, executorSpinNanoseconds, &pid)
        precondition(cSocket >= 0, "cannot start the C ping-pong child")
        cPid = pid
        let frameSocket = cpingpong_start_frame_echo(64, executorSpinNanoseconds, &pid)
        precondition(frameSocket >= 0, "cannot start the C frame echo")
        let frameConnection = IPCConnection(channel: FrameChannel(socket: FileDescriptor(rawValue: frameSocket)))
        frameConnection.start()
        cFrameEcho = (frameConnection, pid)
        echo = try running.makeConnection().remoteObject(as: $BenchEcho.self)
    }

    /// One extension process kept running for the round-trip figures (each sample is one call).
    let running: AppExtensionProcess
    /// The same extension, in a process whose connection keeps every payload in the socket.
    let socketOnly: AppExtensionProcess
    /// The same extension, its memory limit held as an address-space limit: no memory cgroup
    /// charges its socket buffers (ipc.roundtrip.64B.unaccounted).
    let unaccounted: AppExtensionProcess
    /// A C child that answers frames, and the connection to it (ipc.roundtrip.64B.c-extension).
    let cFrameEcho: (connection: IPCConnection, pid: Int32)
    /// The extension's exported actor, resolved once.
    let echo: $BenchEcho
    /// The C baseline's child, kept running likewise.
    let cSocket: Int32
    let cPid: Int32

    let enhancedHostPath: String
    let enhancedIdentity: AppExtensionIdentity
    let enhancedDiscovery: ExtensionDiscovery

    /// Installs the benchmark extension (the real executable, signed) in the host at `hostPath`.
    static func install(in hostPath: String, world: AppexTestEnvironment, binDirectory: String) throws
        -> (ExtensionDiscovery, AppExtensionIdentity)
    {
        let bundle = try FixtureBundles.makeExtension(in: hostPath + "/Extensions", name: "Bench", bundleIdentifier: "com.example.bench",
                                                      extensionPoint: "com.example.hostapp.HostAppFeature",
                                                      info: ["CFBundleExecutable": .string("BenchExtension")])
        // Replace the fixture's shell-script executable with the real extension.
        try FileManager.default.removeItem(atPath: bundle + "/BenchExtension")
        try FileManager.default.copyItem(atPath: binDirectory + "/BenchExtension", toPath: bundle + "/BenchExtension")
        try AppexBundle.sign(at: bundle, with: world.team)
        let discovery = try ExtensionDiscovery(hostBundleAt: hostPath, environment: world.environment)
        let found = try discovery.snapshot().extensions
        guard let identity = found.first?.identity else {
            preconditionFailure("the benchmark extension is not valid in \(hostPath): \(found)")
        }
        return (discovery, identity)
    }

    /// A new process of the extension; `sandboxed: false` only to measure what the sandbox costs,
    /// `enhanced` under the point that requires enhanced security.
    func process(sandboxed: Bool = true, enhanced: Bool = false) throws -> AppExtensionProcess {
        var configuration = AppExtensionProcess.Configuration(identity: enhanced ? enhancedIdentity : identity,
                                                              hostBundlePath: enhanced ? enhancedHostPath : hostPath,
                                                              environment: world.environment)
        configuration.isSandboxed = sandboxed
        return try AppExtensionProcess(configuration: configuration, discovery: enhanced ? enhancedDiscovery : discovery)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 100,
                                           maxDuration: .seconds(10), maxIterations: 20_000)

    // Round trips: each sample alternates blocks of ours and the baseline (see the top of the
    // file); the process and the C child stay up.
    let latency = BenchmarkMetric.custom("latency", polarity: .prefersSmaller, useScalingFactor: false)
    let pairedBaseline = BenchmarkMetric.custom("pairedBaseline", polarity: .prefersSmaller, useScalingFactor: false)
    let batch = Benchmark.Configuration(metrics: [.wallClock, latency, pairedBaseline], timeUnits: .microseconds,
                                        warmupIterations: 3, maxDuration: .seconds(10), maxIterations: 40)
    let callsPerSample = 1_000
    let block = 50
    let request = [UInt8](repeating: 1, count: 64)

    /// Alternates blocks of `ours` and `baseline`, which goes first alternating too, until each
    /// ran `callsPerSample / block` blocks; each runs one block, recording in the metric given.
    @Sendable func alternating(_ benchmark: Benchmark, ours: (BenchmarkMetric) async throws -> Void,
                               baseline: (BenchmarkMetric) async throws -> Void) async rethrows {
        for round in 0..<(callsPerSample / block) {
            for oursNow in round % 2 == 0 ? [true, false] : [false, true] {
                if oursNow { try await ours(latency) } else { try await baseline(pairedBaseline) }
            }
        }
    }
    /// Times each of a block of calls of `call`, recording them in `metric`.
    @Sendable func timeEach(_ benchmark: Benchmark, in metric: BenchmarkMetric, _ call: () async throws -> Void) async rethrows {
        for _ in 0..<block {
            let start = ContinuousClock.now
            try await call()
            benchmark.measurement(metric, nanoseconds(ContinuousClock.now - start))
        }
    }
    /// Records in `metric` the CPU time, this process's and `peer`'s, that each of a block of
    /// calls of `call` costs.
    /// The peer's clock is read while it sleeps: another process's CPU clock counts a thread's
    /// time up to its last tick or switch, so a peer that spins from call to call (as an
    /// extension's executor and the C child do) would show none. Each reading comes after a
    /// pause longer than the spin; the spin after the block's last call is counted.
    @Sendable func cpuEach(_ benchmark: Benchmark, in metric: BenchmarkMetric, peer: Int32, _ call: () async throws -> Void) async rethrows {
        usleep(useconds_t(executorSpinNanoseconds / 1_000 * 4))
        let before = cpingpong_cpu_ns(0) + cpingpong_cpu_ns(peer)
        for _ in 0..<block { try await call() }
        usleep(useconds_t(executorSpinNanoseconds / 1_000 * 4))
        let used = cpingpong_cpu_ns(0) + cpingpong_cpu_ns(peer) - before
        benchmark.measurement(metric, Int(used) / block)
    }
    @Sendable func cCall() {
        precondition(cpingpong_roundtrip_spinning(BenchWorld.shared.cSocket, 64, 64, executorSpinNanoseconds) == 0, "the C child stopped")
    }
    /// The extension's process identifier.
    @Sendable func extensionPID() throws -> Int32 {
        guard let pid = BenchWorld.shared.running.processIdentifier else {
            throw AppexError(.closed, "the benchmark extension is not running")
        }
        return pid
    }
    /// Runs `body` with this process's threads on CPU 0 and those of `peers` on CPU 1, then lets
    /// the scheduler place them all again.
    @Sendable func placedApart(from peers: [Int32], _ body: () async throws -> Void) async rethrows {
        precondition(cpingpong_place(0, 0) > 0, "cannot set this process's CPU affinity")
        for peer in peers { precondition(cpingpong_place(peer, 1) > 0, "cannot set process \(peer)'s CPU affinity") }
        defer { for pid in [0] + peers { _ = cpingpong_place(pid, -1) } }
        try await body()
    }

    Benchmark("ipc.roundtrip.64B", configuration: batch) { benchmark in
        let process = BenchWorld.shared.running
        try await withTaskExecutorPreference(process.executor) {
            try await alternating(benchmark) { metric in
                try await timeEach(benchmark, in: metric) { blackHole(try await process.call(request)) }
            } baseline: { metric in
                await timeEach(benchmark, in: metric) { cCall() }
            }
        }
    }

    Benchmark("ipc.roundtrip.64B.cpu", configuration: batch) { benchmark in
        let world = BenchWorld.shared
        let process = world.running
        let peer = try extensionPID()
        try await withTaskExecutorPreference(process.executor) {
            try await alternating(benchmark) { metric in
                try await cpuEach(benchmark, in: metric, peer: peer) { blackHole(try await process.call(request)) }
            } baseline: { metric in
                await cpuEach(benchmark, in: metric, peer: world.cPid) { cCall() }
            }
        }
    }

    Benchmark("ipc.roundtrip.64B.pinned", configuration: batch) { benchmark in
        let world = BenchWorld.shared
        let process = world.running
        let peer = try extensionPID()
        try await withTaskExecutorPreference(process.executor) {
            try await placedApart(from: [peer, world.cPid]) {
                try await alternating(benchmark) { metric in
                    try await timeEach(benchmark, in: metric) { blackHole(try await process.call(request)) }
                } baseline: { metric in
                    await timeEach(benchmark, in: metric) { cCall() }
                }
            }
        }
    }

    Benchmark("ipc.roundtrip.64B.unaccounted", configuration: batch) { benchmark in
        let world = BenchWorld.shared
        try await withTaskExecutorPreference(world.unaccounted.executor) {
            try await alternating(benchmark) { metric in
                try await timeEach(benchmark, in: metric) { blackHole(try await world.unaccounted.call(request)) }
            } baseline: { metric in
                try await withTaskExecutorPreference(world.running.executor) {
                    try await timeEach(benchmark, in: metric) { blackHole(try await world.running.call(request)) }
                }
            }
        }
    }

    Benchmark("ipc.roundtrip.64B.c-extension", configuration: batch) { benchmark in
        let peer = BenchWorld.shared.cFrameEcho
        try await withTaskExecutorPreference(peer.connection.executor) {
            try await alternating(benchmark) { metric in
                try await timeEach(benchmark, in: metric) { blackHole(try await peer.connection.call(request)) }
            } baseline: { metric in
                await timeEach(benchmark, in: metric) { cCall() }
            }
        }
    }

    Benchmark("ipc.roundtrip.64B.traced", configuration: batch) { benchmark in
        let process = BenchWorld.shared.running
        W3CTracer.bootstrapOnce()
        try await withTaskExecutorPreference(process.executor) {
            try await alternating(benchmark) { metric in
                try await timeEach(benchmark, in: metric) {
                    try await withSpan("bench.call", ofKind: .client) { _ in blackHole(try await process.call(request)) }
                }
            } baseline: { metric in
                try await timeEach(benchmark, in: metric) { blackHole(try await process.call(request)) }
            }
        }
    }

    Benchmark("ipc.roundtrip.64B.pool", configuration: batch) { benchmark in
        let process = BenchWorld.shared.running
        try await alternating(benchmark) { metric in
            try await timeEach(benchmark, in: metric) { blackHole(try await process.call(request)) }
        } baseline: { metric in
            try await withTaskExecutorPreference(process.executor) {
                try await timeEach(benchmark, in: metric) { blackHole(try await process.call(request)) }
            }
        }
    }

    Benchmark("ipc.actor.roundtrip.64B", configuration: batch) { benchmark in
        let world = BenchWorld.shared
        try await withTaskExecutorPreference(world.running.executor) {
            try await alternating(benchmark) { metric in
                try await timeEach(benchmark, in: metric) { blackHole(try await world.echo.echo(request)) }
            } baseline: { metric in
                try await timeEach(benchmark, in: metric) { blackHole(try await world.running.call(request)) }
            }
        }
    }

    Benchmark("ipc.reply.1MiB", configuration: .init(warmupIterations: 5, maxIterations: 500)) { _ in
        let reply = try await BenchWorld.shared.running.call(Array("reply:1048576".utf8))
        precondition(reply.count == 1 << 20)
    }

    Benchmark("ipc.reply.1MiB.baseline", configuration: .init(warmupIterations: 5, maxIterations: 500)) { _ in
        precondition(cpingpong_roundtrip(BenchWorld.shared.cSocket, 64, 1 << 20) == 0)
    }

    let bulk = Benchmark.Configuration(timeUnits: .microseconds, warmupIterations: 2, maxDuration: .seconds(10), maxIterations: 40)

    // Each reply is delivered and then read (a byte of every page) as its receiver would.
    Benchmark("ipc.reply.64MiB", configuration: bulk) { _ in
        let process = BenchWorld.shared.socketOnly
        let reply = try await withTaskExecutorPreference(process.executor) { try await process.callInPlace(Array("reply:67108864".utf8)) }
        precondition(reply.count == 64 << 20 && !reply.isShared)
        blackHole(touchPages(reply))
    }

    Benchmark("ipc.reply.64MiB.memfd", configuration: bulk) { _ in
        let process = BenchWorld.shared.running
        let reply = try await withTaskExecutorPreference(process.executor) { try await process.callInPlace(Array("reply:67108864".utf8)) }
        precondition(reply.count == 64 << 20 && reply.isShared)
        blackHole(touchPages(reply))
    }

    Benchmark("ipc.reply.64MiB.baseline", configuration: bulk) { _ in
        precondition(cpingpong_roundtrip(BenchWorld.shared.cSocket, 64, 64 << 20) == 0)
    }

    Benchmark("launch.first-reply", configuration: .init(timeUnits: .microseconds, warmupIterations: 2, maxIterations: 60)) { benchmark in
        let world = BenchWorld.shared
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            let process = try world.process(sandboxed: false)
            _ = try await process.call([1])
            benchmark.stopMeasurement()
            process.invalidate()
        }
    }

    Benchmark("launch.first-reply.sandboxed", configuration: .init(timeUnits: .microseconds, warmupIterations: 2, maxIterations: 60)) { benchmark in
        let world = BenchWorld.shared
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            let process = try world.process(sandboxed: true)
            _ = try await process.call([1])
            benchmark.stopMeasurement()
            process.invalidate()
        }
    }

    Benchmark("launch.first-reply.enhanced", configuration: .init(timeUnits: .microseconds, warmupIterations: 2, maxIterations: 60)) { benchmark in
        let world = BenchWorld.shared
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            let process = try world.process(enhanced: true)
            _ = try await process.call([1])
            benchmark.stopMeasurement()
            process.invalidate()
        }
    }

    for (name, sandboxed) in [("launch.first-reply.sandboxed.lone", true), ("launch.first-reply.lone", false)] {
        Benchmark(name, configuration: .init(timeUnits: .microseconds, warmupIterations: 2, maxIterations: 30)) { benchmark in
            let world = BenchWorld.shared
            for _ in benchmark.scaledIterations {
                benchmark.startMeasurement()
                let process = try world.process(sandboxed: sandboxed)
                _ = try await process.call([1])
                benchmark.stopMeasurement()
                process.invalidate()
                try await Task.sleep(for: .milliseconds(100))  // untimed: the next launch comes alone
            }
        }
    }

    Benchmark("launch.first-reply.baseline", configuration: .init(timeUnits: .microseconds, warmupIterations: 2, maxIterations: 60)) { benchmark in
        let path = BareChild.path(of: "FirstByte")
        for _ in benchmark.scaledIterations {
            var nanoseconds: UInt64 = 0
            benchmark.startMeasurement()
            precondition(cpingpong_spawn_first_byte(path, &nanoseconds) == 0)
            benchmark.stopMeasurement()
        }
    }

    scaleBenchmarks()  // ScaleBenchmarks.swift: host.extensions.100, ipc.concurrent.8

    applySmokeModeIfAsked()  // last: every benchmark above runs once under Scripts/bench.sh --smoke
}

/// A duration in whole nanoseconds, for the "latency" metric.
func nanoseconds(_ duration: Duration) -> Int {
    Int(duration.components.seconds) * 1_000_000_000 + Int(duration.components.attoseconds / 1_000_000_000)
}

/// Reads one byte of every 4 KiB page of `payload`.
func touchPages(_ payload: Payload) -> UInt8 {
    payload.withUnsafeBytes { raw in
        var sum: UInt8 = 0
        for offset in stride(from: 0, to: raw.count, by: 4096) { sum &+= raw[offset] }
        return sum
    }
}
