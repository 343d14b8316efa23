import AppexCore
@_spi(Wire) import AppexIPC
import AppexStore
import AppexSystem
import AppexVocabulary
import Foundation
import Logging
import Synchronization

// The launch contract: prepare the connection and output, spawn on the spawner thread, apply
// the point's limits, the handshake (blocking and async waits), and the child's environment.
extension AppExtensionProcess {
    // MARK: - Launching

    /// The running child, launched if needed without holding any thread while it waits: the
    /// spawn runs on the spawner thread, the wait for the extension's hello on the process's
    /// event thread.
    func runningOffPool() async throws(AppexError) -> Child {
        if let child = try runningOrMayLaunch() { return child }
        try checkMayRun()
        var (prepared, childEnds) = try prepareLaunch()
        let pid: Int32
        do { pid = try await prepared.spawn(childEnds!).run() } catch {
            throw spawnFailed(prepared, error)
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
        do { pid = try prepared.spawn(childEnds!).runWaiting() } catch {
            throw spawnFailed(prepared, error)
        }
        childEnds = nil  // only the child keeps them (see the async path)
        try startHandshake(prepared, pid: pid)
        let answered = (try? prepared.channel.waitUntilReadable(timeout: configuration.launchTimeout)) ?? true
        _ = try adopt(try finishLaunch(prepared, pid: pid, answered: answered))
    }

    /// Why a launch failed at the spawn: the executable, the extension, and the C library's word.
    private func spawnFailed(_ prepared: PreparedLaunch, _ error: SystemError) -> AppexError {
        prepared.sandbox?.cgroup?.remove()
        return AppexError(
            .launchFailed,
            "cannot launch \(prepared.executable.path)",
            context: errorContext(),
            underlyingError: error
        )
    }

    /// The running child; `nil` when one may be launched; or why not (invalidated, crash budget).
    func runningOrMayLaunch() throws(AppexError) -> Child? {
        if bundleChanged.load(ordering: .relaxed) { retireIfReplaced() }
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
    func adopt(_ child: Child) throws(AppexError) -> Child {
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
        } else {
            counters.launched(pid: child.pid)
            watchForUpgrade()
        }
        return winner
    }

    func checkMayRun() throws(AppexError) {
        try Self.checkMayRun(configuration.identity, in: discovery)
    }

    static func checkMayRun(
        _ identity: AppExtensionIdentity,
        in discovery: ExtensionDiscovery
    ) throws(AppexError) {
        // The one extension's entry, not a whole snapshot: a host launching n extensions would
        // otherwise stat every bundle n times (docs/decisions/0008-discovery-caching.md).
        let found = try discovery.entry(for: identity).flatMap {
            $0.bundleIdentifier == identity.bundleIdentifier ? $0 : nil
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
    struct PreparedLaunch: Sendable {
        /// The executable, opened once and checked against the seal: what runs.
        let executable: OpenedExecutable
        let channel: FrameChannel
        let outputReader: OwnedDescriptor
        let workingDirectory: String
        let variables: [String]
        /// The sandbox made concrete for this launch (`nil`: unsandboxed), and what it was made from.
        let sandbox: Sandbox.Prepared?
        let profile: SandboxProfile
        /// The host's end of the keychain broker's socket, and who the extension is to it.
        let broker: PacketSocket
        let brokerContext: ProcessContext
        /// Enhanced security: the bundle whose executable is hashed again once it runs, the
        /// SHA-256 its seal gives it, and the wall clock when it was checked
        /// (``AppexBundle/proveUnchangedSinceExec(_:sealed:checkedAt:)``).
        let proof: (bundle: AppexBundle, sealed: [UInt8], checkedAt: Int64)?
        /// The bundle's seal file when the launch began (see `Child.seal`).
        let seal: FileStatus?

        /// The spawn of this launch, with the child's ends of its connection, output, broker
        /// and keychain index.
        func spawn(_ ends: ChildEnds) -> SandboxedSpawn {
            SandboxedSpawn(
                executable: executable,
                arguments: [executable.path],
                environment: variables,
                inherited: [ends.connection.rawValue, ends.broker.rawValue]
                    + (ends.keychainIndex.map { [$0.rawValue] } ?? []),
                output: ends.output.rawValue,
                workingDirectory: workingDirectory,
                sandbox: sandbox
            )
        }
    }

    /// The child's ends of its connection and output pipe: the host drops its copies right
    /// after the spawn.
    struct ChildEnds: Sendable {
        let connection: OwnedDescriptor
        let output: OwnedDescriptor
        /// Descriptor 4 in the child: its keychain broker (`APPEX_KEYCHAIN_FD`).
        let broker: OwnedDescriptor
        /// Descriptor 5: the keychain's WAL index, read-only (`APPEX_KEYCHAIN_INDEX_FD`), when it
        /// exists: the extension's cached reads stay valid while it says nothing was committed.
        let keychainIndex: OwnedDescriptor?
    }

    func prepareLaunch() throws(AppexError) -> (PreparedLaunch, ChildEnds?) {
        let identity = configuration.identity
        let seal = currentSeal
        // checkMayRun() has just verified this load; reload only if it changed since.
        let bundle =
            discovery.currentBundle(at: identity.bundlePath)
            ?? AppexBundle.load(at: identity.bundlePath, as: .appExtension)
        guard bundle.isValid, bundle.info.executableName != nil else {
            throw AppexError(
                .refused,
                "cannot launch \(identity.bundleIdentifier): the bundle is not valid",
                context: errorContext(),
                problems: bundle.problems
            )
        }
        let workingDirectory = configuration.environment.home + "/ExtensionData/" + identity.bundleIdentifier
        let point = try discovery.host().extensionPoints.first { $0.identifier == identity.extensionPointIdentifier }
        let executable: OpenedExecutable
        let sealed: [UInt8]
        let strict = point?.requiresEnhancedSecurity ?? false
        let checkedAt = Syscalls.wallClockNanoseconds()
        do {
            (executable, sealed) = try bundle.openCheckedExecutable(strict: strict)
        } catch {
            throw AppexError(
                .refused,
                "cannot launch \(identity.bundleIdentifier): \(error.message)",
                context: errorContext(),
                underlyingError: error
            )
        }
        var sandbox = ExtensionSandbox(
            bundleIdentifier: identity.bundleIdentifier,
            bundlePath: identity.bundlePath,
            entitlements: bundle.entitlements,
            extensionPoint: identity.extensionPointIdentifier,
            point: point,
            environment: configuration.environment,
            workingDirectory: workingDirectory,
            interpreter: executable.interpreter
        )
        sandbox.profile.limitsMemoryByAddressSpace = configuration.limitsMemoryByAddressSpace
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
        let keychainIndex = KeychainIndexFile.descriptor(
            configuration.environment.home + "/Keychains/keychain.sqlite-shm"
        )
        let broker: (attesting: PacketSocket, other: PacketSocket)
        do { broker = try PacketSocket.pair() } catch {
            throw AppexError(
                .launchFailed,
                "cannot make the keychain broker's socket for \(identity.bundleIdentifier)",
                context: errorContext(),
                underlyingError: error
            )
        }
        let brokerContext: ProcessContext
        if let team = bundle.team {
            brokerContext = ProcessContext(
                bundleIdentifier: identity.bundleIdentifier,
                team: team,
                entitlements: bundle.entitlements,
                kind: .appExtension
            )
        } else {
            throw AppexError(
                .refused,
                "cannot launch \(identity.bundleIdentifier): it is not signed",
                context: errorContext()
            )
        }
        // Its container, temporary and working directories, sandboxed or not (the benchmarks'
        // unsandboxed launches too). Then the sandbox, last, so no failure above leaves a cgroup.
        for directory in sandbox.directories {
            try configuration.environment.makePrivateDirectory(directory)
        }
        let prepared = configuration.isSandboxed ? try prepareSandbox(sandbox) : nil
        configuration.beforeSpawn?()
        return (
            PreparedLaunch(
                executable: executable,
                channel: channel,
                outputReader: outputReader,
                workingDirectory: workingDirectory,
                variables: childEnvironment(
                    workingDirectory: workingDirectory,
                    sandbox: sandbox,
                    keychainIndex: keychainIndex != nil
                ),
                sandbox: prepared,
                profile: sandbox.profile,
                broker: broker.attesting,
                brokerContext: brokerContext,
                proof: strict ? (bundle, sealed, checkedAt) : nil,
                seal: seal
            ),
            ChildEnds(
                connection: extensionEnd,
                output: outputWriter,
                broker: broker.other.descriptor,
                keychainIndex: keychainIndex
            )
        )
    }

    /// Right after the spawn: logs the child's output (what it printed before a failed handshake
    /// says why), applies the point's limits and sends the host's hello.
    func startHandshake(_ prepared: PreparedLaunch, pid: Int32) throws(AppexError) {
        guard forwardOutput(prepared.outputReader, pid: pid) else {
            Self.abandonLaunch(pid, cgroup: prepared.sandbox?.cgroup)
            throw AppexError(
                .launchFailed,
                "cannot log \(configuration.identity.bundleIdentifier)'s output (the event thread is not available); the process was killed",
                context: errorContext(pid: pid)
            )
        }
        do {
            try Handshake.send(
                Handshake.HostHello(
                    hostBundleIdentifier: discovery.hostBundleIdentifier,
                    extensionBundleIdentifier: configuration.identity.bundleIdentifier,
                    extensionPoint: configuration.identity.extensionPointIdentifier.description,
                    channel: configuration.channel,
                    features: Handshake.features
                ),
                on: prepared.channel
            )
        } catch {
            Self.abandonLaunch(pid, cgroup: prepared.sandbox?.cgroup)
            throw handshakeFailed(error, pid: pid)
        }
    }

    /// A launch that failed in the handshake: the process ended first (its output in the
    /// host's log says why), or it did not answer as an extension must.
    func handshakeFailed(_ error: AppexError, pid: Int32) -> AppexError {
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
    func finishLaunch(
        _ prepared: PreparedLaunch,
        pid launched: Int32,
        answered: Bool
    ) throws(AppexError) -> Child {
        let hello: Handshake.ExtensionHello
        do {
            hello = try handshake(
                on: prepared.channel,
                pid: launched,
                inOwnProcessNamespace: prepared.sandbox?.hasOwnProcessNamespace ?? false,
                answered: answered
            )
        } catch {
            Self.abandonLaunch(launched, cgroup: prepared.sandbox?.cgroup)
            throw error
        }
        // Its pidfd is opened before the event thread reaps it: until then the pid names it alone.
        let profile = prepared.sandbox == nil ? nil : prepared.profile
        let child = Child(
            process: ChildProcess(pid: launched),
            limits: (profile?.memoryBytes, profile?.cpuSeconds),
            connection: IPCConnection(
                channel: prepared.channel,
                handler: configuration.exportedHandler,
                invocationHandler: actorSystem.invocationHandler,
                executor: executor,
                onClose: { [weak self] reason in
                    self?.childEnded(pid: launched, reason: reason)
                }
            ),
            seal: prepared.seal
        )
        guard reap(child, cgroup: prepared.sandbox?.cgroup) else {
            Self.abandonLaunch(launched, cgroup: prepared.sandbox?.cgroup)
            throw AppexError(
                .launchFailed,
                "cannot watch \(configuration.identity.bundleIdentifier) for its exit (the event thread is not available); the process was killed",
                context: errorContext(pid: launched)
            )
        }
        if let seconds = profile?.cpuSeconds {
            let watch = CPUWatch.start(child.process, budget: .seconds(seconds)) { [weak child] in
                child?.activity.withLock { $0.generation } ?? 0
            }
            child.cpuWatch.withLock { $0 = watch }
        }
        child.connection.sendTraceContext(hello.features & Handshake.Feature.traceContext != 0)
        child.connection.start()
        if let proof = prepared.proof {
            // Off the launch's path: the hash after the exec, while the process runs and the
            // kernel write-denies the file.
            let executable = prepared.executable
            let logger = configuration.logger
            let bundleIdentifier = configuration.identity.bundleIdentifier
            DispatchQueue.global(qos: .utility).async { [weak child] in
                let holds = proof.bundle.proveUnchangedSinceExec(
                    executable,
                    sealed: proof.sealed,
                    checkedAt: proof.checkedAt
                )
                guard !holds else { return }
                child?.kill()
                logger.error(
                    "\(executable.path) is not what its seal covers after the exec (it changed after its check): \(bundleIdentifier) \(child == nil ? "had already ended" : "was ended")",
                    metadata: ["pid": "\(launched)"]
                )
            }
        }
        KeychainBroker(
            socket: prepared.broker,
            pid: launched,
            context: prepared.brokerContext,
            environment: configuration.environment,
            logger: configuration.logger,
            counters: counters
        ).start()
        return child
    }

    /// Ends a child whose launch failed — its whole process group, so nothing it forked stays
    /// behind — and reaps it. Safe by pid: not yet reaped, the pid (and group id) cannot be reused.
    static func abandonLaunch(_ pid: Int32, cgroup: ProcessCgroup?) {
        ProcessControl.signal(Signal.kill, toProcess: -pid)
        ProcessControl.signal(Signal.kill, toProcess: pid)
        _ = ProcessControl.waitForExit(of: pid)
        cgroup?.remove()
    }

    // MARK: - The sandbox

    /// Makes the sandbox's kernel objects (Landlock ruleset, pids cgroup); its directories are made before.
    /// Where the kernel lacks a facility: refused with `sandboxUnavailable` when the point
    /// requires the sandbox, else a warning naming what is missing.
    func prepareSandbox(_ sandbox: ExtensionSandbox) throws(AppexError) -> Sandbox.Prepared? {
        let name = configuration.identity.bundleIdentifier
        let prepared: Sandbox.Prepared
        do { prepared = try Sandbox.prepare(sandbox.profile) } catch {
            throw AppexError(
                .launchFailed,
                "cannot prepare the sandbox of \(name)",
                context: errorContext(),
                underlyingError: error
            )
        }
        if !prepared.missing.isEmpty {
            let missing = prepared.missing.joined(separator: "; ")
            if sandbox.profile.isRequired {
                prepared.cgroup?.remove()
                throw AppexError(
                    .sandboxUnavailable,
                    "cannot launch \(name): its point requires a sandbox this kernel cannot give: \(missing)",
                    context: errorContext()
                )
            }
            configuration.logger.warning(
                "launching \(name) with a weaker sandbox; this kernel lacks: \(missing)",
                metadata: ["extension": "\(name)"]
            )
        }
        return prepared
    }

    /// Hello both ways: the extension must speak this protocol, be the bundle we launched,
    /// bind in code to the point its Info.plist names, and be the process we spawned. In a PID
    /// namespace of its own it sees itself as process 1: the kernel's attestation of the sender
    /// (in our namespace's numbers) then says it is the process we spawned.
    func handshake(
        on channel: FrameChannel,
        pid: Int32,
        inOwnProcessNamespace: Bool,
        answered: Bool
    ) throws(AppexError) -> Handshake.ExtensionHello {
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
            if inOwnProcessNamespace && sender == nil {
                // Nothing to attest: the stream ended (bytes without the kernel's word throw above).
                throw AppexError(.closed, "the launched process (pid \(pid)) ended before its hello")
            }
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
        let ownNumber = inOwnProcessNamespace ? 1 : pid
        if answer.extensionBundleIdentifier != name || answer.processIdentifier != ownNumber {
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
        return answer
    }

    func makeSocketPair() throws(AppexError) -> (OwnedDescriptor, OwnedDescriptor) {
        do { return try Socket.pair() } catch {
            throw AppexError(
                .launchFailed,
                "cannot make the connection for \(configuration.identity.bundleIdentifier)",
                context: errorContext(),
                underlyingError: error
            )
        }
    }

    /// The documented minimal environment of an extension process (docs/decisions/0017-launching.md).
    /// Never the keys directory or the registry's path: an extension reaches the keychain through
    /// its host's broker, and its `HOME` and `TMPDIR` are its container's, as in the App Sandbox.
    func childEnvironment(workingDirectory: String, sandbox: ExtensionSandbox, keychainIndex: Bool) -> [String] {
        let inherited = ProcessInfo.processInfo.environment
        var variables = [
            "PATH=/usr/local/bin:/usr/bin:/bin",
            "HOME=\(sandbox.container)",
            "TMPDIR=\(sandbox.temporaryDirectory)",
            "APPEX_HOME=\(configuration.environment.home)",
            "APPEX_CONNECTION_FD=3",
            "APPEX_KEYCHAIN_FD=4",
            "APPEX_HOST_PID=\(ProcessControl.processIdentifier)",
            "APPEX_BUNDLE_PATH=\(configuration.identity.bundlePath)",
            "APPEX_BUNDLE_IDENTIFIER=\(configuration.identity.bundleIdentifier)",
            "APPEX_EXTENSION_POINT=\(configuration.identity.extensionPointIdentifier)",
            "APPEX_DATA_DIRECTORY=\(workingDirectory)",
            // libdispatch's reports off: at every start it reports, to syslog, that it cannot
            // give its manager thread nice -4 (an extension never has CAP_SYS_NICE), and that
            // report alone maps the C library's time zone, syslog and printf code (decision 0168).
            "LIBDISPATCH_LOG=NO",
        ]
        if keychainIndex { variables.append("APPEX_KEYCHAIN_INDEX_FD=5") }
        if let language = inherited["LANG"] { variables.append("LANG=\(language)") }
        // Where traces go, for an extension that may connect out: its spans join the host's
        // trace (docs/decisions/0164). Never headers or certificates: they may hold credentials.
        if sandbox.profile.network != .none {
            for name in Self.telemetryVariables {
                guard let value = inherited[name] else { continue }
                // An endpoint with a user, a password or a query may carry a credential: kept back.
                if name.hasSuffix("_ENDPOINT"), value.contains("@") || value.contains("?") { continue }
                variables.append("\(name)=\(value)")
            }
        }
        return variables
    }

    /// The OpenTelemetry settings a host passes on to an extension that may connect out: where
    /// to export and how, never a credential (`OTEL_EXPORTER_OTLP_HEADERS` and the certificate
    /// variables stay with the host).
    static let telemetryVariables = [
        "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
        "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
        "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG",
        "OTEL_PROPAGATORS", "OTEL_BSP_SCHEDULE_DELAY", "OTEL_METRIC_EXPORT_INTERVAL", "OTEL_SDK_DISABLED",
    ]

    /// Writes the child's output a line at a time to the host's logger and the extension's log
    /// (``ExtensionLog``), read by the process's event thread.
    func forwardOutput(_ reader: OwnedDescriptor, pid: Int32) -> Bool {
        let logger = configuration.logger
        let name = configuration.identity.bundleIdentifier
        let log = try? ExtensionLog(bundleIdentifier: name, environment: configuration.environment)
        let host = discovery.hostBundleIdentifier
        let ended = Wakeup()
        state.withLock { $0.lastOutput = (pid, ended) }
        return EventThread.shared.forEachLine(of: reader) { line in
            logger.info("\(line)", metadata: ["extension": "\(name)", "pid": "\(pid)"])
            log?.append(line, processIdentifier: pid, host: host)
        } atEnd: {
            ended.stop()
        }
    }

    /// Reaps the child when it ends, on the process's event thread (woken by its pidfd), so
    /// it is always reaped and no thread waits for it.
    func reap(_ child: Child, cgroup: ProcessCgroup?) -> Bool {
        let counters = counters
        return child.process.whenExits(cgroup: cgroup) { status in
            if !child.endedByHost.load(ordering: .relaxed) { counters.reaped(status) }
            // A child that died leaves its socket end closed; make sure the reader wakes anyway.
            child.connection.channel.shutdown()
            child.cpuWatch.withLock { $0.take() }?.stop()
            cgroup?.remove()
        }
    }
}
