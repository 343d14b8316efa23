import AppexCore
import AppexSystem
import AppexVocabulary
import Dispatch
import Logging
import Synchronization

/// The state behind a monitor: its points, its latest snapshot, its subscribers, and the
/// watching that keeps them current.
///
/// Changes are seen on the process's event thread (``DirectoryWatcher``, its one inotify); the
/// event thread only notes them. Scans run on the monitor's serial queue, one at a time, after
/// a burst of changes settles (10 ms of quiet, at most 50 ms in all).
final class MonitorCore: Sendable {
    typealias Snapshot = AppExtensionPoint.Monitor.Snapshot

    private struct State {
        var points: [ExtensionPointIdentifier]
        var full: DiscoverySnapshot?
        var latest = Snapshot(
            identities: [],
            state: .init(enabledCount: 0, disabledCount: 0, unapprovedCount: 0, invalidCount: 0),
            extensions: []
        )
        var subscribers: [Int: AsyncStream<Snapshot>.Continuation] = [:]
        var nextSubscriber = 0
        var stopped = false
        /// A scan is scheduled: changes until it runs join it.
        var scanScheduled = false
        /// The first and the last change since the scheduled scan was scheduled.
        var firstChange = ContinuousClock.now
        var lastChange = ContinuousClock.now
    }

    /// How long a burst of changes must be quiet before a scan, and the longest it may delay one.
    private static let quiet = Duration.milliseconds(10)
    private static let longestDelay = Duration.milliseconds(50)

    let discovery: ExtensionDiscovery
    /// Called after each new snapshot is published (the monitor tells its observers).
    var onChange: (@Sendable () -> Void)? {
        get { changeHandler.withLock { $0 } }
        set { changeHandler.withLock { $0 = newValue } }
    }
    private let changeHandler = Mutex<(@Sendable () -> Void)?>(nil)
    private let watcher = Mutex<DirectoryWatcher?>(nil)
    private let scans = DispatchQueue(label: "appex.monitor")
    private let logger: Logger
    private let state: Mutex<State>

    init(discovery: ExtensionDiscovery, points: [ExtensionPointIdentifier], logger: Logger) {
        self.discovery = discovery
        self.logger = logger
        self.state = Mutex(State(points: points))
    }

    var latest: Snapshot { state.withLock { $0.latest } }
    var points: [ExtensionPointIdentifier] { state.withLock { $0.points } }

    /// Starts watching and returns once the first scan is published.
    func start() async throws(AppexError) {
        do {
            let made = try DirectoryWatcher { [weak self] in self?.changed() }
            watcher.withLock { $0 = made }
        } catch {
            throw AppexError(
                .fileSystem,
                "cannot watch for changes to the extensions of \(discovery.hostPath)",
                context: AppexError.Context(path: discovery.hostPath),
                underlyingError: error
            )
        }
        let first: Result<Void, AppexError> = await withCheckedContinuation { continuation in
            scans.async { [self] in
                do throws(AppexError) {
                    try scan()
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        try first.get()
    }

    func stop() {
        let subscribers = state.withLock { state in
            state.stopped = true
            let subscribers = state.subscribers.values
            state.subscribers = [:]
            return Array(subscribers)
        }
        for subscriber in subscribers { subscriber.finish() }
        watcher.withLock { $0 }?.stop()
    }

    /// Adds `point` and publishes what the monitor sees of it, on the scan queue, so that no
    /// scan's newer snapshot is overwritten by an older one; returns once it is published.
    func add(_ point: ExtensionPointIdentifier) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            scans.async { [self] in
                let full = state.withLock { state -> DiscoverySnapshot? in
                    if !state.points.contains(point) { state.points.append(point) }
                    return state.full
                }
                if let full { publish(full) }
                continuation.resume()
            }
        }
    }

    func subscribe() -> AsyncStream<Snapshot> {
        let (stream, continuation) = AsyncStream.makeStream(of: Snapshot.self, bufferingPolicy: .bufferingNewest(1))
        let registered = state.withLock { state -> Int? in
            guard !state.stopped else { return nil }
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = continuation
            continuation.yield(state.latest)
            return id
        }
        guard let id = registered else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    /// On the event thread: notes a change, and schedules a scan unless one is scheduled.
    private func changed() {
        let schedule = state.withLock { state -> Bool in
            state.lastChange = .now
            guard !state.scanScheduled, !state.stopped else { return false }
            state.scanScheduled = true
            state.firstChange = state.lastChange
            return true
        }
        if schedule { settleThenScan(after: Self.quiet) }
    }

    /// On the scan queue, `delay` from now: scans once the changes have settled.
    private func settleThenScan(after delay: Duration) {
        let nanoseconds =
            Int(delay.components.seconds) * 1_000_000_000 + Int(delay.components.attoseconds / 1_000_000_000)
        scans.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            guard let self else { return }
            let wait = state.withLock { state -> Duration? in
                let now = ContinuousClock.now
                let quietFor = now - state.lastChange
                let delayedFor = now - state.firstChange
                if quietFor < Self.quiet && delayedFor < Self.longestDelay {
                    return min(Self.quiet - quietFor, Self.longestDelay - delayedFor)
                }
                state.scanScheduled = false  // changes from here on schedule the next scan
                return nil
            }
            if let wait { return settleThenScan(after: wait) }
            do throws(AppexError) { try scan() } catch {
                logger.warning(
                    "extension scan failed",
                    metadata: ["host": "\(discovery.hostPath)", "error": "\(error)"]
                )
            }
        }
    }

    /// On the scan queue: watches, scans, publishes; again at once while the scan found
    /// directories that were not watched (a new bundle: what changed in it during the scan
    /// would have been missed).
    private func scan() throws(AppexError) {
        guard !isStopped, let watcher = watcher.withLock({ $0 }) else { return }
        // Watch before scanning, so nothing that changes during the scan is missed. The last
        // scan watched every directory it found after it ended: unless one was lost since (or
        // could not be watched), they are watched. (A directory another snapshot of the
        // discovery found meanwhile is watched after this scan, which then looks again.)
        if !watcher.isUpToDate { watcher.watch(discovery.watchedDirectories()) }
        repeat {
            guard !isStopped else { return }
            publish(try discovery.snapshot())
        } while watcher.watch(discovery.watchedDirectories())
    }

    private func publish(_ full: DiscoverySnapshot) {
        let (snapshot, subscribers) = state.withLock { state -> (Snapshot?, [AsyncStream<Snapshot>.Continuation]) in
            state.full = full
            let points = Set(state.points)
            let extensions = full.extensions.filter { found in
                guard let point = found.extensionPoint.flatMap(ExtensionPointIdentifier.init) else {
                    return found.state == .invalid
                }
                return points.contains(point)
            }
            let snapshot = Snapshot(
                identities: extensions.compactMap { $0.state == .enabled ? $0.identity : nil },
                state: .init(
                    identities: extensions.compactMap { $0.state == .enabled ? $0.identity : nil },
                    enabledCount: extensions.count { $0.state == .enabled },
                    disabledCount: extensions.count { $0.state == .disabled },
                    unapprovedCount: extensions.count { $0.state == .unapproved },
                    invalidCount: extensions.count { $0.state == .invalid }
                ),
                extensions: extensions
            )
            guard snapshot != state.latest else { return (nil, []) }
            state.latest = snapshot
            return (snapshot, Array(state.subscribers.values))
        }
        guard let snapshot else { return }
        onChange?()
        for subscriber in subscribers { subscriber.yield(snapshot) }
    }
}
