import Foundation
import Logging
import Synchronization
import Testing

/// A `LogHandler` that keeps every record in memory, for tests of what code logs through the
/// `Logger` it is given (swift-log's best practice "004: Testing code that logs"; its
/// `InMemoryLogging` module is not a dependency of the tests). Make one per test and never
/// bootstrap the logging system. Copies share the records, so the handler a test holds sees
/// what the logger made from it logged.
///
/// Records may come from other threads (the host logs an extension's output from its event
/// thread): ``waitForEntries(within:sourceLocation:until:)`` waits for them, woken by each new
/// record, with a deadline.
struct InMemoryLogHandler: LogHandler {
    /// One record.
    struct Entry: Equatable, Sendable, CustomStringConvertible {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata

        var description: String { "\(level) \(message.debugDescription) \(metadata)" }
    }

    /// The records, and whoever waits for more (woken by each record).
    private final class Store: Sendable {
        let state = Mutex<(entries: [Entry], waiters: [UUID: AsyncStream<Void>.Continuation])>(([], [:]))

        func append(_ entry: Entry) {
            let waiters = state.withLock { state in
                state.entries.append(entry)
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.yield() }
        }
    }

    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    private let store = Store()

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        store.append(
            Entry(
                level: event.level,
                message: "\(event.message)",
                metadata: metadata.merging(event.metadata ?? [:]) { _, new in new }
            )
        )
    }

    /// A logger that logs to this handler.
    var logger: Logger {
        let handler = self
        return Logger(label: "test", factory: { _ in handler })
    }

    /// Every record so far, oldest first.
    var entries: [Entry] { store.state.withLock { $0.entries } }

    /// The records once `condition` holds for them; when it does not within `seconds`, fails
    /// the test, showing what was logged, and returns the records there are.
    @discardableResult
    func waitForEntries(
        within seconds: Double = 10,
        sourceLocation: SourceLocation = #_sourceLocation,
        until condition: @escaping @Sendable ([Entry]) -> Bool
    ) async -> [Entry] {
        let id = UUID()
        let (wakeups, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        // Registered before the first look, so no record slips between looking and waiting.
        store.state.withLock { $0.waiters[id] = continuation }
        defer { store.state.withLock { $0.waiters.removeValue(forKey: id) }?.finish() }
        let store = self.store
        let held =
            await withTimeout(seconds: seconds) { () -> Bool in
                if condition(store.state.withLock({ $0.entries })) { return true }
                for await _ in wakeups where condition(store.state.withLock({ $0.entries })) { return true }
                return false
            } ?? false
        let entries = self.entries
        if !held {
            Issue.record(
                "the log did not reach the expected records within \(seconds) s; it holds:\n\(entries.map(\.description).joined(separator: "\n"))",
                sourceLocation: sourceLocation
            )
        }
        return entries
    }
}
