// Discovery figures (issue 2), each beside its baseline measured in the same run:
//
// - discovery.snapshot.1000.cold: a new ExtensionDiscovery's first snapshot over 1,000 signed
//   extensions (every Info.plist, entitlements file and seal read, every file hashed, every
//   signature verified). Baseline: merely reading and parsing those 1,000 Info.plist files.
// - discovery.snapshot.1000.warm: the next snapshot of the same discovery (a stat per file,
//   nothing changed). Same baseline.
// - discovery.snapshot.10000.cold / .warm (issue 28): the same over 10,000 signed extensions.
//   Baseline: ten times discovery.snapshot.1000.cold / .warm, measured in the same run
//   (Scripts/bench.sh scales it). Target: at most 1.1x, so that discovery stays linear.
// - discovery.update-latency: a signed bundle renamed into a watched folder holding 1,000
//   others, until a live Monitor delivers the snapshot that lists it. Baseline: the raw inotify
//   event for the same rename, read by a blocked reader.
import AppexCore
import AppexHost
import AppexTesting
import Benchmark
import BenchSmoke
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// 1,000 (or `count`) signed extensions on a host's search path, made once per benchmark process
/// (50 in a smoke run, and 100 for the 10,000).
final class InstalledWorld: Sendable {
    static let count = fixtureSize(1000, smoke: 50)
    static let shared: InstalledWorld = {
        do { return try InstalledWorld() } catch { preconditionFailure("cannot build the benchmark fixture: \(error)") }
    }()
    /// 10,000 of them, for the figures at scale.
    static let tenThousand: InstalledWorld = {
        do { return try InstalledWorld(count: fixtureSize(10_000, smoke: 100)) } catch { preconditionFailure("cannot build the benchmark fixture: \(error)") }
    }()

    let count: Int
    let world: AppexTestEnvironment
    let hostPath: String
    let infoPlists: [String]
    let staging: String

    init(count: Int = InstalledWorld.count) throws {
        self.count = count
        world = try AppexTestEnvironment(prefix: "appex-bench")
        hostPath = world.root.appending("HostApp.app")
        try FixtureBundles.makeHostApp(at: hostPath, bundleIdentifier: "com.example.hostapp", extensionPoints: ["HostAppFeature"], signedBy: world.team)
        var plists: [String] = []
        for index in 0..<count {
            let path = try FixtureBundles.makeExtension(
                in: world.searchFolder, name: "Ext\(index)", bundleIdentifier: "com.example.ext\(index)",
                extensionPoint: "com.example.hostapp.HostAppFeature", format: .binary,
                entitlements: Entitlements(applicationGroups: ["group.com.example.app"], keychainAccessGroups: []),
                signedBy: world.team)
            plists.append(path + "/Info.plist")
        }
        infoPlists = plists
        staging = world.root.appending("Staging")
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        try FixtureBundles.makeExtension(in: staging, name: "Newcomer", bundleIdentifier: "com.example.newcomer",
                                         extensionPoint: "com.example.hostapp.HostAppFeature", format: .binary, signedBy: world.team)
    }

