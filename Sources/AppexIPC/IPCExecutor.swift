import AppexSystem
import AppexVocabulary
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The thread that reads a connection's frames, usable as a `TaskExecutor`.
///
/// One plain pthread (never a thread of Swift's cooperative pool) waits in `poll` on the
/// sockets of the connections attached to it and runs the jobs of tasks that prefer it. A
/// request's handler starts on it right after its frame is read, and a caller that prefers it
/// resumes on it right after its reply is read: no thread is woken between the socket and the
/// code, so a round trip costs about what two blocking processes pay.
///
/// ```swift
/// // A latency-sensitive caller: make every call of this loop resume on the reader thread.
/// try await withTaskExecutorPreference(process.executor) {
///     for request in requests { _ = try await process.call(request) }
/// }
/// ```
///
/// Code that runs here holds up the connections attached: await rather than block, and move
/// long computations elsewhere (another task without this preference). Once ``shutdown()``,
/// jobs still queued or enqueued later go to Swift's global concurrent executor: none is lost.
public final class IPCExecutor: TaskExecutor, Sendable {
    private struct State: ~Copyable {
        var jobs: [UnownedJob] = []
        var head = 0
        /// The thread is about to wait (or waits) in `poll`: enqueuing must wake it.
        var sleeping = false
        var stopped = false
        var sources: [any IPCExecutorSource] = []
        var thread: ThreadIdentity?
    }

    private let state = Mutex(State())
    private let wakePipe: WakePipe?
    private let spin: Duration

    /// Starts the executor's thread.
    ///
    /// - Parameters:
    ///   - name: the thread's name (for debuggers, on Darwin).
    ///   - spin: how long the thread keeps checking for a reply, without sleeping, while a
    ///     call of one of its connections waits for one (default 50 µs; `.zero` never spins).
    ///     A reply that comes within it is read without a thread wake-up — about a third of a
    ///     round trip on a VM. An executor with no call waiting never spins.
    public init(name: String = "appex.ipc", spin: Duration = .microseconds(50)) {
        self.spin = spin
        wakePipe = try? WakePipe()
        let started = wakePipe != nil && startDetachedThread(name: name) { [self] in self.run() }
        if !started { state.withLock { $0.stopped = true } }
    }

    /// How long the thread looks for a reply before sleeping; a caller off the thread that
    /// reads its own reply looks as long (``IPCConnection``).
    var spinLimit: Duration { spin }

    /// Wakes the thread if it sleeps, so it looks at its connections again.
    func wakeUp() {
        let sleeping = state.withLock { state -> Bool in
            defer { state.sleeping = false }
            return state.sleeping
        }
        if sleeping { wakePipe?.wake() }
    }

    /// Whether the calling code runs on this executor's thread.
    public var isCurrent: Bool {
        guard let thread = state.withLock({ $0.thread }) else { return false }
        return thread == .current
    }

    /// One of a few executors shared by every `AppExtensionProcess` of this process that was not
    /// given its own: as many as there are cores (at most 4), handed out in turn, never shut down.
    /// A host with dozens of extensions reads all their sockets on these few threads.
    package static func shared() -> IPCExecutor {
        sharedPool.next()
    }

    private static let sharedPool = SharedPool()

    private final class SharedPool: Sendable {
        private let executors: [IPCExecutor]
        private let turn = Mutex(0)

        init() {
            let count = min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 4)
            executors = (0..<count).map { IPCExecutor(name: "appex.ipc.\($0)") }
        }

