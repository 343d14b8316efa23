import AppexSystem
import Foundation
import Synchronization

extension SharedDefaults {
    /// The suite's changes from the moment of this call, in commit order, made by any process.
    ///
    /// Not lossy, unlike Darwin notifications: every commit is numbered in the suite's change
    /// log, and the observer reads the log from the last number it delivered, so a burst of
    /// writes is delivered whole and in order. Nothing runs until the sequence is iterated: then
    /// the process's event thread wakes it on changes to the suite's directory — every writer
    /// touches `<suite>.sqlite-committed` once its commit is visible — and checks every 100 ms as
    /// well (for writers that are not Appex; every 20 ms where inotify is not available).
    /// Observing stops when the iterator is dropped or its task is cancelled. A stored value
    /// that cannot be read is passed over; it does not end the sequence.
    ///
    /// - Parameter key: only changes of this key; `nil`: every key.
    public func changes(forKey key: String? = nil) -> Changes {
        // "From now on": the number of the last change before the call. If the database cannot
        // be read now, the observer takes it at its first successful read instead of replaying
        // the whole log as new.
        Changes(defaults: self, key: key, start: try? database.read(DefaultsTable.lastSequence))
    }

    /// The committed changes of a suite, as an `AsyncSequence`: see ``SharedDefaults/changes(forKey:)``.
    public struct Changes: AsyncSequence, Sendable {
        public typealias Element = Change
        public typealias Failure = Never

        let defaults: SharedDefaults
        let key: String?
        let start: Int64?

        /// Starts observing.
        public func makeAsyncIterator() -> Iterator {
            Iterator(observation: Observation(defaults: defaults, key: key, start: start))
        }

        /// Delivers the changes; observing ends when it is dropped.
        public struct Iterator: AsyncIteratorProtocol {
            fileprivate let observation: Observation
            private var changes: AsyncStream<Change>.Iterator

            fileprivate init(observation: Observation) {
                self.observation = observation
                self.changes = observation.stream.makeAsyncIterator()
            }

            /// The next change; `nil` once observing ended.
            public mutating func next() async -> Change? {
                await changes.next()
            }

            /// The next change; `nil` once observing ended.
            public mutating func next(isolation actor: isolated (any Actor)?) async -> Change? {
                await changes.next(isolation: actor)
            }
        }
    }

    /// One observer: its event-thread registrations, and where it is in the change log.
    fileprivate final class Observation: Sendable {
        let stream: AsyncStream<Change>
        private let continuation: AsyncStream<Change>.Continuation
        private let defaults: SharedDefaults
        private let key: String?
        /// The last change delivered (`nil`: not known yet); held while reading and yielding, so
        /// the event thread and the first read never deliver one change twice or out of order.
        private let last: Mutex<Int64?>
        private let registrations = Registrations()

        /// The event-thread registrations, cancelled once (when iteration ends or the observer goes).
        final class Registrations: Sendable {
            private let tokens = Mutex<[EventThread.Token]>([])
            func set(_ new: [EventThread.Token]) { tokens.withLock { $0 = new } }
            func cancelAll() {
                for token in tokens.withLock({ tokens in
                    defer { tokens = [] }
                    return tokens
                }) { EventThread.shared.cancel(token) }
            }
        }

        init(defaults: SharedDefaults, key: String?, start: Int64?) {
            (stream, continuation) = AsyncStream<Change>.makeStream(bufferingPolicy: .unbounded)
            self.defaults = defaults
            self.key = key
            self.last = Mutex(start)
            let events = EventThread.shared
            var tokens: [EventThread.Token] = []
            let directory = (defaults.path as NSString).deletingLastPathComponent
            let watched =
                (try? events.whenDirectoryChanges(directory) { [weak self] in self?.deliver() }).map {
                    tokens.append($0)
                } != nil
            if let timer = events.every(.milliseconds(watched ? 100 : 20), { [weak self] in self?.deliver() }) {
                tokens.append(timer)
            }
            registrations.set(tokens)
            if tokens.isEmpty { continuation.finish() }  // no event thread: nothing could deliver
            let registrations = self.registrations
            continuation.onTermination = { _ in registrations.cancelAll() }
            deliver()
        }

        deinit {
            registrations.cancelAll()
            continuation.finish()
        }

        /// Yields every change logged since the last one delivered.
        func deliver() {
            last.withLock { last in
                guard let from = last else {
                    last = try? defaults.database.read(DefaultsTable.lastSequence)
                    return
                }
                for change in defaults.changes(after: from) {
                    last = change.sequence
                    if key == nil || change.key == key { continuation.yield(change) }
                }
            }
        }
    }
}
