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
/// request's handler starts on it, at once, when its frame is read, and a caller that prefers
/// it reads its reply there itself: no thread is woken between the socket and the code. While
/// a reply is due, and for a moment after input that comes in a burst (a request after a
/// request), the thread looks for the next frame without sleeping, so calls in a row cost about
/// what two C processes that do the same pay (`Scripts/bench.sh ipc.roundtrip`).
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
        /// Something changed while the thread looked without sleeping (a source attached,
        /// bytes left read ahead): it must look at its sources again before it sleeps.
        var poked = false
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
    ///   - spin: how long the thread keeps checking for input, without sleeping, while a
    ///     call of one of its connections waits for its reply, and after input that came
    ///     within a spin of the input before (default 50 µs; `.zero` never spins). Input that
    ///     comes within it is read without waking a sleeping core: on a VM, more than the rest
    ///     of a round trip (`ipc.roundtrip.64B` 20 → 7 µs once extensions spun in bursts too).
    ///     An executor that is neither waiting nor in a burst sleeps at once; one that spins
    ///     lets the core's other threads run every 5 µs (`SpinningLook`).
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
            if !state.sleeping { state.poked = true }
            return state.sleeping
        }
        if sleeping { wakePipe?.wake() }
    }

    /// Whether jobs wait for the thread: a caller that looks for its reply on the thread stops.
    var hasQueuedJobs: Bool { state.withLock { $0.head < $0.jobs.count } }

    /// Whether one connection alone is attached: a caller on the thread may look for its reply
    /// there without keeping the thread from others.
    var readsOneSource: Bool { state.withLock { $0.sources.count == 1 } }

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
            if !state.sleeping { state.poked = true }
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
        var pace = InputPace()
        while true {
            if let job = nextJob() {
                job.runSynchronously(on: me)
                continue
            }
            let sources: [any IPCExecutorSource]
            switch attachedSources() {
            case .stop: return
            case .jobs: continue
            case .wait(let attached): sources = attached
            }
            // Bytes already read ahead need no wait: serve them first.
            if let buffered = sources.first(where: { $0.hasBufferedInput }) {
                if serve(buffered) != .nothing { pace.record() }
                continue
            }
            // A reply is due, or input came a moment ago: look for input for a moment before
            // sleeping.
            if let deadline = spinDeadline(sources, pace: pace) {
                switch spinForInput(sources, until: deadline, descriptors: &descriptors, ready: &ready) {
                case .served:
                    pace.record()
                    continue
                case .interrupted: continue
                case .timedOut: break
                }
            }
            guard markSleeping() else { continue }
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
                if serve(source) != .nothing { pace.record() }
            }
        }
    }

    /// Until when to look for input before sleeping: a spin from now while a call of `sources`
    /// waits for its reply; a spin after the last input while inputs come in a burst (each
    /// within a spin of the one before); otherwise `nil`: sleep at once.
    private func spinDeadline(_ sources: [any IPCExecutorSource], pace: InputPace) -> ContinuousClock.Instant? {
        guard spin > .zero, !sources.isEmpty else { return nil }
        if sources.contains(where: { $0.expectsInput }) { return .now + spin }
        guard let last = pace.last, let previous = pace.previous, last - previous <= spin else { return nil }
        let deadline = last + spin
        return deadline > .now ? deadline : nil
    }

    /// How a look for input without sleeping ended.
    private enum Spin {
        /// A source had input, which was handled.
        case served
        /// A job arrived, or the sources changed: back to the loop.
        case interrupted
        /// The time is over: sleep.
        case timedOut
    }

    /// Looks at `sources`, without blocking, until one has input (handled here), a job
    /// arrives, or `deadline` passes. A lone source is read directly (a non-blocking `recvmsg`
    /// a look: a frame that arrives costs no `poll` first); several are polled.
    private func spinForInput(
        _ sources: [any IPCExecutorSource],
        until deadline: ContinuousClock.Instant,
        descriptors: inout [Int32],
        ready: inout [Bool]
    ) -> Spin {
        descriptors.removeAll(keepingCapacity: true)
        for source in sources { descriptors.append(source.descriptor) }
        var look = SpinningLook(until: deadline)
        repeat {
            if sources.count == 1 {
                if serve(sources[0]) != .nothing { return .served }
            } else if (try? Socket.waitReadable(descriptors, ready: &ready, timeoutMilliseconds: 0)) != nil,
                let index = ready.firstIndex(of: true)
            {
                serve(sources[index])
                return .served
            }
            let interrupted = state.withLock { state -> Bool in
                defer { state.poked = false }
                return state.head < state.jobs.count || state.stopped || state.poked
            }
            if interrupted { return .interrupted }
        } while look.goesOn()
        return .timedOut
    }

    /// Reads `source` once. - Returns: what it found.
    @discardableResult
    private func serve(_ source: any IPCExecutorSource) -> IPCInput {
        let input = source.handleInput()
        if input == .ended {
            state.withLock { $0.sources.removeAll { $0 === source } }
        }
        return input
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

    /// The sources to look at, unless the thread stopped or a job waits.
    private func attachedSources() -> Next {
        state.withLock { state -> Next in
            if state.stopped { return .stop }
            if state.head < state.jobs.count { return .jobs }
            state.poked = false
            return .wait(state.sources)
        }
    }

    /// Marks the thread as going to sleep, unless it stopped, a job arrived or it was poked
    /// since it looked at its sources. - Returns: whether it may sleep.
    private func markSleeping() -> Bool {
        state.withLock { state -> Bool in
            if state.stopped || state.head < state.jobs.count || state.poked { return false }
            state.sleeping = true
            return true
        }
    }
}

/// What an ``IPCExecutorSource`` found when asked to read.
enum IPCInput {
    /// A frame, handled.
    case handled
    /// Nothing to read yet.
    case nothing
    /// The end of the source (or its failure): it is read no more.
    case ended
}

/// When an executor's thread read its last two inputs: whether its peers send in a burst.
private struct InputPace {
    private(set) var previous: ContinuousClock.Instant?
    private(set) var last: ContinuousClock.Instant?

    /// Notes an input read now.
    mutating func record() {
        previous = last
        last = .now
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
    /// Reads and handles one frame if its first bytes are there (never waits for them).
    func handleInput() -> IPCInput
    /// Ends the source because the executor cannot wait on it.
    func abandon(because reason: AppexError)
}
