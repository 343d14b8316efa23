import Synchronization

/// A signal a waiting task wakes on, from any thread (the event thread's watches, a timer, a
/// writer): the one waiter type of Appex. A signal that comes while nobody waits is kept for the
/// next wait. A wakeup resumes the waiting task directly from the signalling thread (one hop: no
/// task group, no timer task).
package final class Wakeup: Sendable {
    private struct State {
        /// A signal came while nobody waited: the next wait returns at once.
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
        /// Stopped: every wait returns at once.
        var stopped = false
    }
    private let state = Mutex(State())

    /// A signal nobody has waited for yet.
    package init() {}

    /// Wakes the waiting task, or the next one to wait.
    package func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Forgets a signal that came since the last wait.
    package func clear() {
        state.withLock { $0.pending = false }
    }

    /// Returns at the next signal (at once when one came since the last wait, or after
    /// ``stop()``), or when the calling task is cancelled.
    package func next() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.pending || state.stopped {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            signal()
        }
    }

    /// Waits for a signal, at most `timeout`; returns at once if one is pending. No signal is
    /// left pending when it returns.
    package func wait(atMost timeout: Duration) async {
        let timer = Task { [weak self] in
            // Cancelled (the wait ended otherwise), the timer must not leave a signal behind: the
            // next wait would return at once, and the loop would spin.
            do { try await Task.sleep(for: timeout) } catch { return }
            self?.signal()
        }
        defer { timer.cancel() }
        await next()
        clear()
    }

    /// Ends waiting: a wait in progress returns, and every later one returns at once.
    package func stop() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.stopped = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
