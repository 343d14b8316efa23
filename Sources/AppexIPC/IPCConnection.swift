import Synchronization
import Tracing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Calls in both directions over one ``FrameChannel``: many requests in flight, replies in any
/// order, cancellation and deadlines that reach the peer.
///
/// Its ``executor``'s thread (a plain pthread, never a thread of Swift's cooperative pool)
/// receives frames: replies resume their callers; requests run the ``Handler`` in a task each,
/// started on that thread, and their results go back as replies. When the channel ends — the
/// peer exits, crashes or breaks the protocol — every pending call fails at once with the
/// reason, and the `onClose` closure given at creation runs.
@_spi(Wire) public final class IPCConnection: Sendable, IPCExecutorSource {
    /// Serves the peer's requests: takes the request's bytes, returns the reply's bytes; a
    /// thrown error becomes an ``/AppexVocabulary/AppexError/Code/remoteFailure`` on the peer's side. Runs in a
    /// task of its own, cancelled when the peer cancels the call.
    public typealias Handler = @Sendable (_ request: [UInt8]) async throws -> [UInt8]
    /// A ``Handler`` that takes and gives bytes where they are: a request that arrived in
    /// shared memory is read in place, and a reply made with ``Payload/init(sharing:)`` is sent
    /// without a copy.
    public typealias PayloadHandler = PayloadRequestHandler

    private enum Outcome: Sendable {
        case reply(Payload)
        case failure(AppexError)
    }

    private struct State: ~Copyable {
        var nextRequestID: UInt64 = 1
        var pending: [UInt64: UnsafeContinuation<Outcome, Never>] = [:]
        /// The requests being served, searched in order: a peer has a few in flight at once. Not
        /// a `[UInt64: Task<Void, Never>]`: its first growth, at every extension's first request,
        /// made the storage's metadata from a mangled name and looked up `UInt64: Hashable` and
        /// `Never: Error` by scanning every protocol conformance of the binary (decision 0168).
        var serving: [ServedRequest] = []
        /// Deadline timers of pending calls, cancelled when the call ends another way.
        var timers: [UInt64: Task<Void, Never>] = [:]
        var closed: AppexError?
        var started = false
        /// Who reads the channel now: never the executor's thread and a caller at once.
        var reader = Reader.nobody
        /// Calls whose caller reads the channel for its own reply (``callInPlace(_:kind:timeout:)``
        /// off the executor): `nil` until the reply is read, by whichever thread reads it.
        var direct: [UInt64: Outcome?] = [:]
    }

    /// A request this side serves, and the task serving it (`nil` while the task's first part
    /// runs on the executor's thread, which reads no cancel meanwhile).
    private struct ServedRequest {
        let id: UInt64
        var task: Task<Void, Never>?
        /// The peer cancelled it before its task was recorded.
        var cancelled = false
    }

    private enum Reader {
        case nobody
        /// The executor's thread, in ``handleInput()``.
        case executor
        /// A caller off the executor's thread, waiting for its own reply.
        case caller
    }

    /// What a caller that read the channel itself came away with.
    private enum OwnReply {
        /// Its call's outcome.
        case outcome(Outcome)
        /// Nothing: another thread was reading, or the connection is not running; nothing sent.
        case notSent
        /// The request went out; no reply within the spin.
        case pending
    }

    /// The channel underneath.
    public let channel: FrameChannel
    /// The thread that reads this connection and starts its handlers (see ``IPCExecutor``).
    public let executor: IPCExecutor
    private let ownsExecutor: Bool
    private let handler: PayloadHandler?
    private let invocationHandler: PayloadHandler?
    private let onClose: @Sendable (AppexError) -> Void
    private let state = Mutex(State())
    /// Whether requests carry the caller's trace context: set once the peer's hello said it
    /// reads one (``Handshake/Feature/traceContext``).
    private let sendsTraceContext = Atomic<Bool>(false)

