import Synchronization

/// A signal a waiting task wakes on: from the event thread (a directory changed) or a timer.
/// A signal that comes while nobody waits is kept for the next wait.
package final class Wakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
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

    /// Waits for a signal, at most `timeout`; returns at once if one is pending.
    package func wait(atMost timeout: Duration) async {
        let timer = Task { [weak self] in
            // Cancelled (the wait ended otherwise), the timer must not leave a signal behind: the
            // next wait would return at once, and the loop would spin.
            do { try await Task.sleep(for: timeout) } catch { return }
            self?.signal()
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            signal()
        }
        state.withLock { $0.pending = false }
    }
}
