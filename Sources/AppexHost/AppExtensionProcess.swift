public import AppexCore
@_spi(Wire) public import AppexIPC
import AppexSystem
import AppexVocabulary
import Foundation
public import Logging
import Synchronization

/// A running (or runnable) extension: launched on first use, reused while alive, relaunched
/// after it dies, never launched unless it is valid, enabled and signed as discovered.
///
/// Mirrors ExtensionFoundation's `AppExtensionProcess` with XPC's failure semantics:
/// *interruption* — the process died; pending calls fail at once with
/// ``/AppexIPC/AppexVocabulary/AppexError/Code/interrupted`` and the next call relaunches it — and *invalidation* — closed
/// for good (``invalidate()``). A crash budget (default 3 crashes in 5 minutes) stops
/// relaunching a process that keeps dying.
public final class AppExtensionProcess: Sendable {
    /// What to launch and how to behave.
    public struct Configuration: Sendable {
        /// The extension, as discovery reported it.
        public var identity: AppExtensionIdentity
        /// The host app bundle whose approval decisions apply.
        public var hostBundlePath: String
        /// Where state lives.
        public var environment: AppexEnvironment
        /// Runs when the process ends unexpectedly (not after ``AppExtensionProcess/invalidate()``).
        public var onInterruption: @Sendable (AppexError) -> Void
        /// How many unexpected exits within ``crashWindow`` stop relaunching. Default 3.
        public var crashLimit: Int = 3
        /// The window of the crash budget. Default 5 minutes.
        public var crashWindow: Duration = .seconds(300)
        /// Receives the extension's standard output and error, a line each at `info`, with its
        /// bundle identifier and pid as metadata; the host's warnings about it too. Default: the
        /// host's handler (`Logger(label: "appex.extension")`). Every line also goes to the
        /// extension's ``ExtensionLog``, whatever the logger.
        public var logger: Logger
        /// How long a process may sit with no call before it is ended (quietly: not an
        /// interruption; the next call launches it again). `nil`, the default: never.
        public var idleTimeout: Duration?
        /// The connection's limits: the largest frame through the socket, the largest in
        /// shared memory, and the size from which payloads travel in shared memory. The
        /// extension adopts them in the handshake.
        public var channel = ChannelConfiguration()
        /// How long a new process has to answer the handshake. Default 10 s.
        public var launchTimeout: Duration = .seconds(10)
        /// Called after the executable was opened and checked and before it is spawned: the
        /// tests swap the file there to prove that what runs is what was checked.
        package var beforeSpawn: (@Sendable () -> Void)?
        /// Whether the memory limit holds as an address-space limit (`RLIMIT_AS`, its limit plus
        /// a reserve) even where a memory cgroup could hold it: the fallback of hosts without
        /// cgroups, which the tests run on a machine that has them.
        package var limitsMemoryByAddressSpace = false
        /// Whether the process is sandboxed (always, but for the benchmark that measures what the
        /// sandbox costs: `launch.first-reply.sandboxed` against this switched off).
        @_spi(Measurement) public var isSandboxed = true
        /// The thread that reads the process's connection and runs its handlers. `nil`, the
        /// default: one of a few executors every process of the host shares (as many as cores,
        /// at most 4), so dozens of extensions cost a handful of threads. Give a process an
        /// executor of its own when its handlers must never wait behind another extension's;
        /// the process does not shut down an executor it was given.
        public var executor: IPCExecutor?
        /// Serves the extension's calls to its host (Mirrors `NSXPCConnection.exportedObject`):
        /// takes the request's bytes, returns the reply's. `nil`: the host serves no calls.
        /// ``exporting(_:)`` makes one from a typed closure.
        public var exportedHandler: (@Sendable ([UInt8]) async throws -> [UInt8])?

