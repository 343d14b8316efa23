// IPC and launch figures (issue 3), each beside its baseline measured in the same run:
//
// - ipc.roundtrip.64B (p50, p99): a 64-byte request and its 64-byte reply through
//   AppExtensionProcess.call to a live extension process. Baseline: the same exchange between
//   this process and a forked C child on a socketpair with blocking read/write.
// - ipc.actor.roundtrip.64B (p50, p99): the same 64 bytes through a @Resolvable distributed-actor
//   call to the extension's exported actor. Same baseline.
// - ipc.reply.1MiB: a small request answered with 1 MiB (shared memory above 256 KiB). Baseline:
//   the C child writing 1 MiB on the socket.
// - launch.first-reply: a new extension process, launched, until its first reply. Baseline:
//   posix_spawn of a C program that writes one byte to descriptor 3, until that byte is read.
import AppexCore
import AppexHost
import AppexIPC
import BenchInterfaces
import Distributed
import AppexTesting
import Benchmark
import CPingPong
import Foundation

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
        let bundle = try FixtureBundles.makeExtension(in: hostPath + "/Extensions", name: "Bench", bundleIdentifier: "com.example.bench",
                                                      extensionPoint: "com.example.hostapp.HostAppFeature",
                                                      info: ["CFBundleExecutable": .string("BenchExtension")])
        // Replace the fixture's shell-script executable with the real extension.
        try FileManager.default.removeItem(atPath: bundle + "/BenchExtension")
        try FileManager.default.copyItem(atPath: binDirectory + "/BenchExtension", toPath: bundle + "/BenchExtension")
        try AppexBundle.sign(at: bundle, with: world.team)
        discovery = try ExtensionDiscovery(hostBundleAt: hostPath, environment: world.environment)
        let found = try discovery.snapshot().extensions
        guard let identity = found.first?.identity else {
            preconditionFailure("the benchmark extension is not valid: \(found)")
        }
        self.identity = identity
        running = try AppExtensionProcess(configuration: .init(identity: identity, hostBundlePath: hostPath, environment: world.environment), discovery: discovery)
        var pid: Int32 = 0
        cSocket = cpingpong_start(64, &pid)
        precondition(cSocket >= 0, "cannot start the C ping-pong child")
        cPid = pid
        echo = try $BenchEcho.resolve(id: IPCActorSystem.ActorID("echo"), using: running.actorSystem)
    }

    /// One extension process kept running for the round-trip figures (each sample is one call).
    let running: AppExtensionProcess
    /// The extension's exported actor, resolved once.
    let echo: $BenchEcho
    /// The C baseline's child, kept running likewise.
    let cSocket: Int32
    let cPid: Int32

    func process() throws -> AppExtensionProcess {
        try AppExtensionProcess(configuration: .init(identity: identity, hostBundlePath: hostPath, environment: world.environment), discovery: discovery)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 100,
                                           maxDuration: .seconds(10), maxIterations: 20_000)

    // Each sample is one call; the process and the C child stay up between samples.
    Benchmark("ipc.roundtrip.64B") { _ in
        blackHole(try await BenchWorld.shared.running.call([UInt8](repeating: 1, count: 64)))
    }

    Benchmark("ipc.roundtrip.64B.baseline") { _ in
        precondition(cpingpong_roundtrip(BenchWorld.shared.cSocket, 64, 64) == 0)
    }

    Benchmark("ipc.actor.roundtrip.64B") { _ in
        blackHole(try await BenchWorld.shared.echo.echo([UInt8](repeating: 1, count: 64)))
    }

    Benchmark("ipc.actor.roundtrip.64B.baseline") { _ in
        precondition(cpingpong_roundtrip(BenchWorld.shared.cSocket, 64, 64) == 0)
    }

    Benchmark("ipc.reply.1MiB", configuration: .init(warmupIterations: 5, maxIterations: 500)) { _ in
        let reply = try await BenchWorld.shared.running.call(Array("reply:1048576".utf8))
        precondition(reply.count == 1 << 20)
    }

    Benchmark("ipc.reply.1MiB.baseline", configuration: .init(warmupIterations: 5, maxIterations: 500)) { _ in
        precondition(cpingpong_roundtrip(BenchWorld.shared.cSocket, 64, 1 << 20) == 0)
    }

    Benchmark("launch.first-reply", configuration: .init(timeUnits: .milliseconds, warmupIterations: 2, maxIterations: 60)) { benchmark in
        let world = BenchWorld.shared
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            let process = try world.process()
            _ = try await process.call([1])
            benchmark.stopMeasurement()
            process.invalidate()
        }
    }

    Benchmark("launch.first-reply.baseline", configuration: .init(timeUnits: .milliseconds, warmupIterations: 2, maxIterations: 60)) { benchmark in
        let path = BenchWorld.shared.binDirectory + "/FirstByte"
        for _ in benchmark.scaledIterations {
            var nanoseconds: UInt64 = 0
            benchmark.startMeasurement()
            precondition(cpingpong_spawn_first_byte(path, &nanoseconds) == 0)
            benchmark.stopMeasurement()
        }
    }
}