    /// A connection over `channel`.
    ///
    /// - Parameters:
    ///   - channel: the framed channel to the peer.
    ///   - handler: serves requests from the peer; `nil` refuses them.
    ///   - onClose: runs once, when the channel ends, with why — before any pending caller is
    ///     resumed with that reason.
    ///   - invocationHandler: serves distributed-actor calls (``IPCActorSystem/invocationHandler``).
    ///   - executor: the thread to read on, shared with other connections; by default one of
    ///     the connection's own, stopped when the connection ends.
    public convenience init(
        channel: FrameChannel,
        handler: Handler? = nil,
        invocationHandler: Handler? = nil,
        executor: IPCExecutor? = nil,
        onClose: @escaping @Sendable (AppexError) -> Void = { _ in }
    ) {
        self.init(
            channel: channel,
            payloadHandler: handler.map(Self.inPlace),
            invocationHandler: invocationHandler,
            executor: executor,
            onClose: onClose
        )
    }

    /// A connection whose requests are served with bytes where they are (``PayloadHandler``);
    /// otherwise as ``init(channel:handler:invocationHandler:executor:onClose:)``.
    public init(
        channel: FrameChannel,
        payloadHandler: PayloadHandler?,
        invocationHandler: Handler? = nil,
        executor: IPCExecutor? = nil,
        onClose: @escaping @Sendable (AppexError) -> Void = { _ in }
    ) {
        self.channel = channel
        self.executor = executor ?? IPCExecutor()
        self.ownsExecutor = executor == nil
        self.handler = payloadHandler
        self.invocationHandler = invocationHandler.map(Self.inPlace)
        self.onClose = onClose
    }

    private static func inPlace(_ handler: @escaping Handler) -> PayloadHandler {
        { request in Payload(try await handler(request.bytes)) }
    }

    /// Starts receiving. Calls made before this wait for it.
    public func start() {
        let first = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        if !executor.attach(self) {
            close(AppexError(.system, "cannot start the connection's reader thread (pthread_create failed)"))
        }
    }

    /// Why the connection ended, once it has.
    public var closeReason: AppexError? { state.withLock { $0.closed } }

    /// Makes requests and invocations carry the caller's W3C trace context (when a tracer is
    /// bootstrapped and the caller is in a span), for a peer whose hello said it reads one.
    public func sendTraceContext(_ enabled: Bool) {
        sendsTraceContext.store(enabled, ordering: .relaxed)
    }

    /// The frame of request `id`, with the caller's trace context when the peer reads one.
    private func requestFrame(_ kind: Frame.Kind, _ id: UInt64, _ request: [UInt8]) -> Frame {
        var frame = Frame(kind: kind, requestID: id, payload: request)
        if sendsTraceContext.load(ordering: .relaxed) { frame.traceParent = TraceContext.currentParent() }
        return frame
    }

    /// Ends the connection from this side: pending calls fail with `invalidated`, the peer sees
    /// the end of the stream.
    public func invalidate() {
        close(AppexError(.invalidated, "the connection was invalidated"))
        channel.shutdown()
    }

    // MARK: - Calling

    /// Sends a request and waits for its reply.
    ///
    /// - Parameters:
    ///   - request: the request's bytes.
    ///   - kind: the frame it travels in: `.request` for the peer's ``Handler``,
    ///     `.invocation` for a distributed-actor call.
    ///   - timeout: how long to wait; `nil` waits until the reply, the end of the
    ///     connection or cancellation.
    /// - Throws: ``/AppexVocabulary/AppexError``: `deadlineExceeded`, `cancelled` (the peer is told to stop in both
    ///   cases), `remoteFailure`, `closed` or `protocolViolation` (the connection ended),
    ///   `invalidated`.
    public func call(
        _ request: [UInt8],
        kind: Frame.Kind = .request,
        timeout: Duration? = nil
    ) async throws(AppexError) -> [UInt8] {
        try await callInPlace(request, kind: kind, timeout: timeout).bytes
    }

