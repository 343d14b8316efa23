import Synchronization

/// A child process this process spawned and has not yet let go of: its pid, a pidfd where the
/// kernel has them, and how it ended once the event thread reaped it.
///
/// Signals go through the pidfd: after the child is reaped its pid may name another process, and
/// a pidfd can never reach that one. Without pidfds (old kernels) a signal goes by pid only while
/// the child is not yet reaped.
package final class ChildProcess: Sendable {
    /// The child's process id.
    package let pid: Int32
    /// A pidfd of the child, where the kernel has them.
    package let pidfd: OwnedDescriptor?
    private let status = Mutex<ExitStatus?>(nil)
    /// The limit its host ended it for, if it did.
    private let endedFor = Mutex<ExceededLimit?>(nil)

    /// Takes charge of `pid`, a child of this process not yet reaped (so the pid cannot name
    /// another process while its pidfd is opened).
    package init(pid: Int32) {
        self.pid = pid
        self.pidfd = ProcessControl.openPidfd(pid)
    }

    /// How it ended; `nil` while it runs or until the event thread has reaped it.
    package var exitStatus: ExitStatus? { status.withLock { $0 } }

    /// Kills it (SIGKILL), and only it.
    package func kill() {
        signal(Signal.kill)
    }

    /// Sends it `signal`, and only it: through its pidfd, or by pid while it is not yet reaped.
    package func signal(_ signal: Int32) {
        if let pidfd {
            ProcessControl.signal(signal, through: pidfd)
        } else if exitStatus == nil {
            ProcessControl.signal(signal, toProcess: pid)  // no pidfd: a small window remains
        }
    }

    /// Kills it (SIGKILL) because it crossed `limit`: how it ended will name the limit.
    package func kill(for limit: ExceededLimit) {
        endedFor.withLock { $0 = $0 ?? limit }
        kill()
    }

    /// Has the event thread reap it when it ends, record how, then call `onExit` there. The
    /// status names the limit that ended it: one it was killed for, or its `cgroup`'s memory
    /// limit when the kernel's OOM killer ended a process there.
    ///
    /// - Returns: `false` when the event thread is not available (the caller must reap it).
    package func whenExits(
        cgroup: ProcessCgroup? = nil,
        _ onExit: @escaping @Sendable (ExitStatus) -> Void
    ) -> Bool {
        EventThread.shared.whenExits(pid, pidfd: pidfd) { [self] exit in
            var exit = exit
            if let limit = endedFor.withLock({ $0 }) {
                exit.exceededLimit = limit
            } else if exit.signal == Signal.kill, let cgroup, cgroup.memoryLimitKills > 0 {
                exit.exceededLimit = .memory
            }
            status.withLock { $0 = exit }
            onExit(exit)
        }
    }

    /// Waits (blocking, briefly: a reader thread's few milliseconds) until the exit is recorded,
    /// or `timeout` passes. - Returns: how it ended, if known by then.
    package func exitStatus(within timeout: Duration) -> ExitStatus? {
        let deadline = ContinuousClock.now + timeout
        while exitStatus == nil && ContinuousClock.now < deadline {
            ProcessControl.sleep(microseconds: 500)
        }
        return exitStatus
    }
}
