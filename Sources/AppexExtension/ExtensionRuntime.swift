@_spi(Wire) import AppexIPC
import AppexSystem
import AppexVocabulary
import Distributed
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The extension process's side of the launch contract (see docs/decisions/0017-launching.md).
struct ExtensionRuntime {
    let connection: FrameChannel

    /// Reads the contract from the environment: the connection on descriptor
    /// `APPEX_CONNECTION_FD` (3), the host's pid in `APPEX_HOST_PID`. Arms the parent-death
    /// signal first, then checks the host is still the parent (it may have died before).
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `launchFailed`, saying what of the contract is missing.
    static func fromEnvironment() throws(AppexError) -> ExtensionRuntime {
        guard let fdText = ProcessControl.environmentVariable("APPEX_CONNECTION_FD"), let fd = Int32(fdText) else {
            throw AppexError(
                .launchFailed,
                "not launched by an Appex host: APPEX_CONNECTION_FD is not set (run the extension through its host)"
            )
        }
        do { try ProcessControl.setParentDeathSignal(Signal.kill) } catch {
            throw AppexError(.launchFailed, "cannot arm the parent-death signal", underlyingError: error)
        }
        // In a PID namespace of its own (enhanced security) the host lies outside it and the
        // parent reads as 0: then the connection alone says whether the host is there.
        let parent = ProcessControl.parentProcessIdentifier
        if let hostText = ProcessControl.environmentVariable("APPEX_HOST_PID"), let host = Int32(hostText),
            parent != 0, parent != host
        {
            ProcessControl.exitImmediately(0)  // the host died before we could arm the signal
        }
        let socket: OwnedDescriptor
        do { socket = try ProcessControl.adoptInheritedDescriptor(fd) } catch {
            throw AppexError(.launchFailed, "the connection descriptor \(fd) is not usable", underlyingError: error)
        }
        return ExtensionRuntime(connection: FrameChannel(owning: socket))
    }

    /// Waits for the host's hello and checks it is meant for this extension and speaks this
    /// protocol; adopts the channel limits it announces.
    func receiveHello() throws(AppexError) -> Handshake.HostHello {
        let me = ProcessControl.environmentVariable("APPEX_BUNDLE_IDENTIFIER") ?? ""
        let hello = try Handshake.receive(Handshake.HostHello.self, on: connection, timeout: .seconds(30))
        guard hello.protocolVersion == Handshake.protocolVersion else {
            throw AppexError(
                .launchFailed,
                "the host speaks protocol \(hello.protocolVersion), this extension \(Handshake.protocolVersion)"
            )
        }
        guard hello.extensionBundleIdentifier == me else {
            throw AppexError(
                .launchFailed,
                "the host launched \(hello.extensionBundleIdentifier), but this is \(me)",
                context: AppexError.Context(bundleIdentifier: me)
            )
        }
        if let limits = hello.channel { connection.reconfigure(limits) }
        return hello
    }

    /// Answers the host's hello with the binding in code, and whether the connection is accepted.
    func answerHello(boundExtensionPoint: ExtensionPointIdentifier, declined: String?) throws(AppexError) {
        let me = ProcessControl.environmentVariable("APPEX_BUNDLE_IDENTIFIER") ?? ""
        var answer = Handshake.ExtensionHello(
            extensionBundleIdentifier: me,
            boundExtensionPoint: boundExtensionPoint.description,
            processIdentifier: ProcessControl.processIdentifier
        )
        answer.declined = declined
        answer.features = Handshake.features
        try Handshake.send(answer, on: connection)
    }

    /// Serves until the host closes the connection.
    /// Waits for the extension's `resume()`: until then the host's messages stay unread in the
    /// connection, as XPC's suspended connection keeps them. After five seconds without it, says
    /// so on standard error (the host logs it). `false` when the connection, resumed late, turns
    /// out unservable (its exported object does not serve its exported interface): the reason is
    /// written and nothing is served.
    static func waitForResume(of host: HostConnection) async -> Bool {
        if host.isResumed { return true }
        let warning = Task {
            try? await Task.sleep(for: .seconds(5))
            guard !Task.isCancelled, !host.isResumed else { return }
            Terminal.writeStandardError(
                "\(host.extensionName): accepted its connection but has not called resume(); the host's messages wait until it does\n"
            )
        }
        await host.waitUntilResumed()
        warning.cancel()
        if let problem = host.configurationProblem {
            Terminal.writeStandardError("\(host.extensionName): not served: \(problem)\n")
            return false
        }
        return true
    }

    /// `hostFeatures`: what the host's hello said it reads (``Handshake/Feature``).
    func serve(_ host: HostConnection, hostFeatures: UInt64 = 0) async {
        let (closed, signal) = AsyncStream<Void>.makeStream()
        let connection = IPCConnection(
            channel: connection,
            payloadHandler: { request in
                guard let handler = host.handler else {
                    throw AppexError(
                        .refused,
                        "this extension serves no messages (its connection has no request handler)"
                    )
                }
                return try await handler(request)
            },
            invocationHandler: AppExtensionContext.actorSystem.invocationHandler,
            onClose: { _ in
                signal.yield()
                signal.finish()
            }
        )
        AppExtensionContext.connection.withLock { $0 = connection }
        AppExtensionContext.actorSystem.attach(connection)
        guard await Self.waitForResume(of: host) else { return }
        connection.sendTraceContext(hostFeatures & Handshake.Feature.traceContext != 0)
        connection.start()
        for await _ in closed { break }
    }
}