        func next() -> IPCExecutor {
            executors[
                turn.withLock { turn in
                    defer { turn = (turn + 1) % executors.count }
                    return turn
                }
            ]
        }
    }

    /// Whether the thread runs (`false` after ``shutdown()``, or if it could not be started).
    public var isRunning: Bool { state.withLock { !$0.stopped } }

    /// Stops the thread after the job it is running; queued jobs move to the global executor.
    /// Connections still attached end (their pending calls fail with `closed`).
    public func shutdown() {
        let (leftover, sources) = state.withLock { state -> ([UnownedJob], [any IPCExecutorSource]) in
            state.stopped = true
            defer {
                state.jobs = []
                state.head = 0
                state.sources = []
            }
            return (Array(state.jobs[state.head...]), state.sources)
        }
        wakePipe?.wake()
        for source in sources {
            source.abandon(because: AppexError(.closed, "the connection's executor was shut down"))
        }
        for job in leftover { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// Queues a job; the executor's thread runs it (see the type's discussion).
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        enum Next { case queued, wake, elsewhere }
        let next = state.withLock { state -> Next in
            if state.stopped { return .elsewhere }
            state.jobs.append(job)
            if state.sleeping {
                state.sleeping = false
                return .wake
            }
            return .queued
        }
        switch next {
        case .queued: break
        case .wake: wakePipe?.wake()
        case .elsewhere: globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
    }

    /// Reads `source` on this thread from now on, until its `handleInput()` says it ended.
    /// - Returns: `false` when the executor is not running.
    func attach(_ source: any IPCExecutorSource) -> Bool {
        let wake = state.withLock { state -> Bool? in
            if state.stopped { return nil }
            state.sources.append(source)
            defer { state.sleeping = false }
            return state.sleeping
        }
        guard let wake else { return false }
        if wake { wakePipe?.wake() }
        return true
    }

    // MARK: - The thread

    private func run() {
        guard let wakePipe else { return }
        state.withLock { $0.thread = .current }
        let me = asUnownedTaskExecutor()
        var ready: [Bool] = []
        var descriptors: [Int32] = []
        while true {
            if let job = nextJob() {
                job.runSynchronously(on: me)
                continue
            }
            let sources: [any IPCExecutorSource]
            switch prepareToWait() {
            case .stop: return
            case .jobs: continue
            case .wait(let attached): sources = attached
            }
            // Bytes already read ahead need no wait: serve them first.
            if let buffered = sources.first(where: { $0.hasBufferedInput }) {
                state.withLock { $0.sleeping = false }
                serve(buffered)
                continue
            }
            // A reply is due: look for it for a moment before sleeping.
            if spin > .zero, sources.contains(where: { $0.expectsInput }), let ready = spinForInput(sources) {
                state.withLock { $0.sleeping = false }
                if let ready { serve(ready) }
                continue
            }
            descriptors.removeAll(keepingCapacity: true)
            descriptors.append(wakePipe.readEnd.rawValue)
            for source in sources { descriptors.append(source.descriptor) }
            do {
                try Socket.waitReadable(descriptors, ready: &ready)
            } catch {
                // poll itself failed (never expected): end every source rather than spin.
                state.withLock { $0.sleeping = false }
                for source in sources {
                    source.abandon(because: AppexError(.system, "cannot wait for the peer", underlyingError: error))
                }
                state.withLock { $0.sources.removeAll { candidate in sources.contains { $0 === candidate } } }
                continue
            }
            state.withLock { $0.sleeping = false }
            if ready[0] { wakePipe.drain() }
            for (index, source) in sources.enumerated() where ready[index + 1] {
                serve(source)
            }
        }
    }

    /// Checks the sources that expect input, without blocking, until one is readable, a job
    /// arrives, or the spin time is over. - Returns: `nil` when the time is over (then sleep);
    /// `.some(nil)` for a job; `.some(source)` for a readable source.
    private func spinForInput(_ sources: [any IPCExecutorSource]) -> (any IPCExecutorSource)?? {
        let deadline = ContinuousClock.now + spin
        let waiting = sources.filter { $0.expectsInput }
        repeat {
            for source in waiting where (try? Socket.waitReadable(source.descriptor, timeoutMilliseconds: 0)) == true {
                return .some(source)
            }
            if state.withLock({ $0.head < $0.jobs.count || $0.stopped }) { return .some(nil) }
        } while ContinuousClock.now < deadline
        return nil
    }

    private func serve(_ source: any IPCExecutorSource) {
        if !source.handleInput() {
            state.withLock { $0.sources.removeAll { $0 === source } }
        }
    }

    private func nextJob() -> UnownedJob? {
        state.withLock { state -> UnownedJob? in
            guard state.head < state.jobs.count else { return nil }
            let job = state.jobs[state.head]
            state.head += 1
            if state.head == state.jobs.count {
                state.jobs.removeAll(keepingCapacity: true)
                state.head = 0
            }
            return job
        }
    }

    private enum Next {
        case stop
        case jobs
        case wait([any IPCExecutorSource])
    }

    /// Marks the thread as going to sleep, unless it stopped or a job arrived.
    private func prepareToWait() -> Next {
        state.withLock { state -> Next in
            if state.stopped { return .stop }
            if state.head < state.jobs.count { return .jobs }
            state.sleeping = true
            return .wait(state.sources)
        }
    }
}

/// Something an ``IPCExecutor`` reads: a connection's socket.
protocol IPCExecutorSource: AnyObject, Sendable {
    /// The descriptor to wait on.
    var descriptor: Int32 { get }
    /// Whether bytes were already read ahead (serve without waiting).
    var hasBufferedInput: Bool { get }
    /// Whether input is due soon (a call waits for its reply): worth a short spin.
    var expectsInput: Bool { get }
    /// Reads and handles one frame. - Returns: `false` when the source ended.
    func handleInput() -> Bool
    /// Ends the source because the executor cannot wait on it.
    func abandon(because reason: AppexError)
}
