public import AppexCore
public import AppexIPC
import AppexSystem
import Foundation
public import Logging
import Synchronization

/// A running (or runnable) extension: launched on first use, reused while alive, relaunched
/// after it dies, never launched unless it is valid, enabled and signed as discovered.
///
/// Mirrors ExtensionFoundation's `AppExtensionProcess` with XPC's failure semantics:
/// *interruption* — the process died; pending calls fail at once with
/// ``AppexError/Code/interrupted`` and the next call relaunches it — and *invalidation* — closed
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
        /// Receives the extension's standard output and error, a line each, with its bundle id.
        public var logger: Logger
        /// How long a process may sit with no call before it is ended (quietly: not an
        /// interruption; the next call launches it again). `nil`, the default: never.
        public var idleTimeout: Duration?
        /// The connection's limits: the largest frame through the socket, the largest in
        /// shared memory, and the size from which payloads travel in shared memory. The
        /// extension adopts them in the handshake.
        public var channel = FrameChannel.Configuration()
        /// How long a new process has to answer the handshake. Default 10 s.
        public var launchTimeout: Duration = .seconds(10)
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
            logger: Logger = Logger(label: "appex.extension", factory: { _ in SwiftLogNoOpLogHandler() }),
            onInterruption: @escaping @Sendable (AppexError) -> Void = { _ in }
        ) {
            self.identity = identity
            self.hostBundlePath = hostBundlePath
            self.environment = environment
            self.logger = logger
            self.onInterruption = onInterruption
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

    private final class Child: Sendable {
        let pid: Int32
        /// A pidfd of the process where the kernel has them: signals through it can never reach
        /// another process that reused the pid after the reaper collected this one.
        let pidfd: OwnedDescriptor?
        let connection: IPCConnection
        let exitStatus = Mutex<ExitStatus?>(nil)
        /// Calls in flight, and a counter that changes with every call (for idle checks).
        let activity = Mutex<(inFlight: Int, generation: UInt64)>((0, 0))
        init(pid: Int32, pidfd: OwnedDescriptor?, connection: IPCConnection) {
            self.pid = pid
            self.pidfd = pidfd
            self.connection = connection
        }

        /// Kills the process (SIGKILL), and only it.
        func kill() {
            if let pidfd {
                ProcessControl.signal(Signal.kill, through: pidfd)
            } else if exitStatus.withLock({ $0 }) == nil {
                ProcessControl.signal(Signal.kill, toProcess: pid)  // no pidfd (old kernel): a small window remains
            }
        }
    }

    private enum Phase {
        case idle
        case running(Child)
        case invalidated
    }

    private struct State {
        var phase: Phase = .idle
        var crashes: [ContinuousClock.Instant] = []
    }

    /// The configuration.
    public let configuration: Configuration
    /// The distributed-actor system over this process's connection: resolve the extension's
    /// `@Resolvable` interfaces with it (the process is launched on the first call), and export
    /// the host's own actors for the extension to call. A remote call fails as
    /// ``send(_:expecting:timeout:)`` does, with the same ``AppexError`` codes.
    public let actorSystem = IPCActorSystem()
    /// The thread that reads this process's connection (across relaunches) and starts the
    /// handlers of the extension's calls: ``Configuration/executor``, or one of the few executors
    /// every process shares. A caller that prefers it
    /// (`withTaskExecutorPreference(process.executor)`) resumes right where the reply is read,
    /// with no thread woken in between: the fastest way to make many calls in a row.
    public let executor: IPCExecutor
    private let discovery: ExtensionDiscovery
    private let state = Mutex(State())

    /// Prepares to run `configuration.identity`; checks now that it may run (reading the bundles
    /// on this thread: from async code, use the async form).
    ///
    /// - Parameter discovery: the host's discovery, to share its verified bundles (a host that
    ///   launches many processes should pass one); by default a new one.
    /// - Throws: ``AppexError`` `refused` with the reason (not found, invalid, unapproved,
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
    private static func checkedDiscovery(
        _ configuration: Configuration,
        _ discovery: ExtensionDiscovery?
    ) throws(AppexError) -> ExtensionDiscovery {
        let found: ExtensionDiscovery
        if let discovery {
            found = discovery
        } else {
            found = try ExtensionDiscovery(
                hostBundleAt: configuration.hostBundlePath,
                environment: configuration.environment
            )
        }
        try checkMayRun(configuration.identity, in: found)
        return found
    }

    private init(configuration: Configuration, checked discovery: ExtensionDiscovery) {
        self.configuration = configuration
        self.discovery = discovery
        executor = configuration.executor ?? IPCExecutor.shared()
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

    /// Ends the process and refuses further calls.
    public func invalidate() {
        let child = state.withLock { state -> Child? in
            defer { state.phase = .invalidated }
            if case .running(let child) = state.phase { return child }
            return nil
        }
        if let child {
            child.connection.invalidate()
            child.kill()
        }
    }

    // MARK: - Calls

    /// Sends `request` (JSON) and decodes the reply, launching the process if needed.
    ///
    /// - Throws: ``AppexError``: `interrupted` (the process died; the next call relaunches),
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
    private func perform(_ request: [UInt8], kind: Frame.Kind, timeout: Duration?) async throws(AppexError) -> Payload {
        let child = try await runningOffPool()
        child.activity.withLock {
            $0.inFlight += 1
            $0.generation &+= 1
        }
        defer { callEnded(child) }
        do {
            return try await child.connection.callInPlace(request, kind: kind, timeout: timeout)
        } catch {
            throw translate(error, child: child)
        }
    }

    /// After the last call in flight, ends the process if no call comes within the idle timeout.
    private func callEnded(_ child: Child) {
        let (idle, generation) = child.activity.withLock { activity -> (Bool, UInt64) in
            activity.inFlight -= 1
            return (activity.inFlight == 0, activity.generation)
        }
        guard idle, let timeout = configuration.idleTimeout else { return }
        Task { [weak self] in
            try? await Task.sleep(for: timeout)
            let stillIdle = child.activity.withLock { $0.inFlight == 0 && $0.generation == generation }
            guard stillIdle, let self else { return }
            let ended = self.state.withLock { state -> Bool in
                guard case .running(let current) = state.phase, current === child else { return false }
                state.phase = .idle  // ended on purpose: not an interruption, not a crash
                return true
            }
            if ended {
                child.connection.invalidate()
                child.kill()
            }
        }
    }

    /// A failure of a call on the connection, as this process reports it: named after the
    /// extension and its pid; the end of the connection is `interrupted`.
    private func translate(_ error: AppexError, child: Child) -> AppexError {
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
            return AppexError(
                .interrupted,
                "\(name) (pid \(child.pid)) ended during the call (\(Self.describe(child.exitStatus.withLock { $0 })))",
                context: context,
                underlyingError: error
            )
        }
    }

    /// What errors about this extension are about: its bundle, its path, its point, and the
    /// process (`pid`) when there is one.
    private func errorContext(pid: Int32? = nil) -> AppexError.Context {
        Self.errorContext(configuration.identity, pid: pid)
    }

    private static func errorContext(_ identity: AppExtensionIdentity, pid: Int32? = nil) -> AppexError.Context {
        AppexError.Context(
            bundleIdentifier: identity.bundleIdentifier,
            path: identity.bundlePath,
            extensionPoint: identity.extensionPointIdentifier,
            peer: pid
        )
    }

    /// On the connection's reader thread (never the cooperative pool): waits up to 20 ms for
    /// the reaper to record the child's exit, so errors can say how it ended.
    private static func awaitExitStatus(_ child: Child) {
        let deadline = ContinuousClock.now + .milliseconds(20)
        while child.exitStatus.withLock({ $0 }) == nil && ContinuousClock.now < deadline {
            ProcessControl.sleep(microseconds: 500)
        }
    }

    private static func describe(_ status: ExitStatus?) -> String {
        status?.description ?? "still exiting"
    }

    // MARK: - Launching

    /// The running child, launched if needed without holding any thread while it waits: the
    /// spawn runs on the spawner thread, the wait for the extension's hello on the process's
    /// event thread.
    private func runningOffPool() async throws(AppexError) -> Child {
        if let child = try runningOrMayLaunch() { return child }
        try checkMayRun()
        var (prepared, childEnds) = try prepareLaunch()
        let pid: Int32
        do {
            pid = try await ProcessControl.spawnExtension(
                prepared.executable,
                arguments: [prepared.executable],
                environment: prepared.variables,
                connection: childEnds!.connection.rawValue,
                output: childEnds!.output.rawValue,
                workingDirectory: prepared.workingDirectory
            )
        } catch {
            throw AppexError(
                .launchFailed,
                "cannot launch \(prepared.executable)",
                context: errorContext(),
                underlyingError: error
            )
        }
        // Close our copies of the child's ends now, before the handshake: only the child keeps
        // them, so its death — even before it says hello — is the end of the stream at once.
        childEnds = nil
        try startHandshake(prepared, pid: pid)
        let answered = await EventThread.shared.readable(
            prepared.channel.socket.rawValue,
            within: configuration.launchTimeout
        )
        return try adopt(try finishLaunch(prepared, pid: pid, answered: answered))
    }

    /// Launches the process unless it runs, holding no thread while it waits.
    func launchIfNeededAsync() async throws(AppexError) {
        _ = try await runningOffPool()
    }

    /// Launches the process unless it runs, waiting on this thread.
    @available(
        *,
        noasync,
        message:
            "waits for the extension's handshake on this thread; use the async launch path (makeConnection() async)"
    )
    func launchIfNeeded() throws(AppexError) {
        if try runningOrMayLaunch() != nil { return }
        try checkMayRun()
        var (prepared, childEnds) = try prepareLaunch()
        let pid: Int32
        do {
            pid = try ProcessControl.spawnExtension(
                prepared.executable,
                arguments: [prepared.executable],
                environment: prepared.variables,
                connection: childEnds!.connection.rawValue,
                output: childEnds!.output.rawValue,
                workingDirectory: prepared.workingDirectory
            )
        } catch {
            throw AppexError(
                .launchFailed,
                "cannot launch \(prepared.executable)",
                context: errorContext(),
                underlyingError: error
            )
        }
        childEnds = nil  // only the child keeps them (see the async path)
        try startHandshake(prepared, pid: pid)
        let answered = (try? prepared.channel.waitUntilReadable(timeout: configuration.launchTimeout)) ?? true
        _ = try adopt(try finishLaunch(prepared, pid: pid, answered: answered))
    }

    /// The running child; `nil` when one may be launched; or why not (invalidated, crash budget).
    private func runningOrMayLaunch() throws(AppexError) -> Child? {
        let result = state.withLock { state -> Result<Child?, AppexError> in
            switch state.phase {
            case .running(let child): return .success(child)
            case .invalidated:
                return .failure(
                    AppexError(
                        .invalidated,
                        "\(configuration.identity.bundleIdentifier)'s process was invalidated",
                        context: errorContext()
                    )
                )
            case .idle:
                let now = ContinuousClock.now
                state.crashes.removeAll { now - $0 > configuration.crashWindow }
                if state.crashes.count >= configuration.crashLimit {
                    return .failure(
                        AppexError(
                            .crashBudgetExhausted,
                            "\(configuration.identity.bundleIdentifier) crashed \(state.crashes.count) times within \(configuration.crashWindow); it is not relaunched",
                            context: errorContext()
                        )
                    )
                }
                return .success(nil)
            }
        }
        return try result.get()
    }

    /// Makes `child` the running process, unless another caller launched one first (then that
    /// one wins and `child` is ended) or the process was invalidated meanwhile.
    private func adopt(_ child: Child) throws(AppexError) -> Child {
        let winner = state.withLock { state -> Child? in
            if case .running(let other) = state.phase { return other }  // another caller launched first
            if case .invalidated = state.phase { return nil }
            state.phase = .running(child)
            return child
        }
        guard let winner else {
            child.connection.invalidate()
            child.kill()
            throw AppexError(
                .invalidated,
                "\(configuration.identity.bundleIdentifier)'s process was invalidated",
                context: errorContext(pid: child.pid)
            )
        }
        if winner !== child {
            child.connection.invalidate()
            child.kill()
        }
        return winner
    }

    private func checkMayRun() throws(AppexError) {
        try Self.checkMayRun(configuration.identity, in: discovery)
    }

    private static func checkMayRun(
        _ identity: AppExtensionIdentity,
        in discovery: ExtensionDiscovery
    ) throws(AppexError) {
        let snapshot = try discovery.snapshot()
        let found = snapshot.extensions.first {
            $0.path == identity.bundlePath && $0.bundleIdentifier == identity.bundleIdentifier
        }
        guard let found, found.state == .enabled, found.identity == identity else {
            let diagnosis = try discovery.diagnose(bundleIdentifier: identity.bundleIdentifier)
            var message = "cannot launch \(identity.bundleIdentifier): " + diagnosis.lines.joined(separator: " ")
            if let found, found.state == .enabled, found.identity != identity {
                message =
                    "cannot launch \(identity.bundleIdentifier): the bundle at \(identity.bundlePath) changed since it was discovered; discover it again"
            }
            throw AppexError(.refused, message, context: errorContext(identity))
        }
    }

    /// Everything a launch needs before the spawn and keeps after it.
    private struct PreparedLaunch: Sendable {
        let executable: String
        let channel: FrameChannel
        let outputReader: OwnedDescriptor
        let workingDirectory: String
        let variables: [String]
    }

    /// The child's ends of its connection and output pipe: the host drops its copies right
    /// after the spawn.
    private struct ChildEnds: Sendable {
        let connection: OwnedDescriptor
        let output: OwnedDescriptor
    }

    private func prepareLaunch() throws(AppexError) -> (PreparedLaunch, ChildEnds?) {
        let identity = configuration.identity
        // checkMayRun() has just verified this load; reload only if it changed since.
        let bundle =
            discovery.currentBundle(at: identity.bundlePath)
            ?? AppexBundle.load(at: identity.bundlePath, as: .appExtension)
        guard bundle.isValid, let executableName = bundle.info.executableName else {
            throw AppexError(
                .refused,
                "cannot launch \(identity.bundleIdentifier): the bundle is not valid",
                context: errorContext(),
                problems: bundle.problems
            )
        }
        let (host, extensionEnd) = try makeSocketPair()
        // Before the child exists: the kernel stamps its hello with its real pid and uid.
        let channel = FrameChannel(owning: host, configuration: configuration.channel)
        do { try channel.attestSenders(true) } catch {
            throw AppexError(
                .launchFailed,
                "cannot prepare the connection for \(identity.bundleIdentifier)",
                context: errorContext(),
                underlyingError: error
            )
        }
        let outputReader: OwnedDescriptor
        let outputWriter: OwnedDescriptor
        do { (outputReader, outputWriter) = try Pipe.make() } catch {
            throw AppexError(
                .launchFailed,
                "cannot make the output pipe for \(identity.bundleIdentifier)",
                context: errorContext(),
                underlyingError: error
            )
        }
        let workingDirectory = configuration.environment.home + "/ExtensionData/" + identity.bundleIdentifier
        try configuration.environment.makePrivateDirectory(workingDirectory)
        return (
            PreparedLaunch(
                executable: identity.bundlePath + "/" + executableName,
                channel: channel,
                outputReader: outputReader,
                workingDirectory: workingDirectory,
                variables: childEnvironment(workingDirectory: workingDirectory)
            ),
            ChildEnds(connection: extensionEnd, output: outputWriter)
        )
    }

    /// Right after the spawn: logs the child's output (what it printed before a failed handshake
    /// says why), applies the point's limits and sends the host's hello.
    private func startHandshake(_ prepared: PreparedLaunch, pid: Int32) throws(AppexError) {
        guard forwardOutput(prepared.outputReader, pid: pid) else {
            Self.abandonLaunch(pid)
            throw AppexError(
                .launchFailed,
                "cannot log \(configuration.identity.bundleIdentifier)'s output (the event thread is not available); the process was killed",
                context: errorContext(pid: pid)
            )
        }
        do {
            try applyLimits(to: pid)
        } catch {
            Self.abandonLaunch(pid)
            throw error
        }
        do {
            try Handshake.send(
                Handshake.HostHello(
                    hostBundleIdentifier: discovery.hostBundleIdentifier,
                    extensionBundleIdentifier: configuration.identity.bundleIdentifier,
                    extensionPoint: configuration.identity.extensionPointIdentifier.description,
                    channel: configuration.channel
                ),
                on: prepared.channel
            )
        } catch {
            Self.abandonLaunch(pid)
            throw handshakeFailed(error, pid: pid)
        }
    }

    /// A launch that failed in the handshake: the process ended first (its output in the
    /// host's log says why), or it did not answer as an extension must.
    private func handshakeFailed(_ error: AppexError, pid: Int32) -> AppexError {
        let name = configuration.identity.bundleIdentifier
        if error.code == .closed {
            return AppexError(
                .launchFailed,
                "\(name) (pid \(pid)) ended before completing the handshake; see its output in the host's log",
                context: errorContext(pid: pid),
                underlyingError: error
            )
        }
        return AppexError(
            .launchFailed,
            "\(name) (pid \(pid)) did not complete the handshake",
            context: errorContext(pid: pid),
            underlyingError: error
        )
    }

    /// After the wait for the extension's hello (`answered`: something arrived in time): checks
    /// the hello and makes the child, reaped by the event thread. Ends the process on failure.
    private func finishLaunch(
        _ prepared: PreparedLaunch,
        pid launched: Int32,
        answered: Bool
    ) throws(AppexError) -> Child {
        do {
            try handshake(on: prepared.channel, pid: launched, answered: answered)
        } catch {
            Self.abandonLaunch(launched)
            throw error
        }
        // Opened before the event thread reaps it: until it is reaped, the pid cannot name another process.
        let pidfd = ProcessControl.openPidfd(launched)
        let child = Child(
            pid: launched,
            pidfd: pidfd,
            connection: IPCConnection(
                channel: prepared.channel,
                handler: configuration.exportedHandler,
                invocationHandler: actorSystem.invocationHandler,
                executor: executor,
                onClose: { [weak self] reason in
                    self?.childEnded(pid: launched, reason: reason)
                }
            )
        )
        guard reap(child) else {
            Self.abandonLaunch(launched)
            throw AppexError(
                .launchFailed,
                "cannot watch \(configuration.identity.bundleIdentifier) for its exit (the event thread is not available); the process was killed",
                context: errorContext(pid: launched)
            )
        }
        child.connection.start()
        return child
    }

    /// Ends a child whose launch failed — its whole process group, so nothing it forked stays
    /// behind — and reaps it. Safe by pid: not yet reaped, the pid (and group id) cannot be reused.
    private static func abandonLaunch(_ pid: Int32) {
        ProcessControl.signal(Signal.kill, toProcess: -pid)
        ProcessControl.signal(Signal.kill, toProcess: pid)
        _ = ProcessControl.waitForExit(of: pid)
    }

    /// Applies the extension point's `AppexResourceLimits` to the new process (`prlimit`), before
    /// it is spoken to.
    private func applyLimits(to pid: Int32) throws(AppexError) {
        let point = configuration.identity.extensionPointIdentifier
        guard let declaration = try discovery.host().extensionPoints.first(where: { $0.identifier == point }) else {
            return
        }
        let limits = declaration.resourceLimits
        let wanted: [(ProcessControl.Resource, UInt64?, String)] = [
            (.addressSpace, limits.memoryBytes, "MemoryBytes"), (.openFiles, limits.openFiles, "OpenFiles"),
            (.cpuSeconds, limits.cpuSeconds, "CPUSeconds"), (.processes, limits.processes, "Processes"),
        ]
        for (resource, value, name) in wanted {
            guard let value else { continue }
            do { try ProcessControl.setLimit(resource, to: value, forProcess: pid) } catch {
                throw AppexError(
                    .launchFailed,
                    "cannot apply \(point)'s limit \(name) = \(value) to \(configuration.identity.bundleIdentifier) (pid \(pid))",
                    context: errorContext(pid: pid),
                    underlyingError: error
                )
            }
        }
    }

    /// Hello both ways: the extension must speak this protocol, be the bundle we launched,
    /// bind in code to the point its Info.plist names, and be the process we spawned.
    private func handshake(on channel: FrameChannel, pid: Int32, answered: Bool) throws(AppexError) {
        let identity = configuration.identity
        let name = identity.bundleIdentifier
        let answer: Handshake.ExtensionHello
        do throws(AppexError) {
            guard answered else {
                throw AppexError(.deadlineExceeded, "no hello within \(configuration.launchTimeout)")
            }
            // The kernel's word on who wrote the hello: the process we launched, as our user.
            let sender = try channel.peekSenderCredentials()
            try channel.attestSenders(false)
            if let sender, sender.processIdentifier != pid || sender.userIdentifier != ProcessControl.userIdentifier {
                throw AppexError(
                    .protocolViolation,
                    "the hello came from \(sender), not the launched process (pid \(pid), uid \(ProcessControl.userIdentifier))"
                )
            }
            answer = try Handshake.receive(
                Handshake.ExtensionHello.self,
                on: channel,
                timeout: configuration.launchTimeout
            )
        } catch {
            throw handshakeFailed(error, pid: pid)
        }
        let context = errorContext(pid: pid)
        if let reason = answer.declined {
            throw AppexError(.refused, "\(name) declined the host's connection: \(reason)", context: context)
        }
        if answer.protocolVersion != Handshake.protocolVersion {
            throw AppexError(
                .launchFailed,
                "\(name) speaks protocol \(answer.protocolVersion); this host speaks \(Handshake.protocolVersion)",
                context: context
            )
        }
        if answer.extensionBundleIdentifier != name || answer.processIdentifier != pid {
            throw AppexError(
                .launchFailed,
                "the process that answered (\(answer.extensionBundleIdentifier), pid \(answer.processIdentifier)) is not \(name), pid \(pid)",
                context: context
            )
        }
        if answer.boundExtensionPoint != identity.extensionPointIdentifier.description {
            throw AppexError(
                .launchFailed,
                "\(name)'s code binds to \(answer.boundExtensionPoint), but its Info.plist names \(identity.extensionPointIdentifier): rebuild the bundle with `appex bundle`",
                context: context
            )
        }
    }

    private func makeSocketPair() throws(AppexError) -> (OwnedDescriptor, OwnedDescriptor) {
        do { return try Socket.pair() } catch {
            throw AppexError(
                .launchFailed,
                "cannot make the connection for \(configuration.identity.bundleIdentifier)",
                context: errorContext(),
                underlyingError: error
            )
        }
    }

    /// The documented minimal environment of an extension process (docs/DESIGN.md, "Launching").
    private func childEnvironment(workingDirectory: String) -> [String] {
        let inherited = ProcessInfo.processInfo.environment
        var variables = [
            "PATH=/usr/local/bin:/usr/bin:/bin",
            "HOME=\(inherited["HOME"] ?? "/")",
            "TMPDIR=\(inherited["TMPDIR"] ?? "/tmp")",
            "APPEX_HOME=\(configuration.environment.home)",
            "APPEX_KEYS_DIR=\(configuration.environment.keysDirectory)",
            "APPEX_CONNECTION_FD=3",
            "APPEX_HOST_PID=\(ProcessControl.processIdentifier)",
            "APPEX_BUNDLE_PATH=\(configuration.identity.bundlePath)",
            "APPEX_BUNDLE_IDENTIFIER=\(configuration.identity.bundleIdentifier)",
            "APPEX_EXTENSION_POINT=\(configuration.identity.extensionPointIdentifier)",
            "APPEX_DATA_DIRECTORY=\(workingDirectory)",
        ]
        if let language = inherited["LANG"] { variables.append("LANG=\(language)") }
        return variables
    }

    /// Logs the child's output a line at a time, read by the process's event thread.
    private func forwardOutput(_ reader: OwnedDescriptor, pid: Int32) -> Bool {
        let logger = configuration.logger
        let name = configuration.identity.bundleIdentifier
        return EventThread.shared.forEachLine(of: reader) { line in
            logger.info("\(line)", metadata: ["extension": "\(name)", "pid": "\(pid)"])
        }
    }

    /// Reaps the child when it ends, on the process's event thread (woken by its pidfd), so
    /// it is always reaped and no thread waits for it.
    private func reap(_ child: Child) -> Bool {
        EventThread.shared.whenExits(child.pid, pidfd: child.pidfd) { status in
            child.exitStatus.withLock { $0 = status }
            // A child that died leaves its socket end closed; make sure the reader wakes anyway.
            child.connection.channel.shutdown()
        }
    }

    private func childEnded(pid: Int32, reason: AppexError) {
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
        configuration.onInterruption(
            AppexError(
                .interrupted,
                "\(configuration.identity.bundleIdentifier) (pid \(pid)) ended",
                context: errorContext(pid: pid),
                underlyingError: reason
            )
        )
    }
}