    func discovery() throws -> ExtensionDiscovery {
        try ExtensionDiscovery(hostBundleAt: hostPath, environment: world.environment)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock],
        timeUnits: .microseconds,
        warmupIterations: 1,
        maxDuration: .seconds(10),
        maxIterations: 30
    )

    Benchmark("discovery.snapshot.1000.cold") { benchmark in
        let installed = InstalledWorld.shared
        for _ in benchmark.scaledIterations {
            let discovery = try installed.discovery()
            let snapshot = try discovery.snapshot()
            precondition(snapshot.extensions.count == InstalledWorld.count)
            blackHole(snapshot)
        }
    }

    Benchmark("discovery.snapshot.1000.warm") { benchmark in
        let installed = InstalledWorld.shared
        let discovery = try installed.discovery()
        _ = try discovery.snapshot()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try discovery.snapshot())
        }
        benchmark.stopMeasurement()
    }

    // At scale: the same, over 10,000.
    let scale = Benchmark.Configuration(metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 1,
                                        maxDuration: .seconds(20), maxIterations: 10)
    Benchmark("discovery.snapshot.10000.cold", configuration: scale) { benchmark in
        let installed = InstalledWorld.tenThousand
        for _ in benchmark.scaledIterations {
            let discovery = try installed.discovery()
            let snapshot = try discovery.snapshot()
            precondition(snapshot.extensions.count == installed.count)
            blackHole(snapshot)
        }
    }

    Benchmark("discovery.snapshot.10000.warm", configuration: scale) { benchmark in
        let installed = InstalledWorld.tenThousand
        let discovery = try installed.discovery()
        _ = try discovery.snapshot()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try discovery.snapshot())
        }
        benchmark.stopMeasurement()
    }

    Benchmark("discovery.snapshot.1000.baseline") { benchmark in
        let installed = InstalledWorld.shared
        for _ in benchmark.scaledIterations {
            var count = 0
            for path in installed.infoPlists {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                let plist = try PropertyListSerialization.propertyList(from: data, format: nil)
                if plist is [String: Any] { count += 1 }
            }
            precondition(count == installed.count)
        }
    }

    Benchmark("discovery.update-latency", configuration: .init(timeUnits: .microseconds, maxIterations: 60)) { benchmark in
        let installed = InstalledWorld.shared
        // The newcomer is approved before the monitor starts, so its arrival makes it an identity.
        try FileManager.default.moveItem(atPath: installed.staging + "/Newcomer.appex", toPath: installed.world.searchFolder + "/Newcomer.appex")
        try installed.discovery().setEnabled(true, bundleIdentifier: "com.example.newcomer")
        try FileManager.default.moveItem(atPath: installed.world.searchFolder + "/Newcomer.appex", toPath: installed.staging + "/Newcomer.appex")
        let monitor = try await AppExtensionPoint.Monitor(
            appExtensionPoint: AppExtensionPoint(host: "com.example.hostapp", name: "HostAppFeature"),
            hostBundleAt: installed.hostPath, environment: installed.world.environment)
        precondition(!monitor.identities.contains { $0.bundleIdentifier == "com.example.newcomer" })
        let staged = installed.staging + "/Newcomer.appex"
        let live = installed.world.searchFolder + "/Newcomer.appex"
        for _ in benchmark.scaledIterations {
            var updates = monitor.updates.makeAsyncIterator()
            _ = await updates.next()  // the current snapshot
            benchmark.startMeasurement()
            precondition(rename(staged, live) == 0)
            while let snapshot = await updates.next(), !snapshot.identities.contains(where: { $0.bundleIdentifier == "com.example.newcomer" }) {}
            benchmark.stopMeasurement()
            precondition(rename(live, staged) == 0)
            while let snapshot = await updates.next(), snapshot.identities.contains(where: { $0.bundleIdentifier == "com.example.newcomer" }) {}
        }
    }

    #if os(Linux)
    Benchmark("discovery.update-latency.baseline", configuration: .init(timeUnits: .microseconds, maxIterations: 60)) { benchmark in
        let installed = InstalledWorld.shared
        let staged = installed.staging + "/Newcomer.appex"
        let live = installed.world.searchFolder + "/Newcomer.appex"
        let fd = inotify_init1(Int32(IN_CLOEXEC))
        precondition(fd >= 0)
        defer { close(fd) }
        precondition(inotify_add_watch(fd, installed.world.searchFolder, UInt32(IN_MOVED_TO | IN_MOVED_FROM)) >= 0)
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            precondition(rename(staged, live) == 0)
            _ = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            benchmark.stopMeasurement()
            precondition(rename(live, staged) == 0)
            _ = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        }
    }
    #endif

    applySmokeModeIfAsked()  // last: every benchmark above runs once under Scripts/bench.sh --smoke
}
