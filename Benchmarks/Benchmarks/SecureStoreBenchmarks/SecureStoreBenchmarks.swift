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
// - aux.request.roundtrip: a widget's auxiliary data request answered while its host runs: the
//   widget (this process's main task) puts a request and awaits its completion; the host (a task
//   of this process with its own store, keychain and queue instances, serving with
//   serveDataRequestsUntilCancelled) is woken by the commit, takes the request under a lease,
//   opens its secure store with the request's share, reads a value, answers; the widget is woken
//   by that commit and reads the answer. Baseline: defaults.notify's p50 (StoreBenchmarks, the
//   same run). Target (issue 28): p50 at most 1 ms. Its parts, from the spans AppexStore starts
//   (their times kept by SpanTimes, a tracer bootstrapped here; the figure is measured with it), each
//   a custom metric "part…" that Scripts/bench.sh prints on a "parts:" line: seal (the info
//   sealed), write (the rest of the put: its transaction), wake (from the put's end to the
//   host's claim), claim, answer (from the claim's end to the answer's commit: the host's
//   handler, the response sealed, the synced commit), read back (from the answer's commit to
//   the widget's return: its wakeup and read).
// - aux.serve.100: the host draining 100 queued requests (serveDataRequests: each taken, the
//   store opened with its share, answered), the requests put before the timing. Baseline, in the
//   same samples: 100 SharedDefaults writes in the group. Target: at most 1 s.
import AppexCore
import AppexSecureStore
import AppexStore
import AppexTesting
import Benchmark
import BenchSmoke
import Crypto
import Foundation
import Synchronization
import Tracing

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

/// A host serving the auxiliary data requests of its group, and a widget asking.
final class AuxWorld: Sendable {
    static let shared: AuxWorld = {
        do { return try AuxWorld() } catch {
            FileHandle.standardError.write(Data("cannot build the auxiliary requests benchmark fixture: \(error)\n".utf8))
            exit(1)
        }
    }()

    static let group = "group.com.example.bench"

    struct Question: Codable, Hashable, Sendable {
        var key: String
        var n: Int
    }

    let world: AppexTestEnvironment
    let host: ProcessContext
    let hostStore: SecureStore
    let hostRequests: AuxiliaryDataRequestManager
    let widgetRequests: AuxiliaryDataRequestManager
    let share: Data
    let defaults: SharedDefaults

    init() throws {
        world = try AppexTestEnvironment(prefix: "appex-bench-aux")
        let entitlements = Entitlements(applicationGroups: [Self.group], keychainAccessGroups: [SecureWorld.group])
        host = ProcessContext(bundleIdentifier: "com.example.benchhost", team: world.team.teamIdentifier, entitlements: entitlements)
        let widget = ProcessContext(
            bundleIdentifier: "com.example.benchhost.widget",
            team: world.team.teamIdentifier,
            entitlements: entitlements,
            kind: .appExtension
        )
        hostStore = try SecureStore(context: host, configuration: SecureStore.Configuration(environment: world.environment))
        try hostStore.onboard(passcode: SecureWorld.passcode)
        try hostStore.put("s3cret", forKey: "secret")
        hostStore.lock()
        let environment = world.environment
        func requests(_ context: ProcessContext) throws -> AuxiliaryDataRequestManager {
            let security = try AuxiliarySecurityManager(hostBundleIdentifier: "com.example.benchhost", context: context, environment: environment)
            return AuxiliaryDataRequestManager(
                dataStore: try AuxiliaryDataStore(
                    group: AppGroup(Self.group, context: context, environment: environment),
                    encryptionKey: security.getAuxiliaryDataEncryptionKey()
                )
            )
        }
        hostRequests = try requests(host)
        widgetRequests = try requests(widget)
        share = try AuxiliarySecurityManager(hostBundleIdentifier: "com.example.benchhost", context: widget, environment: world.environment)
            .getESPAKAuxiliary()
        defaults = try SharedDefaults(group: AppGroup(Self.group, context: host, environment: world.environment))
    }

    /// The host's answer to one claimed request: its store opened with the request's share.
    func answer(_ claim: AuxiliaryDataRequestClaim) throws(AppexError) -> Data {
        let question = try claim.info(as: Question.self)
        try hostStore.open(eSPAKAuxiliary: claim.eSPAKAux)
        let value = try hostStore.get(question.key, as: String.self) ?? "?"
        hostStore.lock()
        return Data("\(value):\(question.n)".utf8)
    }
}

/// One auxiliary request's path in parts (nanoseconds), from the spans AppexStore finished.
struct AuxParts {
    /// The metrics, in the order of ``values``: Scripts/bench.sh prints each "partNAME" as NAME.
    static let metrics = ["partSeal", "partWrite", "partWake", "partClaim", "partAnswer", "partReadBack"].map {
        BenchmarkMetric.custom($0, polarity: .prefersSmaller, useScalingFactor: false)
    }

    /// Records every span's name and times, from the first use on.
    static let tracer: SpanTimes = {
        let tracer = SpanTimes()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()

    let values: [Int]

    /// The parts of the one request whose spans `spans` are; `nil` when one is missing.
    init?(_ spans: [SpanTimes.Finished]) {
        func span(_ name: String) -> SpanTimes.Finished? { spans.first { $0.operationName == name } }
        // The host's claim that took the request: the first claim after the put (the next,
        // empty one comes after the answer).
        guard let seal = span("appex.aux.seal"), let put = span("appex.aux.put"), let answer = span("appex.aux.answer"),
            let wait = span("appex.aux.wait"),
            let claim = spans.filter({ $0.operationName == "appex.aux.claim" && $0.start >= put.end }).min(by: { $0.start < $1.start })
        else { return nil }
        func between(_ from: UInt64, _ to: UInt64) -> Int { Int(to) - Int(from) }
        values = [
            between(seal.start, seal.end),
            between(put.start, put.end) - between(seal.start, seal.end),
            between(put.end, claim.start),
            between(claim.start, claim.end),
            between(claim.end, answer.end),
            between(answer.end, wait.end),
        ]
    }
}

/// A tracer that keeps only what the parts need, each span's name, start and end: cheap enough
/// not to move the figure it dissects (swift-distributed-tracing's InMemoryTracer added ~50 us
/// to the round trip, in IDs, contexts and locks).
final class SpanTimes: Tracer, Sendable {
    struct Finished: Sendable {
        let operationName: String
        let start: UInt64
        let end: UInt64
    }