        /// A configuration for `identity` of the host at `hostBundlePath`.
        public init(
            identity: AppExtensionIdentity,
            hostBundlePath: String,
            environment: AppexEnvironment = .current(),
            logger: Logger = Logger(label: "appex.extension"),
            onInterruption: @escaping @Sendable (AppexError) -> Void = { _ in }
        ) {
            self.identity = identity
            self.hostBundlePath = hostBundlePath
            self.environment = environment
            self.logger = logger
            self.onInterruption = onInterruption
        }
        /// A configuration for `identity` of the running app, as ExtensionKit's
        /// `AppExtensionProcess.Configuration(appExtensionIdentity:onInterruption:)`: the host is
        /// the app bundle holding the running executable (or `APPEX_MAIN_BUNDLE`; see
        /// ``/AppexCore/AppexBundle/mainBundlePath()``), and `onInterruption` takes no argument,
        /// as Apple's does. A process outside any app fails its launch with `not-found`, saying so.
        public init(
            appExtensionIdentity identity: AppExtensionIdentity,
            onInterruption: @escaping @Sendable () -> Void = {}
        ) {
            self.init(
                identity: identity,
                hostBundlePath: (try? AppexBundle.mainBundlePath()) ?? "",
                onInterruption: { _ in onInterruption() }
            )
        }
    }

    /// A handler for ``Configuration/exportedHandler`` that decodes each request as `Request`
    /// (JSON) and encodes what `handle` returns.
    public static func exporting<Request: Decodable & Sendable, Reply: Encodable & Sendable>(
        _ handle: @escaping @Sendable (Request) async throws -> Reply
    ) -> @Sendable ([UInt8]) async throws -> [UInt8] {
        { bytes in
            let request = try JSONDecoder().decode(Request.self, from: Data(bytes))
            return Array(try JSONEncoder().encode(try await handle(request)))
        }
    }

    /// A running extension: its OS process and its connection.
    final class Child: Sendable {
        let process: ChildProcess
        let connection: IPCConnection
        /// The memory (bytes) and CPU time per call (seconds) its sandbox allows, for the words of
        /// an error when it crossed one.
        let limits: (memoryBytes: UInt64?, cpuSeconds: UInt64?)
        /// Calls in flight, a counter that changes with every call (for idle checks and the
        /// CPU watch), and whether it is retiring (its bundle was replaced: it takes no new call
        /// and ends after its last one).
        let activity = Mutex<(inFlight: Int, generation: UInt64, retiring: Bool)>((0, 0, false))
        /// The bundle's seal as it was when this process was launched: a replaced bundle has
        /// another.
        let seal: FileStatus?
        /// The watch over its CPU time per call, while it runs.
        let cpuWatch = Mutex<CPUWatch?>(nil)
        init(
            process: ChildProcess,
            limits: (memoryBytes: UInt64?, cpuSeconds: UInt64?),
            connection: IPCConnection,
            seal: FileStatus?
        ) {
            self.process = process
            self.connection = connection
            self.limits = limits
            self.seal = seal
        }

        /// How it ended, in words, naming the limit that ended it (`memory-limit`, `cpu-limit`).
        var ending: String {
            guard let status = process.exitStatus else { return "still exiting" }
            switch status.exceededLimit {
            case .memory?:
                return
                    "ended past its memory limit\(limits.memoryBytes.map { " of \($0 >> 20) MiB" } ?? "") (memory-limit)"
            case .cpu?:
                return "ended past its CPU time\(limits.cpuSeconds.map { " of \($0) s" } ?? "") per call (cpu-limit)"
            case nil:
                return status.description
            }
        }

        var pid: Int32 { process.pid }

        /// Whether the host ended it (``kill()``): its end is then no crash.
        let endedByHost = Atomic<Bool>(false)

        /// Kills the process (SIGKILL), and only it: the host's doing, never counted as a crash.
        func kill() {
            endedByHost.store(true, ordering: .relaxed)
            process.kill()
        }
    }

    enum Phase {
        case idle
        case running(Child)
        case invalidated
    }

    struct State {
        var phase: Phase = .idle
        var crashes: [ContinuousClock.Instant] = []
        /// The last launch's process, and the signal that its output has ended.
        var lastOutput: (pid: Int32, ended: Wakeup)?
        /// Why the last replacement of the bundle was not taken up (the running process serves on).
        var upgradeRefusal: AppexError?
        /// Processes of a replaced build, ending after their calls in flight.
        var retiring: [Child] = []
    }

