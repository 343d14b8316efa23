import AppexSystem
import Synchronization

/// Wakes a waiter when a directory changes (each commit touches a file in it) or every 100 ms.
final class CommitWakeups: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let tokens = Mutex<[EventThread.Token]>([])

    init(directory: String) {
        (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let continuation = self.continuation
        var tokens: [EventThread.Token] = []
        if let token = try? EventThread.shared.whenDirectoryChanges(directory, { continuation.yield() }) {
            tokens.append(token)
        }
        if let token = EventThread.shared.every(.milliseconds(100), { continuation.yield() }) { tokens.append(token) }
        self.tokens.withLock { $0 = tokens }
    }

    /// Returns at the next wakeup, or at `deadline`.
    func next(before deadline: ContinuousClock.Instant) async {
        let stream = self.stream
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                _ = await iterator.next()
            }
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            await group.next()
            group.cancelAll()
        }
    }

    func stop() {
        for token in tokens.withLock({ tokens in
            defer { tokens = [] }
            return tokens
        }) { EventThread.shared.cancel(token) }
        continuation.finish()
    }
}