    final class TimedSpan: Tracing.Span, Sendable {
        private let tracer: SpanTimes
        private let name: String
        private let start: UInt64
        let context: InstrumentationContext

        init(_ name: String, start: UInt64, context: InstrumentationContext, tracer: SpanTimes) {
            (self.name, self.start, self.context, self.tracer) = (name, start, context, tracer)
        }

        var operationName: String {
            get { name }
            set {}
        }
        var attributes: SpanAttributes {
            get { [:] }
            set {}
        }
        var isRecording: Bool { true }
        func setStatus(_ status: SpanStatus) {}
        func addEvent(_ event: SpanEvent) {}
        func addLink(_ link: SpanLink) {}
        func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {}
        func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
            let finished = Finished(operationName: name, start: start, end: instant().nanosecondsSinceEpoch)
            tracer.finished.withLock { $0.append(finished) }
        }
    }

    fileprivate let finished = Mutex<[Finished]>([])

    /// The spans ended since the last ``clearFinishedSpans()``.
    var finishedSpans: [Finished] { finished.withLock { $0 } }
    func clearFinishedSpans() { finished.withLock { $0.removeAll(keepingCapacity: true) } }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> InstrumentationContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> TimedSpan {
        TimedSpan(operationName, start: instant().nanosecondsSinceEpoch, context: context(), tracer: self)
    }

    func forceFlush() {}
    func extract<Carrier, Extract>(_ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract)
    where Extract: Extractor, Extract.Carrier == Carrier {}
    func inject<Carrier, Inject>(_ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject)
    where Inject: Injector, Inject.Carrier == Carrier {}
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

    /// As ``paired``, for async work.
    @Sendable func pairedAsync(
        _ benchmark: Benchmark,
        ours: () async throws -> Duration,
        baseline: () async throws -> Duration
    ) async rethrows {
        for iteration in benchmark.scaledIterations {
            for oursNow in iteration % 2 == 0 ? [true, false] : [false, true] {
                let elapsed = oursNow ? try await ours() : try await baseline()
                benchmark.measurement(oursNow ? latency : pairedBaseline, nanoseconds(elapsed))
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

    let unlocks = Benchmark.Configuration(metrics: [latency, pairedBaseline], timeUnits: .microseconds, warmupIterations: 1,
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

    let parts = AuxParts.metrics
    let roundtrips = Benchmark.Configuration(metrics: [latency] + parts, timeUnits: .microseconds, warmupIterations: 3,
                                             maxDuration: .seconds(10), maxIterations: 200)
    Benchmark("aux.request.roundtrip", configuration: roundtrips) { benchmark in
        let world = AuxWorld.shared
        let tracer = AuxParts.tracer
        let server = Task.detached {
            try await world.hostRequests.serveDataRequestsUntilCancelled { claim throws(AppexError) in try world.answer(claim) }
        }
        defer { server.cancel() }
        for iteration in benchmark.scaledIterations {
            tracer.clearFinishedSpans()
            let start = ContinuousClock.now
            let asked = try world.widgetRequests.putDataRequest(
                AuxiliaryDataRequest(info: AuxWorld.Question(key: "secret", n: iteration), eSPAKAux: world.share, kind: "echo")
            )
            let answered = try await world.widgetRequests.completion(of: asked, within: .seconds(10))
            benchmark.measurement(latency, nanoseconds(ContinuousClock.now - start))
            precondition(answered.response == Data("s3cret:\(iteration)".utf8), "a wrong answer")
            if let measured = AuxParts(tracer.finishedSpans) {
                for (metric, value) in zip(parts, measured.values) { benchmark.measurement(metric, value) }
            }
        }
    }

    let drains = Benchmark.Configuration(metrics: [latency, pairedBaseline], timeUnits: .microseconds, warmupIterations: 1,
                                         maxDuration: .seconds(30), maxIterations: 10)
    Benchmark("aux.serve.100", configuration: drains) { benchmark in
        let world = AuxWorld.shared
        var round = 0
        try await pairedAsync(benchmark) {
            round += 1
            for n in 0..<100 {
                _ = try world.widgetRequests.putDataRequest(
                    AuxiliaryDataRequest(info: AuxWorld.Question(key: "secret", n: round * 1000 + n), eSPAKAux: world.share, kind: "echo")
                )
            }
            let start = ContinuousClock.now
            let served = try await world.hostRequests.serveDataRequests { claim throws(AppexError) in try world.answer(claim) }
            let elapsed = ContinuousClock.now - start
            precondition(served == 100, "served \(served), not 100")
            try world.hostRequests.purgeDataRequests()
            return elapsed
        } baseline: {
            let start = ContinuousClock.now
            for n in 0..<100 { try world.defaults.set(round * 1000 + n, forKey: "drain") }
            return ContinuousClock.now - start
        }
    }

    applySmokeModeIfAsked()  // last: every benchmark above runs once under Scripts/bench.sh --smoke
}
