// Store figures, each beside its raw SQLite baseline measured in the same run: shared defaults
// (issue 4) and the shared keychain. Every figure is read from the custom metric "latency"
// (nanoseconds, one value per operation).
//
// Shared defaults: ours is SharedDefaults(group:) of app group group.com.example.bench in a
// temporary APPEX_HOME; the baselines use the sqlite3 C API (RawSQLite's RawTable) on a table
// t (key TEXT PRIMARY KEY, value BLOB) in a WAL database with synchronous = FULL, in a directory
// of its own.
//
// - defaults.read.cached: SharedDefaults.integer(forKey:) of a stored key, with no write in
//   between (every read a cache hit, checked against the WAL index). Reads are timed 1,000 at a
//   time and each value is that time / 1,000: the time of one read. Baseline: the prepared
//   `SELECT value FROM t WHERE key = ?` bound, stepped and reset on the same kind of row, timed
//   the same way. Target: ≥ 1M reads/s (≤ 1 µs a read).
// - defaults.write.durable: SharedDefaults.set(_:forKey:) of a new integer each time (an
//   IMMEDIATE transaction, the entry and its change-log row, a commit synced to disk). Each write
//   is timed. Baseline: BEGIN IMMEDIATE, `INSERT ... ON CONFLICT(key) DO UPDATE` of the same
//   row, COMMIT, each prepared once. Target: ≤ 2× the baseline's time.
// - defaults.notify (p50, p99): from set(_:forKey:) returning in this process to the moment
//   another process (Fixtures/DefaultsObserver, `ours`), iterating changes(forKey:), has
//   written that change's value back on a pipe and this process has read it. Baseline: the same
//   executable in `raw` mode (inotify IN_MODIFY on the raw database's directory, a raw SELECT of
//   the key on each wake-up, a byte written when the value differs), after a raw durable write
//   as above. Target: p99 ≤ 20 ms.
//
// Shared keychain: ours is SharedKeychain(context: .owner) in a temporary APPEX_HOME (its root
// key in <home>-keys, outside it), holding one item of access group TEAMID.com.example.bench:
// a 64-byte secret with a label, both sealed with AES-256-GCM (WAL, synchronous = FULL,
// secure_delete). The baselines use the sqlite3 C API (RawSQLite's RawKeychain) on a table item
// with the same columns unencrypted (access_group, service, account, data BLOB, label, created,
// modified; primary key (access_group, service, account)) in a WAL database with
// synchronous = FULL, in a directory of its own, holding the same item.
//
// - keychain.read.brokered: the same read in a sandboxed extension, through its host's broker
//   (and the extension's cache, valid while the keychain's WAL index is unchanged). Baseline:
//   keychain.read in the same run (target: at most 3x).
// - keychain.read: SharedKeychain.item(service:account:accessGroup:) of the item (a read
//   transaction, the row, the item key unwrapped and the data and label opened). Reads are timed
//   100 at a time and each value is that time / 100. Baseline: the prepared
//   `SELECT access_group, service, account, data, label, created, modified FROM item WHERE
//   access_group = ? AND service = ? AND account = ?` bound, stepped, every column read out
//   (strings, the data as Data, the dates as doubles) and reset, timed the same way.
// - keychain.write: SharedKeychain.set(_:service:account:accessGroup:) replacing the item's
//   secret with a new 64-byte one, label kept (an IMMEDIATE transaction: the old row read and its
//   label opened, a new item key, the data and label sealed, the upsert, a commit meant to be
//   synced to disk: see the caution below).
//   Each write is timed. Baseline: BEGIN IMMEDIATE, `INSERT ... ON CONFLICT(access_group,
//   service, account) DO UPDATE SET data, modified` of the same row, COMMIT, each prepared once.
//
// Caution (measured when the keychain figures were added): SharedDatabase.open asks for
// synchronous = FULL in GRDB's prepareDatabase, but GRDB's DatabaseQueue then switches the file
// to WAL and sets synchronous = NORMAL, so ours did not sync each commit (strace: about one
// fdatasync per 100 writes, at checkpoints) while the baselines do. Until that is fixed,
// defaults.write.durable and keychain.write compare unsynced commits with synced ones.
import AppexCore
import AppexHost
import AppexStore
import AppexTesting
import Benchmark
import BenchSmoke
import Foundation
import RawSQLite
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A defaults suite and a raw SQLite table side by side, made once per benchmark process.
final class StoreWorld: Sendable {
    static let shared: StoreWorld = {
        do { return try StoreWorld() } catch {
            FileHandle.standardError.write(Data("cannot build the benchmark fixture: \(error)\n".utf8))
            exit(1)
        }
    }()

    static let group = "group.com.example.bench"