    /// The configuration.
    public let configuration: Configuration
    /// The distributed-actor system over this process's connection: resolve the extension's
    /// `@Resolvable` interfaces with it (the process is launched on the first call), and export
    /// the host's own actors for the extension to call. A remote call fails as
    /// ``send(_:expecting:timeout:)`` does, with the same ``/AppexVocabulary/AppexError`` codes.
    public let actorSystem = IPCActorSystem()
    /// The thread that reads this process's connection (across relaunches) and starts the
    /// handlers of the extension's calls: ``Configuration/executor``, or one of the few executors
    /// every process shares. A caller that prefers it
    /// (`withTaskExecutorPreference(process.executor)`) resumes right where the reply is read,
    /// with no thread woken in between: the fastest way to make many calls in a row.
    public let executor: IPCExecutor
    let discovery: ExtensionDiscovery
    let state = Mutex(State())
    /// Set by the watch on the bundle when a file of it, or the folder holding it, changed.
    let bundleChanged = Atomic<Bool>(false)
    /// The watch on the bundle, from the first launch on (see `retireIfReplaced()`).
    let upgradeWatch = Mutex<DirectoryWatcher?>(nil)
    /// What this extension has done in this process: `appex stats`' row, and swift-metrics'.
    package let counters: ExtensionCounters

    /// Prepares to run `configuration.identity`; checks now that it may run (reading the bundles
    /// on this thread: from async code, use the async form).
    ///
    /// - Parameters:
    ///   - configuration: which extension to run, for which host, and how.
    ///   - discovery: the host's discovery, to share its verified bundles (a host that
    ///     launches many processes should pass one); by default a new one.
    /// - Throws: ``/AppexVocabulary/AppexError`` `refused` with the reason (not found, invalid, unapproved,
    ///   disabled, changed since discovery) — the words `appex doctor` would print.
    @available(*, noasync, message: "reads and verifies bundles on this thread; use the async init")
    public convenience init(configuration: Configuration, discovery: ExtensionDiscovery? = nil) throws(AppexError) {
        self.init(configuration: configuration, checked: try Self.checkedDiscovery(configuration, discovery))
    }

    /// As the blocking initializer, reading and verifying the bundles off Swift's cooperative pool.
    public convenience init(configuration: Configuration, discovery: ExtensionDiscovery? = nil) async throws(AppexError)
    {
        let checked = try await withoutBlockingThePool { () throws(AppexError) in
            try Self.checkedDiscovery(configuration, discovery)
        }
        self.init(configuration: configuration, checked: checked)
    }

    /// The discovery to use (`discovery`, or a new one), once it says the extension may run.
    static func checkedDiscovery(
        _ configuration: Configuration,
        _ discovery: ExtensionDiscovery?
    ) throws(AppexError) -> ExtensionDiscovery {
        let found: ExtensionDiscovery
        if let discovery {
            found = discovery
        } else {
            // No host path: the running app's, whose absence says where it looked.
            let hostPath =
                configuration.hostBundlePath.isEmpty ? try AppexBundle.mainBundlePath() : configuration.hostBundlePath
            found = try ExtensionDiscovery(
                hostBundleAt: hostPath,
                environment: configuration.environment
            )
        }
        try checkMayRun(configuration.identity, in: found)
        return found
    }

    init(configuration: Configuration, checked discovery: ExtensionDiscovery) {
        self.configuration = configuration
        self.discovery = discovery
        executor = configuration.executor ?? IPCExecutor.shared()
        counters = ExtensionCounters.of(
            configuration.identity.bundleIdentifier,
            in: configuration.environment,
            logger: configuration.logger
        )
        let identity = configuration.identity
        // Remote calls take the path of `send`: launched on demand, counted as activity, and
        // failing with the same codes (an extension that dies during one is `interrupted`).
        actorSystem.attach(caller: { [weak self] invocation throws(AppexError) in
            guard let self else {
                throw AppexError(.invalidated, "the extension process is gone", context: Self.errorContext(identity))
            }
            return try await self.perform(invocation, kind: .invocation, timeout: nil).bytes
        })
    }

    deinit {
        invalidate()
    }

    /// The running process's id, if one is running.
    public var processIdentifier: Int32? {
        state.withLock { state in
            if case .running(let child) = state.phase { child.pid } else { nil }
        }
    }

    /// How many times its process ended unexpectedly (the crash budget's count, the widget host's
    /// reason not to keep a process warm).
    package var crashCount: Int { state.withLock { $0.crashes.count } }

    /// What the last launch's process printed (its lines in ``ExtensionLog``), once its output
    /// has ended or `limit` has passed: for tools that show a failed call's output. Empty
    /// before a launch.
    package func printedLines(waitingAtMost limit: Duration) async -> [String] {
        guard let last = state.withLock({ $0.lastOutput }) else { return [] }
        await last.ended.wait(atMost: limit)
        let log = try? ExtensionLog(
            bundleIdentifier: configuration.identity.bundleIdentifier,
            environment: configuration.environment
        )
        return (try? log?.lines(ofProcess: last.pid)) ?? []
    }