    /// Sends a request and returns its reply where it arrived: a large reply that came in
    /// shared memory is read in place, never copied (see ``Payload``). Otherwise as
    /// ``call(_:kind:timeout:)``.
    public func callInPlace(
        _ request: [UInt8],
        kind: Frame.Kind = .request,
        timeout: Duration? = nil
    ) async throws(AppexError) -> Payload {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextRequestID &+= 1 }
            return state.nextRequestID
        }
        var sent = false
        // The caller reads the channel for its own reply for as long as the executor would
        // spin. Off the executor's thread (a task with no executor preference), its thread need
        // not be woken when the reply comes (issue 28, ipc.roundtrip.64B.pool); on it, the
        // reply needs no continuation, no trip through the executor's loop and no job to
        // resume the caller: what a C program pays for a round trip (issue 48; 1.2-1.5 µs a
        // call, ipc.roundtrip.64B with a second connection on its executor). On it only
        // while this is the one connection the executor reads: a caller looping there would
        // otherwise keep the thread from the others for as long as its replies come quickly.
        let onExecutor = executor.isCurrent
        if executor.spinLimit > .zero, !Task.isCancelled, !onExecutor || executor.readsOneSource {
            let spin = timeout.map { min($0, executor.spinLimit) } ?? executor.spinLimit
            switch readOwnReply(requestFrame(kind, id, request), spin: spin, onExecutor: onExecutor) {
            case .outcome(.reply(let bytes)): return bytes
            case .outcome(.failure(let error)): throw error
            case .notSent: break
            case .pending: sent = true
            }
        }
        let outcome: Outcome = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Outcome, Never>) in
                let early = state.withLock { state -> Outcome? in
                    if sent, let read = state.direct.removeValue(forKey: id), let read { return read }
                    if let closed = state.closed { return .failure(closed) }
                    state.pending[id] = continuation
                    return nil
                }
                if let early {
                    continuation.resume(returning: early)
                    return
                }
                if Task.isCancelled {
                    finish(id, with: .failure(AppexError(.cancelled, "the call was cancelled before it was sent")))
                    return
                }
                if !sent {
                    do throws(AppexError) {
                        try channel.send(requestFrame(kind, id, request))
                    } catch {
                        finish(id, with: .failure(error))
                        return
                    }
                }
                if let timeout {
                    let timer = Task { [self] in
                        do { try await Task.sleep(for: timeout) } catch { return }  // the call ended first
                        if finish(id, with: .failure(AppexError(.deadlineExceeded, "no reply within \(timeout)"))) {
                            try? channel.send(Frame(kind: .cancel, requestID: id, payload: []))
                        }
                    }
                    let stillPending = state.withLock { state -> Bool in
                        guard state.pending[id] != nil else { return false }
                        state.timers[id] = timer
                        return true
                    }
                    if !stillPending { timer.cancel() }
                }
            }
        } onCancel: {
            if finish(id, with: .failure(AppexError(.cancelled, "the call was cancelled"))) {
                try? channel.send(Frame(kind: .cancel, requestID: id, payload: []))
            }
        }
        switch outcome {
        case .reply(let bytes): return bytes
        case .failure(let error): throw error
        }
    }

    /// Sends `frame` and reads the channel on this thread until its reply comes or `spin` is
    /// over, handling every frame read as the executor would. Only when no other thread reads:
    /// while this one does, the executor leaves the channel alone. Off the executor
    /// (`onExecutor` false), never waits on the peer: a frame is read only once it is whole (a
    /// peer that sends half a frame cannot hold a thread of Swift's pool). On the executor's
    /// thread, a frame is read as the executor reads it (once its first bytes are there), and
    /// the caller stops looking as soon as a job waits for the thread.
    /// - Returns: the outcome, or why there is none.
    private func readOwnReply(_ frame: Frame, spin: Duration, onExecutor: Bool) -> OwnReply {
        let id = frame.requestID
        let claimed = state.withLock { state -> Bool in
            guard state.closed == nil, state.started, state.reader == .nobody else { return false }
            state.reader = .caller
            state.direct.updateValue(nil, forKey: id)
            return true
        }
        guard claimed else { return .notSent }
        var arrived: Outcome?
        do throws(AppexError) {
            try channel.send(frame)
        } catch {
            arrived = .failure(error)
        }
        var look = SpinningLook(until: .now + spin)
        var ended = false
        while arrived == nil {
            if let read = state.withLock({ $0.direct[id] ?? nil }) {
                arrived = read
            } else if onExecutor {
                if ended || executor.hasQueuedJobs || !look.goesOn() { break }
                // One non-blocking read a look: ours or another's; at the end, close() records
                // our failure, which the next look finds.
                ended = receiveOne(waiting: false) == .ended
            } else if !ended && channel.canReceiveWithoutWaiting() {
                ended = receiveOne() == .ended  // ours or another's; at the end, close() records our failure
            } else if look.isOver {
                // Off the executor, a look never yields the core: yielding every 5 µs, the
                // pool's call took 32-35 µs against the raw call's 8-10 (ipc.roundtrip.64B.pool
                // 3.5-4x; 1.05-1.11x without it).
                break
            }
        }
        let leftover = channel.hasBufferedInput
        state.withLock { state in
            state.reader = .nobody
            if arrived != nil { state.direct.removeValue(forKey: id) }
        }
        if ended {
            channel.shutdown()  // the executor's wait ends too, and it lets the connection go
        } else if leftover {
            executor.wakeUp()  // it waits on the socket, which has nothing more to say
        }
        return arrived.map { .outcome($0) } ?? .pending
    }

    /// Resumes the caller of `id`, once. - Returns: whether this call resumed it.
    @discardableResult
    private func finish(_ id: UInt64, with outcome: Outcome) -> Bool {
        let (continuation, timer, recorded) = state.withLock {
            state -> (UnsafeContinuation<Outcome, Never>?, Task<Void, Never>?, Bool) in
            // A caller reading for its own reply finds it here.
            if case .some(.none) = state.direct[id] {
                state.direct[id] = .some(outcome)
                return (nil, nil, true)
            }
            return (state.pending.removeValue(forKey: id), state.timers.removeValue(forKey: id), false)
        }
        timer?.cancel()
        guard let continuation else { return recorded }
        continuation.resume(returning: outcome)
        return true
    }

    // MARK: - Receiving

    var descriptor: Int32 { channel.socket.rawValue }
    var hasBufferedInput: Bool { state.withLock { $0.reader != .caller } && channel.hasBufferedInput }
    var expectsInput: Bool { state.withLock { !$0.pending.isEmpty && $0.reader != .caller } }

    func abandon(because reason: AppexError) {
        close(reason)
        channel.shutdown()
    }

    deinit {
        // Never started, or dropped: the thread of its own must not outlive it.
        if ownsExecutor { executor.shutdown() }
    }

    func handleInput() -> IPCInput {
        // A caller reading for its own reply has the channel: it reads what woke this thread.
        let claimed = state.withLock { state -> Bool in
            guard state.reader == .nobody else { return false }
            state.reader = .executor
            return true
        }
        guard claimed else { return .nothing }
        // What woke this thread may have been read since by a caller reading for its own reply:
        // a receive that waited on the emptied socket would block the executor (and every task
        // on it), so this one takes only a frame that has begun to arrive.
        let input = receiveOne(waiting: false, startingHandlersHere: true)
        state.withLock { $0.reader = .nobody }
        if input == .ended && ownsExecutor { executor.shutdown() }
        return input
    }

    /// Reads and handles one frame; not `waiting`, only one whose first bytes are there. A
    /// request's handler starts on this thread (until it first suspends) when
    /// `startingHandlersHere`: only the executor's loop, which runs no task, asks for it.
    private func receiveOne(waiting: Bool = true, startingHandlersHere: Bool = false) -> IPCInput {
        let arrival: FrameChannel.Arrival
        do throws(AppexError) {
            arrival =
                waiting ? (try channel.receive().map(FrameChannel.Arrival.frame) ?? .end) : try channel.receiveIfReady()
        } catch {
            close(error)
            return .ended
        }
        let frame: Frame
        switch arrival {
        case .frame(let received): frame = received
        case .nothing: return .nothing
        case .end:
            close(AppexError(.closed, "the peer closed the connection"))
            return .ended
        }
        switch frame.kind {
        case .reply:
            finish(frame.requestID, with: .reply(frame.contents))
        case .failure:
            let message = String(decoding: frame.payload, as: UTF8.self)
            finish(frame.requestID, with: .failure(AppexError(.remoteFailure, message)))
        case .request:
            serve(frame, with: handler, startingHere: startingHandlersHere)
        case .invocation:
            serve(frame, with: invocationHandler, startingHere: startingHandlersHere)
        case .cancel:
            let task = state.withLock { state -> Task<Void, Never>? in
                guard let index = state.serving.firstIndex(where: { $0.id == frame.requestID }) else { return nil }
                state.serving[index].cancelled = true
                return state.serving[index].task
            }
            task?.cancel()
        case .goodbye:
            close(AppexError(.closed, "the peer said goodbye"))
            channel.shutdown()
            return .ended
        default:
            // hello frames belong to the handshake layer above; others are unknown here.
            break
        }
        return .handled
    }

    private func serve(_ frame: Frame, with handler: PayloadHandler?, startingHere: Bool) {
        guard let handler else {
            try? channel.send(
                Frame(kind: .failure, requestID: frame.requestID, payload: Array("this side serves no requests".utf8))
            )
            return
        }
        let id = frame.requestID
        // Registered before the task starts, so that the task's own removal comes after.
        let registered = state.withLock { current -> Bool in
            guard current.closed == nil else { return false }
            current.serving.append(ServedRequest(id: id, task: nil))
            return true
        }
        guard registered else { return }
        let operation: @Sendable () async -> Void = { [self] in
            let reply: Frame
            do {
                let contents: Payload
                if let parent = frame.traceParent {
                    // The caller's span continues here: the handler runs in a child of it.
                    contents = try await ServiceContext.withValue(TraceContext.context(from: parent)) {
                        try await withSpan("appex.serve \(frame.kind)", ofKind: .server) { _ in
                            try await handler(frame.contents)
                        }
                    }
                } else {
                    contents = try await handler(frame.contents)
                }
                reply = Frame(kind: .reply, requestID: id, contents: contents)
            } catch {
                reply = Frame(kind: .failure, requestID: id, payload: Array("\(error)".utf8))
            }
            state.withLock { state in
                guard let index = state.serving.firstIndex(where: { $0.id == id }) else { return }
                state.serving.swapAt(index, state.serving.count - 1)
                state.serving.removeLast()
            }
            // A cancelled call's caller has stopped waiting: say nothing more about it.
            if !Task.isCancelled { try? channel.send(reply) }
        }
        // From the executor's loop the handler starts at once, on this thread, until it first
        // suspends: no job to queue and pick up again (issue 48: ipc.roundtrip.64B 1.84x C
        // against 1.96x with the job queued, medians of seven runs each, alternated). A caller
        // that read the request while it looked for its own reply leaves it to the executor.
        let task =
            startingHere
            ? Task.immediate(executorPreference: executor, operation: operation)
            : Task(executorPreference: executor, operation: operation)
        // Cancelled meanwhile: by the peer, or by the connection's end, which found no task to
        // cancel while the handler's first part ran here.
        let cancelled = state.withLock { current -> Bool in
            guard let index = current.serving.firstIndex(where: { $0.id == id }) else { return current.closed != nil }
            current.serving[index].task = task
            return current.serving[index].cancelled
        }
        if cancelled { task.cancel() }
    }

    private func close(_ reason: AppexError) {
        let (pending, serving, first, started) = state.withLock {
            state -> ([UnsafeContinuation<Outcome, Never>], [Task<Void, Never>], Bool, Bool) in
            let first = state.closed == nil
            if first { state.closed = reason }
            let pending = Array(state.pending.values)
            let serving = state.serving.compactMap(\.task) + Array(state.timers.values)
            state.pending = [:]
            state.serving = []
            state.timers = [:]
            for id in Array(state.direct.keys) {
                if case .some(.none) = state.direct[id] { state.direct[id] = .some(.failure(reason)) }
            }
            return (pending, serving, first, state.started)
        }
        // Tell the owner first, so a caller that wakes up and calls again finds it updated.
        if first { onClose(reason) }
        if first && ownsExecutor && !started { executor.shutdown() }  // nothing will ever read
        for continuation in pending { continuation.resume(returning: .failure(reason)) }
        for task in serving { task.cancel() }
    }
}