    let world: AppexTestEnvironment
    let defaults: SharedDefaults
    let raw: RawTable
    let binDirectory: String
    /// The next value to write: every write changes its key (SharedDefaults skips a write that
    /// changes nothing), and the observers echo its low byte.
    private let counter = Atomic<Int>(0)

    init() throws {
        world = try AppexTestEnvironment(prefix: "appex-bench-store")
        defaults = try SharedDefaults(group: AppGroup(Self.group, context: .owner, environment: world.environment))
        let rawDirectory = world.root.appending("Raw")
        try FileManager.default.createDirectory(atPath: rawDirectory, withIntermediateDirectories: true)
        raw = try RawTable(path: rawDirectory + "/raw.sqlite")
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        binDirectory = URL(fileURLWithPath: me).deletingLastPathComponent().path
        try defaults.set(42, forKey: "cached")
        try raw.write(42, forKey: "cached")
    }

    func next() -> Int { counter.add(1, ordering: .relaxed).newValue }
}

/// A shared keychain and a raw SQLite table of the same columns side by side, made once per
/// benchmark process (each holding the item the figures read and replace).
/// A host app whose extension (BenchKeychainExtension) is entitled to KeychainWorld's group, in
/// KeychainWorld's environment, launched once.
final class BrokeredKeychainWorld: Sendable {
    static let shared: BrokeredKeychainWorld = {
        do { return try BrokeredKeychainWorld() } catch {
            FileHandle.standardError.write(Data("cannot build the brokered keychain fixture: \(error)\n".utf8))
            exit(1)
        }
    }()

    let process: AppExtensionProcess

    init() throws {
        let keychain = KeychainWorld.shared
        let world = keychain.world
        let host = world.root.appending("HostApp.app")
        try FixtureBundles.makeHostApp(at: host, bundleIdentifier: "com.example.hostapp", extensionPoints: ["HostAppFeature"], signedBy: world.team)
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let executable = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("BenchKeychainExtension").path
        try FixtureBundles.bundle(
            executable: executable,
            in: host + "/Extensions",
            name: "Reader",
            bundleIdentifier: "com.example.reader",
            extensionPoint: ExtensionPointIdentifier(host: "com.example.hostapp", name: "HostAppFeature"),
            entitlements: Entitlements(applicationGroups: [], keychainAccessGroups: [KeychainWorld.group]),
            signedBy: world.team
        )
        let discovery = try ExtensionDiscovery(hostBundleAt: host, environment: world.environment)
        guard let identity = try discovery.snapshot().extensions.first?.identity else {
            preconditionFailure("the brokered keychain benchmark's extension is not valid")
        }
        process = try AppExtensionProcess(
            configuration: .init(identity: identity, hostBundlePath: host, environment: world.environment),
            discovery: discovery
        )
    }
}

final class KeychainWorld: Sendable {
    static let shared: KeychainWorld = {
        do { return try KeychainWorld() } catch {
            FileHandle.standardError.write(Data("cannot build the keychain benchmark fixture: \(error)\n".utf8))
            exit(1)
        }
    }()

    static let group = "TEAMID.com.example.bench"
    static let service = "api.example.com"
    static let account = "ada"
    static let label = "Ada's API token"

    let world: AppexTestEnvironment
    let keychain: SharedKeychain
    let raw: RawKeychain
    /// The secret both hold at the start (64 bytes).
    let secret: Data
    private let counter = Atomic<UInt64>(0)

    init() throws {
        world = try AppexTestEnvironment(prefix: "appex-bench-keychain")
        // The root key goes to <home>-keys, beside APPEX_HOME, never inside it.
        keychain = try SharedKeychain(context: .owner, environment: world.environment)
        let rawDirectory = world.root.appending("Raw")
        try FileManager.default.createDirectory(atPath: rawDirectory, withIntermediateDirectories: true)
        raw = try RawKeychain(path: rawDirectory + "/keychain.sqlite")
        secret = Self.secret(0)
        try keychain.set(secret, service: Self.service, account: Self.account, label: Self.label, accessGroup: Self.group)
        try raw.set(secret, label: Self.label, group: Self.group, service: Self.service, account: Self.account)
    }

    /// A 64-byte secret unlike every earlier one.
    func nextSecret() -> Data { Self.secret(counter.add(1, ordering: .relaxed).newValue) }

    /// Secret number `number`: 64 bytes, eight copies of the number.
    static func secret(_ number: UInt64) -> Data {
        var word = number
        var secret = Data(capacity: 64)
        for _ in 0..<8 { withUnsafeBytes(of: &word) { secret.append(contentsOf: $0) } }
        return secret
    }
}

/// A running DefaultsObserver: its stdin (closed to end it) and its stdout (one byte a change).
final class Observer: Sendable {
    let pid: pid_t
    let input: Int32
    let output: Int32

