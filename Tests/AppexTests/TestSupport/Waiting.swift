import AppexHost
import Foundation
import Synchronization
import Testing

// Waiting in tests: on the event itself (a stream's element, a monitor update, a log record, a
// pidfd), always with a deadline, so a test that would hang fails instead, saying what it
// waited for. Polling (`eventually`) only where no event exists.

/// `body`'s result, or `nil` when it takes longer than `seconds` (the test then fails on `nil`).
func withTimeout<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async -> T) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))  // the deadline itself
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Waits until the monitor's updates show a snapshot that satisfies `condition`, or fails
/// after `seconds`.
func waitForUpdate(
    of monitor: AppExtensionPoint.Monitor,
    within seconds: Double = 10,
    where condition: @escaping @Sendable (AppExtensionPoint.Monitor.Snapshot) -> Bool,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> AppExtensionPoint.Monitor.Snapshot? {
    let updates = monitor.updates
    let result =
        await withTimeout(seconds: seconds) { () -> AppExtensionPoint.Monitor.Snapshot? in
            for await snapshot in updates where condition(snapshot) { return snapshot }
            return nil
        } ?? nil
    if result == nil {
        Issue.record("no monitor update satisfied the condition within \(seconds) s", sourceLocation: sourceLocation)
    }
    return result
}

/// Checks `condition` until it holds or `seconds` pass — only for conditions no event announces
/// (a process state another component changes, such as its reaping). - Returns: whether it held.
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
func collect<Sequence: AsyncSequence & Sendable>(
    _ count: Int,
    of sequence: Sequence,
    within seconds: Double = 10
) async -> [Sequence.Element]
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

/// The first element of `sequence`, or `nil` — and a failure naming `what` — when none came
/// within `seconds`.
func firstElement<Sequence: AsyncSequence & Sendable>(
    of sequence: Sequence,
    within seconds: Double = 10,
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> Sequence.Element?
where Sequence.Element: Sendable, Sequence.Failure == Never {
    let element = await collect(1, of: sequence, within: seconds).first
    if element == nil { Issue.record("\(what): nothing within \(seconds) s", sourceLocation: sourceLocation) }
    return element
}
