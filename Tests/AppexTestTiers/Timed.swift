import Foundation
import Synchronization
public import Testing

/// Runs the tests of the tier `APPEX_TEST_TIER` selects (``Tier``), cancelling the others; times
/// each test case's own run, from its start to its end, and appends it to the file
/// `APPEX_TEST_TIMINGS` names (when it names one): `Scripts/test.sh` prints the ten slowest.
///
/// Swift Testing's own "passed after" counts from the start of the whole run, queue wait
/// included, and a test that takes no parameters reports no case of its own; this measures the
/// test alone. A test case that runs past its tier's limit ends the run, saying what was
/// running (``TestWatchdog``). (A parameterized test of another tier is reported as passed: its cases were
/// cancelled, not run, and Swift Testing 6.3 reports such a test so.) Every suite carries it (`@Suite(.timed)`; `Scripts/test.sh` checks).
public struct TimedTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        if let selected = Tier.selected {
            let tier = Tier.of(test.tags)
            // A suite of another tier is cancelled whole; a main-tier suite runs, for the tests
            // in it that a tag puts in the selected tier (a test's own tag, below).
            if testCase == nil, test.isSuite, tier != .main, tier != selected {
                try Test.cancel("in the \(tier) tier; APPEX_TEST_TIER is \(selected)")
            }
            if testCase != nil, tier != selected {
                try Test.cancel("in the \(tier) tier; APPEX_TEST_TIER is \(selected)")
            }
        }
        guard testCase != nil else { return try await function() }
        let suite = test.id.nameComponents.dropLast().last.map { "\($0) " } ?? ""
        let name = suite + (test.displayName ?? test.name)
        let started = ContinuousClock.now
        defer {
            if let path = ProcessInfo.processInfo.environment["APPEX_TEST_TIMINGS"] {
                let elapsed = ContinuousClock.now - started
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                Self.append(String(format: "%.3f\t", seconds) + name + "\n", to: path)
            }
        }
        try await TestWatchdog.watch(name, in: Tier.of(test.tags), function)
    }

    /// Serializes the appends of parallel tests.
    private static let writing = Mutex(())

    /// Appends `line` to the file at `path`.
    private static func append(_ line: String, to path: String) {
        writing.withLock { _ in appendNow(line, to: path) }
    }

    private static func appendNow(_ line: String, to path: String) {
        guard
            let handle = FileHandle(forWritingAtPath: path)
                ?? {
                    _ = FileManager.default.createFile(atPath: path, contents: nil)
                    return FileHandle(forWritingAtPath: path)
                }()
        else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data(line.utf8))
    }
}

extension Trait where Self == TimedTrait {
    /// Runs the suite's tests in their tier and times each (see ``TimedTrait``).
    public static var timed: Self { TimedTrait() }
}