    /// Spawns `DefaultsObserver arguments...` with `environment` and waits for its "ready".
    init(arguments: [String], environment: [String: String]) throws {
        let path = StoreWorld.shared.binDirectory + "/DefaultsObserver"
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { throw Failure("pipe: \(String(cString: strerror(errno)))") }
        // Close-on-exec (pipe2 is not imported): the child gets its ends as 0 and 1 only.
        for end in toChild + fromChild { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        // A child of a Swift thread would inherit its blocked signals: start it with none
        // blocked and every disposition at its default.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        close(toChild[0])
        close(fromChild[1])
        guard spawned == 0 else {
            close(toChild[1])
            close(fromChild[0])
            throw Failure("cannot spawn \(path): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        input = toChild[1]
        output = fromChild[0]
        var line: [UInt8] = []
        while !line.elementsEqual("ready\n".utf8) {
            line.append(try readByte())
            guard "ready\n".utf8.starts(with: line) else { throw Failure("the observer said \(String(decoding: line, as: UTF8.self))") }
        }
    }

    /// The next byte the observer writes, waiting up to 10 s for it.
    func readByte() throws -> UInt8 {
        var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&descriptor, 1, 10_000)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { throw Failure("the observer said nothing for 10 s") }
            var byte: UInt8 = 0
            let count = read(output, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { throw Failure("the observer ended") }
            return byte
        }
    }

    /// Ends the observer and reaps it.
    func stop() {
        close(input)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        close(output)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// The observer of the running notify benchmark (started by its setup, stopped by its teardown).
let runningObserver = Mutex<Observer?>(nil)

let benchmarks: @Sendable () -> Void = {
    let latency = BenchmarkMetric.custom("latency", polarity: .prefersSmaller, useScalingFactor: false)

    // Reads: each sample times `unitsPerSample` runs of 1,000 reads and records the time per read.
    let reads = Benchmark.Configuration(metrics: [.wallClock, latency], timeUnits: .microseconds, warmupIterations: 2,
                                        maxDuration: .seconds(10), maxIterations: 20)

    /// Times `units` runs of `readsPerUnit` calls of `read`, recording the time per read.
    @Sendable func timeReads(_ benchmark: Benchmark, units: Int = 200, readsPerUnit: Int = 1_000, _ read: () throws -> Void) rethrows {
        for _ in 0..<units {
            let start = ContinuousClock.now
            for _ in 0..<readsPerUnit { try read() }
            benchmark.measurement(latency, nanoseconds(ContinuousClock.now - start) / readsPerUnit)
        }
    }

    Benchmark("defaults.read.cached", configuration: reads) { benchmark in
        let defaults = StoreWorld.shared.defaults
        precondition(defaults.integer(forKey: "cached") == 42)
        timeReads(benchmark) { blackHole(defaults.integer(forKey: "cached")) }
    }

    Benchmark("defaults.read.cached.baseline", configuration: reads) { benchmark in
        let raw = StoreWorld.shared.raw
        precondition(raw.read("cached") == 42)
        timeReads(benchmark) { blackHole(raw.read("cached")) }
    }

    // Keychain reads take tens of microseconds (a read transaction and three AES-GCM opens), so
    // their samples are smaller: 20 runs of 100 reads.
    Benchmark("keychain.read", configuration: reads) { benchmark in
        let world = KeychainWorld.shared
        let item = try world.keychain.item(service: KeychainWorld.service, account: KeychainWorld.account, accessGroup: KeychainWorld.group)
        precondition(item?.data == world.secret && item?.label == KeychainWorld.label)
        try timeReads(benchmark, units: 20, readsPerUnit: 100) {
            blackHole(try world.keychain.item(service: KeychainWorld.service, account: KeychainWorld.account, accessGroup: KeychainWorld.group))
        }
    }

    // The same read in a sandboxed extension, through its host's broker: the extension times
    // 100 reads at a time and answers the total (what crosses the process boundary is the
    // first read of each keychain state; the rest are answered from the extension's cache while
    // the keychain's WAL index is unchanged). Baseline: keychain.read, in the host.
    Benchmark("keychain.read.brokered", configuration: reads) { benchmark in
        let process = try BrokeredKeychainWorld.shared.process
        for _ in 0..<20 {
            let reply = try await process.call(Array("read:100".utf8))
            let total = reply.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            benchmark.measurement(latency, Int(total) / 100)
        }
    }

    Benchmark("keychain.read.baseline", configuration: reads) { benchmark in
        let world = KeychainWorld.shared
        let item = world.raw.item(group: KeychainWorld.group, service: KeychainWorld.service, account: KeychainWorld.account)
        precondition(item?.data == world.secret && item?.label == KeychainWorld.label)
        timeReads(benchmark, units: 20, readsPerUnit: 100) {
            blackHole(world.raw.item(group: KeychainWorld.group, service: KeychainWorld.service, account: KeychainWorld.account))
        }
    }

    // Writes and notifications: each sample times `operationsPerSample` operations, one by one.
    let operations = Benchmark.Configuration(metrics: [.wallClock, latency], timeUnits: .microseconds, warmupIterations: 1,
                                             maxDuration: .seconds(15), maxIterations: 20)
    let operationsPerSample = 50

    /// Times each of `operationsPerSample` calls of `operation`, recording them in "latency".
    @Sendable func timeEach(_ benchmark: Benchmark, _ operation: () throws -> Void) rethrows {
        for _ in 0..<operationsPerSample {
            let start = ContinuousClock.now
            try operation()
            benchmark.measurement(latency, nanoseconds(ContinuousClock.now - start))
        }
    }

    Benchmark("defaults.write.durable", configuration: operations) { benchmark in
        let world = StoreWorld.shared
        try timeEach(benchmark) { try world.defaults.set(world.next(), forKey: "durable") }
    }

    Benchmark("defaults.write.durable.baseline", configuration: operations) { benchmark in
        let world = StoreWorld.shared
        try timeEach(benchmark) { try world.raw.write(Int64(world.next()), forKey: "durable") }
    }

    // Each write replaces the item's secret with a new one; the label and creation date stay.
    Benchmark("keychain.write", configuration: operations) { benchmark in
        let world = KeychainWorld.shared
        var last = Data()
        try timeEach(benchmark) {
            last = world.nextSecret()
            try world.keychain.set(last, service: KeychainWorld.service, account: KeychainWorld.account, accessGroup: KeychainWorld.group)
        }
        let item = try world.keychain.item(service: KeychainWorld.service, account: KeychainWorld.account, accessGroup: KeychainWorld.group)
        precondition(item?.data == last && item?.label == KeychainWorld.label)
    }

    Benchmark("keychain.write.baseline", configuration: operations) { benchmark in
        let world = KeychainWorld.shared
        var last = Data()
        try timeEach(benchmark) {
            last = world.nextSecret()
            try world.raw.set(last, label: KeychainWorld.label, group: KeychainWorld.group,
                              service: KeychainWorld.service, account: KeychainWorld.account)
        }
        let item = world.raw.item(group: KeychainWorld.group, service: KeychainWorld.service, account: KeychainWorld.account)
        precondition(item?.data == last && item?.label == KeychainWorld.label)
    }

    /// Writes with `write`, then times until the observer echoes the value, `operationsPerSample` times.
    @Sendable func timeNotifications(_ benchmark: Benchmark, _ write: (Int) throws -> Void) throws {
        guard let observer = runningObserver.withLock({ $0 }) else { throw Observer.Failure("no observer is running") }
        let world = StoreWorld.shared
        for _ in 0..<operationsPerSample {
            let value = world.next()
            try write(value)
            let start = ContinuousClock.now
            let echoed = try observer.readByte()
            benchmark.measurement(latency, nanoseconds(ContinuousClock.now - start))
            guard echoed == UInt8(truncatingIfNeeded: value) else {
                throw Observer.Failure("wrote \(value), the observer echoed \(echoed): a change was lost or repeated")
            }
        }
    }
    @Sendable func startObserver(_ arguments: [String]) throws {
        let observer = try Observer(arguments: arguments, environment: StoreWorld.shared.world.processVariables)
        runningObserver.withLock { $0 = observer }
    }
    @Sendable func stopObserver() {
        runningObserver.withLock { observer in
            observer?.stop()
            observer = nil
        }
    }

    Benchmark("defaults.notify", configuration: operations) { benchmark in
        let defaults = StoreWorld.shared.defaults
        try timeNotifications(benchmark) { value in try defaults.set(value, forKey: "notify") }
    } setup: {
        try startObserver(["ours", StoreWorld.group, "notify"])
    } teardown: {
        stopObserver()
    }

    Benchmark("defaults.notify.baseline", configuration: operations) { benchmark in
        let raw = StoreWorld.shared.raw
        try timeNotifications(benchmark) { value in try raw.write(Int64(value), forKey: "notify") }
    } setup: {
        try startObserver(["raw", StoreWorld.shared.raw.path, "notify"])
    } teardown: {
        stopObserver()
    }

    applySmokeModeIfAsked()  // last: every benchmark above runs once under Scripts/bench.sh --smoke
}

/// A duration in whole nanoseconds, for the "latency" metric.
func nanoseconds(_ duration: Duration) -> Int {
    Int(duration.components.seconds) * 1_000_000_000 + Int(duration.components.attoseconds / 1_000_000_000)
}
