// The secure store's figures (issue 14). Each sample runs ours and its baseline in alternating
// order, recorded in `latency` and `pairedBaseline` (read by Scripts/bench.sh as the figure's
// baseline), so both see the same machine at the same moment.
//
// - securestore.read: SecureStore.get of a 64-byte secret (Data) from an open store, as a host
//   reads its tokens again and again: the idle timer restarted, the WAL-index header compared,
//   and the value decoded before taken from memory as no commit happened since (else: a read
//   transaction, the HMAC'd row, one AES-GCM open, the JSON decode). Timed 100 reads at a time. Baseline: keychain.read's procedure, SharedKeychain.item of a 64-byte secret,
//   timed the same way. Target: at most 2x.
// - securestore.unlock: SecureStore.open(passcode:) with the standard scrypt (N = 2^16, r = 8,
//   p = 1): the attempt counted in one commit, the key derived, the data key unwrapped, the
//   count reset in a second commit. It should be deliberately slow: 100 to 500 ms on this
//   machine. Baseline: one AES-GCM open of a wrapped 32-byte key.
import AppexCore
import AppexSecureStore
import AppexStore
import AppexTesting
import Benchmark
import Crypto
import Foundation

/// A host's open secure store and its shared keychain, each holding the same 64-byte secret.
final class SecureWorld: Sendable {
    static let shared: SecureWorld = {
        do { return try SecureWorld() } catch {
            FileHandle.standardError.write(Data("cannot build the secure store benchmark fixture: \(error)\n".utf8))
            exit(1)
        }
    }()

    static let passcode = "benchmark passcode 7"
    static let group = "com.example.bench.shared"

    let world: AppexTestEnvironment
    let store: SecureStore
    let keychain: SharedKeychain
    let secret: Data

    init() throws {
        world = try AppexTestEnvironment(prefix: "appex-bench-securestore")
        let context = ProcessContext(
            bundleIdentifier: "com.example.benchhost",
            team: world.team.teamIdentifier,
            entitlements: Entitlements(applicationGroups: [], keychainAccessGroups: [Self.group])
        )
        store = try SecureStore(context: context, configuration: SecureStore.Configuration(environment: world.environment))
        try store.onboard(passcode: Self.passcode)
        keychain = try SharedKeychain(context: context, environment: world.environment)
        secret = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
        try store.put(secret, forKey: "secret")
        try keychain.set(secret, service: "api.example.com", account: "ada", accessGroup: Self.group)
    }
}

/// A duration in whole nanoseconds, for the custom metrics.
func nanoseconds(_ duration: Duration) -> Int {
    Int(duration.components.seconds) * 1_000_000_000 + Int(duration.components.attoseconds / 1_000_000_000)
}

let benchmarks: @Sendable () -> Void = {
    let latency = BenchmarkMetric.custom("latency", polarity: .prefersSmaller, useScalingFactor: false)
    let pairedBaseline = BenchmarkMetric.custom("pairedBaseline", polarity: .prefersSmaller, useScalingFactor: false)

    /// Alternates ours and the baseline, each returning the time it measured.
    @Sendable func paired(_ benchmark: Benchmark, ours: () throws -> Duration, baseline: () throws -> Duration) rethrows {
        for iteration in benchmark.scaledIterations {
            for oursNow in iteration % 2 == 0 ? [true, false] : [false, true] {
                benchmark.measurement(oursNow ? latency : pairedBaseline, nanoseconds(oursNow ? try ours() : try baseline()))
            }
        }
    }

    /// The time of one read, from 100 in a row.
    func perRead(_ read: () throws -> Void) rethrows -> Duration {
        let start = ContinuousClock.now
        for _ in 0..<100 { try read() }
        return (ContinuousClock.now - start) / 100
    }

    let reads = Benchmark.Configuration(metrics: [latency, pairedBaseline], timeUnits: .microseconds, warmupIterations: 2,
                                        maxDuration: .seconds(10), maxIterations: 40)
    Benchmark("securestore.read", configuration: reads) { benchmark in
        let world = SecureWorld.shared
        let first = try world.store.get("secret", as: Data.self)
        precondition(first == world.secret)
        try paired(benchmark) {
            try perRead { blackHole(try world.store.get("secret", as: Data.self)) }
        } baseline: {
            try perRead { blackHole(try world.keychain.item(service: "api.example.com", account: "ada", accessGroup: SecureWorld.group)) }
        }
    }

    let unlocks = Benchmark.Configuration(metrics: [latency, pairedBaseline], timeUnits: .milliseconds, warmupIterations: 1,
                                          maxDuration: .seconds(20), maxIterations: 20)
    Benchmark("securestore.unlock", configuration: unlocks) { benchmark in
        let world = SecureWorld.shared
        let key = SymmetricKey(size: .bits256)
        let wrapped = try AES.GCM.seal(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }, using: key)
        try paired(benchmark) {
            world.store.lock()
            let start = ContinuousClock.now
            try world.store.open(passcode: SecureWorld.passcode)
            return ContinuousClock.now - start
        } baseline: {
            let start = ContinuousClock.now
            blackHole(try AES.GCM.open(wrapped, using: key))
            return ContinuousClock.now - start
        }
    }
}
