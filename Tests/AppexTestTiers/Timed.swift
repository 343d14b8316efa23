import Foundation
import Synchronization
import Testing

/// Times each test case's own run, from its start to its end, and appends it to the file
/// `APPEX_TEST_TIMINGS` names (when it names one): `Scripts/test.sh` prints the ten slowest.
///
/// Swift Testing's own "passed after" counts from the start of the whole run, queue wait
/// included, and a test that takes no parameters reports no case of its own; this measures the
/// test alone. Every suite carries it (`@Suite(.timed)`; `Scripts/test.sh` checks).
struct TimedTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil, let path = ProcessInfo.processInfo.environment["APPEX_TEST_TIMINGS"] else {
            return try await function()
        }
        let started = ContinuousClock.now
        defer {
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let suite = test.id.nameComponents.dropLast().last.map { "\($0) " } ?? ""
            let line = String(format: "%.3f\t", seconds) + suite + (test.displayName ?? test.name) + "\n"
            Self.append(line, to: path)
        }
        try await function()
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
    /// Times each test of the suite (see ``TimedTrait``).
    static var timed: Self { TimedTrait() }
}