    /// Ends the process and refuses further calls.
    public func invalidate() {
        let (child, retiring) = state.withLock { state -> (Child?, [Child]) in
            defer {
                state.phase = .invalidated
                state.retiring = []
            }
            if case .running(let child) = state.phase { return (child, state.retiring) }
            return (nil, state.retiring)
        }
        for child in [child].compactMap({ $0 }) + retiring {
            child.connection.invalidate()
            child.kill()
            counters.stopped(pid: child.pid)
        }
        upgradeWatch.withLock { watch in
            watch?.stop()
            watch = nil
        }
    }

    // MARK: - Calls

    /// Sends `request` (JSON) and decodes the reply, launching the process if needed.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError``: `interrupted` (the process died; the next call relaunches),
    ///   `deadlineExceeded`, `cancelled`, `remoteFailure`, `invalidated`, `refused`,
    ///   `launchFailed`, `crashBudgetExhausted`, `coding`.
    public func send<Request: Encodable, Reply: Decodable>(
        _ request: Request,
        expecting: Reply.Type = Reply.self,
        timeout: Duration? = nil
    ) async throws(AppexError) -> Reply {
        let bytes: [UInt8]
        do { bytes = Array(try JSONEncoder().encode(request)) } catch {
            throw AppexError(
                .coding,
                "cannot encode \(Request.self) for \(configuration.identity.bundleIdentifier)",
                context: errorContext(),
                underlyingError: error
            )
        }
        let reply = try await call(bytes, timeout: timeout)
        do { return try JSONDecoder().decode(Reply.self, from: Data(reply)) } catch {
            throw AppexError(
                .coding,
                "the reply of \(configuration.identity.bundleIdentifier) is not a \(Reply.self)",
                context: errorContext(),
                underlyingError: error
            )
        }
    }

    /// Sends raw bytes and returns the raw reply, launching the process if needed.
    public func call(_ request: [UInt8], timeout: Duration? = nil) async throws(AppexError) -> [UInt8] {
        try await callInPlace(request, timeout: timeout).bytes
    }

    /// Sends raw bytes and returns the reply where it arrived: a large reply that came in the
    /// extension's sealed shared memory is read in place, never copied (see `Payload`).
    public func callInPlace(_ request: [UInt8], timeout: Duration? = nil) async throws(AppexError) -> Payload {
        try await perform(request, kind: .request, timeout: timeout)
    }

    /// One call of `kind` — a request of `send`, or a remote actor's invocation — on the
    /// running process, launched if needed; counted as activity for the idle timeout; a failure
    /// as ``translate(_:child:)`` reports it.
    func perform(_ request: [UInt8], kind: Frame.Kind, timeout: Duration?) async throws(AppexError) -> Payload {
        var child = try await runningOffPool()
        // A process that retires (its bundle was replaced) takes no new call: the next one does.
        while !child.activity.withLock({ activity in
            if activity.retiring { return false }
            activity.inFlight += 1
            activity.generation &+= 1
            return true
        }) {
            child = try await runningOffPool()
        }
        defer { callEnded(child) }
        let started = ContinuousClock.now
        do {
            let reply = try await child.connection.callInPlace(request, kind: kind, timeout: timeout)
            counters.called(
                sent: request.count,
                received: reply.count,
                nanoseconds: Self.nanoseconds(since: started),
                failed: false
            )
            return reply
        } catch {
            counters.called(
                sent: request.count,
                received: 0,
                nanoseconds: Self.nanoseconds(since: started),
                failed: true
            )
            throw translate(error, child: child)
        }
    }

    static func nanoseconds(since start: ContinuousClock.Instant) -> UInt64 {
        let elapsed = (ContinuousClock.now - start).components
        return UInt64(max(0, elapsed.seconds)) &* 1_000_000_000 &+ UInt64(max(0, elapsed.attoseconds / 1_000_000_000))
    }

