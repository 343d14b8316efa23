import AppexCore
import AppexHost
import AppexTesting
import AppexSystem
import Foundation
import Synchronization
import Testing

/// The folder of fixture files committed with the tests.
let fixturesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

/// The `appex` executable built beside the test bundle.
let appexExecutable: String = {
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var folder = URL(fileURLWithPath: me).deletingLastPathComponent()
    // On macOS the test bundle is a directory: Foo.xctest/Contents/MacOS/Foo.
    while folder.path != "/" && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("appex").path) {
        folder.deleteLastPathComponent()
    }
    return folder.appendingPathComponent("appex").path
}()

/// What a finished child process said.
struct ProcessOutput {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

/// Runs `executable` with `arguments` and waits for it, killing it after `timeout` seconds so a
/// hung child can never outlive the test. The waiting happens on a thread of its own, never on
/// Swift's cooperative pool, so tests that run children do not starve tests that await.
func run(_ executable: String, _ arguments: [String], environment: [String: String], input: String? = nil, timeout: Double = 30) async throws -> ProcessOutput {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = environment
    let out = Pipe(), err = Pipe(), inPipe = Pipe()
    process.standardOutput = out
    process.standardError = err
    if input != nil { process.standardInput = inPipe }
    try process.run()
    if let input {
        inPipe.fileHandleForWriting.write(Data(input.utf8))
        try inPipe.fileHandleForWriting.close()
    }
    let pid = process.processIdentifier
    let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    let box = UncheckedBox((process, out, err, watchdog))
    return await withCheckedContinuation { continuation in
        startDetachedThread(name: "test.child") {
            let (process, out, err, watchdog) = box.value
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            watchdog.cancel()
            continuation.resume(returning: ProcessOutput(
                status: process.terminationStatus,
                standardOutput: String(decoding: stdout, as: UTF8.self),
                standardError: String(decoding: stderr, as: UTF8.self)))
        }
    }
}

/// Carries a value that is used by one thread at a time across a thread hop.
struct UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// Runs the `appex` CLI in `world`.
func appex(_ arguments: String..., in world: AppexTestEnvironment, input: String? = nil) async throws -> ProcessOutput {
    try await run(appexExecutable, arguments, environment: world.processVariables, input: input)
}

/// A host app with one point, `com.example.hostapp.HostAppFeature`, and a world to put it in.
struct HostFixture {
    static let hostIdentifier = "com.example.hostapp"
    static let point = "com.example.hostapp.HostAppFeature"

    let world: AppexTestEnvironment
    let hostPath: String

    init(points: [String] = ["HostAppFeature"]) throws {
        world = try AppexTestEnvironment()
        hostPath = world.root.appending("HostApp.app")
        try FixtureBundles.makeHostApp(at: hostPath, bundleIdentifier: Self.hostIdentifier, extensionPoints: points, signedBy: world.team)
    }

    var hostExtensions: String { hostPath + "/Extensions" }

    /// Adds an extension inside the host (`inHost`) or on the search path, signed by the world's team.
    @discardableResult
    func addExtension(_ name: String, id: String, inHost: Bool, point: String = HostFixture.point, format: PropertyListFormat = .xml,
                      signedBy key: SigningKey? = nil, unsigned: Bool = false) throws -> String {
        try FixtureBundles.makeExtension(in: inHost ? hostExtensions : world.searchFolder, name: name, bundleIdentifier: id,
                                         extensionPoint: point, format: format, signedBy: unsigned ? nil : (key ?? world.team))
    }

    func discovery() throws -> ExtensionDiscovery {
        try ExtensionDiscovery(hostBundleAt: hostPath, environment: world.environment)
    }

    func state(of id: String) throws -> DiscoveredExtension.State? {
        try discovery().snapshot().extensions.first { $0.bundleIdentifier == id && !$0.problems.contains { $0.kind == .duplicateBundleIdentifier } }?.state
    }
}

/// `body`'s result, or `nil` when it takes longer than `seconds` (the test then fails on `nil`).
func withTimeout<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async -> T) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Waits until the monitor's updates show a snapshot that satisfies `condition`, or fails
/// after `seconds`.
func waitForUpdate(of monitor: AppExtensionPoint.Monitor, within seconds: Double = 10,
                   where condition: @escaping @Sendable (AppExtensionPoint.Monitor.Snapshot) -> Bool,
                   sourceLocation: SourceLocation = #_sourceLocation) async -> AppExtensionPoint.Monitor.Snapshot? {
    let updates = monitor.updates
    let result = await withTimeout(seconds: seconds) { () -> AppExtensionPoint.Monitor.Snapshot? in
        for await snapshot in updates where condition(snapshot) { return snapshot }
        return nil
    } ?? nil
    if result == nil { Issue.record("no monitor update satisfied the condition within \(seconds) s", sourceLocation: sourceLocation) }
    return result
}


/// Whether `pid` names a live process (not gone, not a zombie waiting for its parent).
func isRunning(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return false }
    let state = stat[stat.index(after: close)...].split(separator: " ").first
    return state != "Z" && state != "X"
}

/// Checks `condition` until it holds or `seconds` pass (event-free conditions only, such as a
/// process ending). - Returns: whether it held.
func eventually(within seconds: Double, _ condition: @escaping @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// The first `count` elements of `sequence`, or those that came within `seconds` (a test then
/// fails on the count instead of hanging).
func collect<Sequence: AsyncSequence & Sendable>(_ count: Int, of sequence: Sequence, within seconds: Double = 10) async -> [Sequence.Element]
where Sequence.Element: Sendable, Sequence.Failure == Never {
    let box = Mutex<[Sequence.Element]>([])
    _ = await withTimeout(seconds: seconds) {
        for await element in sequence {
            let total = box.withLock { items -> Int in
                items.append(element)
                return items.count
            }
            if total == count { break }
        }
        return true
    }
    return box.withLock { $0 }
}
