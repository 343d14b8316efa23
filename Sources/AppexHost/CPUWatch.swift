import AppexSystem
import Synchronization

/// The host's watch over one extension process's CPU time per call: every call that starts
/// grants the process `budget` more CPU time, counted from where its clock stands when the
/// watch next looks; a process whose clock passes what it was granted is killed, and its end
/// names `cpu-limit` (AppexHost's article "Running extensions in the sandbox").
///
/// The watch reads the process's CPU clock four times a second on the event thread, so no call
/// pays for it, and a process is ended within a quarter of a second (times the threads it keeps
/// busy) of crossing. A call therefore gets at least its budget; one that starts just after a
/// look may get up to a quarter second more.
final class CPUWatch: Sendable {
    /// How often the clock is read.
    static let interval: Duration = .milliseconds(250)

    private let budget: Duration
    /// The CPU time the process may reach, and the call counter when that was decided.
    private let granted: Mutex<(until: Duration, generation: UInt64)>
    private let token = Mutex<EventThread.Token?>(nil)

    private init(budget: Duration, used: Duration, generation: UInt64) {
        self.budget = budget
        // Its launch counts as a call: what it does before the first call is bounded too.
        granted = Mutex((used + budget, generation))
    }

    /// Starts watching `process`, whose calls `calls()` counts (a counter that changes with
    /// every call); `nil` when the event thread is not available.
    static func start(
        _ process: ChildProcess,
        budget: Duration,
        calls: @escaping @Sendable () -> UInt64
    ) -> CPUWatch? {
        let used = ProcessControl.cpuTime(of: process.pid) ?? .zero
        let watch = CPUWatch(budget: budget, used: used, generation: calls())
        let registered = EventThread.shared.every(interval) { [weak watch] in
            watch?.look(at: process, calls: calls())
        }
        guard let registered else { return nil }
        watch.token.withLock { $0 = registered }
        return watch
    }

    /// One look: a call began since the last (the counter moved), so the budget counts from
    /// now; past what was granted, the process is killed for `cpu-limit`.
    private func look(at process: ChildProcess, calls generation: UInt64) {
        guard process.exitStatus == nil, let used = ProcessControl.cpuTime(of: process.pid) else { return }
        let over = granted.withLock { granted -> Bool in
            if granted.generation != generation {
                granted = (max(granted.until, used + budget), generation)
            }
            return used > granted.until
        }
        if over {
            process.kill(for: .cpu)
            stop()
        }
    }

    /// Stops watching (the process ended).
    func stop() {
        if let token = token.withLock({ $0.take() }) { EventThread.shared.cancel(token) }
    }
}