    /// After the last call in flight, ends the process if no call comes within the idle timeout.
    func callEnded(_ child: Child) {
        let (idle, generation, retiring) = child.activity.withLock { activity -> (Bool, UInt64, Bool) in
            activity.inFlight -= 1
            return (activity.inFlight == 0, activity.generation, activity.retiring)
        }
        if idle, retiring { return endRetired(child) }
        guard idle, let timeout = configuration.idleTimeout else { return }
        Task { [weak self] in
            try? await Task.sleep(for: timeout)
            let stillIdle = child.activity.withLock {
                $0.inFlight == 0 && $0.generation == generation && !$0.retiring
            }
            guard stillIdle, let self else { return }
            let ended = self.state.withLock { state -> Bool in
                guard case .running(let current) = state.phase, current === child else { return false }
                state.phase = .idle  // ended on purpose: not an interruption, not a crash
                return true
            }
            if ended {
                child.connection.invalidate()
                child.kill()
                self.counters.stopped(pid: child.pid)
            }
        }
    }

    /// A failure of a call on the connection, as this process reports it: named after the
    /// extension and its pid; the end of the connection is `interrupted`.
    func translate(_ error: AppexError, child: Child) -> AppexError {
        let name = configuration.identity.bundleIdentifier
        let context = errorContext(pid: child.pid)
        switch error.code {
        case .deadlineExceeded:
            return AppexError(.deadlineExceeded, "\(name) did not answer in time: \(error.message)", context: context)
        case .cancelled: return AppexError(.cancelled, "the call to \(name) was cancelled", context: context)
        case .remoteFailure: return AppexError(.remoteFailure, "\(name) failed: \(error.message)", context: context)
        case .invalidated:
            return AppexError(.invalidated, "the connection to \(name) was invalidated", context: context)
        case .protocolViolation:
            return AppexError(
                .protocolViolation,
                "\(name) (pid \(child.pid)) broke the protocol and was disconnected: \(error.message)",
                context: context,
                underlyingError: error.underlyingError
            )
        case .frameTooLarge, .coding: return error.updatingContext { $0 = context }
        default:
            var context = context
            context.exceededLimit = child.process.exitStatus?.exceededLimit?.rawValue
            return AppexError(
                .interrupted,
                "\(name) (pid \(child.pid)) ended during the call (\(child.ending))",
                context: context,
                underlyingError: error
            )
        }
    }

    /// What errors about this extension are about: its bundle, its path, its point, and the
    /// process (`pid`) when there is one.
    func errorContext(pid: Int32? = nil) -> AppexError.Context {
        Self.errorContext(configuration.identity, pid: pid)
    }

    static func errorContext(_ identity: AppExtensionIdentity, pid: Int32? = nil) -> AppexError.Context {
        AppexError.Context(
            bundleIdentifier: identity.bundleIdentifier,
            path: identity.bundlePath,
            extensionPoint: identity.extensionPointIdentifier,
            peer: pid
        )
    }

    /// On the connection's reader thread (never the cooperative pool): waits up to a second for
    /// the reaper to record the child's exit, so errors can say how it ended. The connection
    /// closes when the kernel closes the child's descriptors, before it has torn down the rest
    /// (its memory, its PID namespace): on a loaded machine that took longer than the 250 ms
    /// this waited before, and a SIGKILL was reported as "still exiting" (a fresh clone's main
    /// tier beside the fuzz build, 2026-12-07). Usually the status is there at once.
    static func awaitExitStatus(_ child: Child) {
        _ = child.process.exitStatus(within: .seconds(1))
    }

    func childEnded(pid: Int32, reason: AppexError) {
        let current = state.withLock { state -> Child? in
            if case .running(let child) = state.phase, child.pid == pid { return child }
            return nil
        }
        if let current { Self.awaitExitStatus(current) }
        let (wasCurrent, invalidated) = state.withLock { state -> (Bool, Bool) in
            guard case .running(let child) = state.phase, child.pid == pid else {
                if case .invalidated = state.phase { return (false, true) }
                return (false, false)
            }
            state.phase = .idle
            state.crashes.append(.now)
            return (true, false)
        }
        guard wasCurrent, !invalidated else { return }
        current?.kill()  // a broken protocol leaves a live process: end it
        counters.interrupted(pid: pid)
        var context = errorContext(pid: pid)
        context.exceededLimit = current?.process.exitStatus?.exceededLimit?.rawValue
        configuration.onInterruption(
            AppexError(
                .interrupted,
                "\(configuration.identity.bundleIdentifier) (pid \(pid)) ended"
                    + (current.map { " (\($0.ending))" } ?? ""),
                context: context,
                underlyingError: reason
            )
        )
    }
}
