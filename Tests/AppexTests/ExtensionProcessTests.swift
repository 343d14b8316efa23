import AppexAuth
import AppexAuthLogin
import AppexCore
import AppexFixtureInterfaces
@_spi(Measurement) import AppexHost
import AppexIPC
import AppexStore
import AppexTestTiers
import AppexTesting
import AppexVocabulary
import Distributed
import Foundation
import Logging
import Synchronization
import Testing

/// Launching real extension processes and talking to them.
@Suite(.timed) struct ExtensionProcessTests {
    let fixture: HostFixture
    init() throws { fixture = try HostFixture() }
    init(fixture: HostFixture) { self.fixture = fixture }

    /// Installs the echo fixture as a signed extension and returns its identity.
    func installEcho(
        inHost: Bool = true,
        id: String = "com.example.echo",
        point: String = HostFixture.point,
        entitlements: Entitlements? = nil,
        executable: String = echoExecutable
    ) throws -> AppExtensionIdentity {
        let name = String(id.split(separator: ".").last ?? "Echo").capitalized
        // As `appex bundle` makes it; the point is given, so a test can make a bundle whose
        // Info.plist disagrees with the binding in code.
        try FixtureBundles.bundle(
            executable: executable,
            in: inHost ? fixture.hostExtensions : fixture.world.searchFolder,
            name: name,
            bundleIdentifier: id,
            extensionPoint: ExtensionPointIdentifier(point),
            entitlements: entitlements,
            signedBy: fixture.world.team
        )
        return try #require(try fixture.discovery().snapshot().extensions.first { $0.bundleIdentifier == id }?.identity)
    }

    /// Installs a signed extension whose executable is the shell `script`.
    func installScript(_ script: String, name: String, id: String) throws -> AppExtensionIdentity {
        let path = try fixture.addExtension(name, id: id, inHost: true, unsigned: true)
        try Data(script.utf8).write(to: URL(fileURLWithPath: path + "/Extension"))
        chmod(path + "/Extension", 0o755)
        try AppexBundle.sign(at: path, with: fixture.world.team)
        return try #require(try fixture.discovery().snapshot().extensions.first { $0.bundleIdentifier == id }?.identity)
    }

    func process(
        _ identity: AppExtensionIdentity,
        onInterruption: @escaping @Sendable (AppexError) -> Void = { _ in }
    ) throws -> AppExtensionProcess {
        try AppExtensionProcess(
            configuration: .init(
                identity: identity,
                hostBundlePath: fixture.hostPath,
                environment: fixture.world.environment,
                // APPEX_TEST_LOG=1 logs what the extensions print (a crash's report among it).
                logger: ProcessInfo.processInfo.environment["APPEX_TEST_LOG"] == nil
                    ? Logger(label: "appex.test", factory: { _ in SwiftLogNoOpLogHandler() })
                    : Logger(label: "appex.test.extension"),
                onInterruption: onInterruption
            )
        )
    }

    @Test(
        "the extension adopts the host's channel limits: 20 MiB through the socket both ways when the host keeps everything in it"
    )
    func channelLimitsAreAdopted() async throws {
        var configuration = AppExtensionProcess.Configuration(
            identity: try installEcho(),
            hostBundlePath: fixture.hostPath,
            environment: fixture.world.environment
        )
        configuration.channel.sharedMemoryThreshold = .max
        configuration.channel.maximumFrameSize = 32 << 20
        let process = try await AppExtensionProcess(configuration: configuration)
        defer { process.invalidate() }
        // With the default 16 MiB frame limit, the extension would refuse this request.
        let text = String(repeating: "x", count: 20 << 20)
        let reply = try await process.send(EchoRequest(command: "echo", text: text), expecting: EchoReply.self)
        #expect(reply.text.utf8.count == text.utf8.count)
    }

    @Test(
        "an unsandboxed launch (the benchmarks' switch) makes the extension's working directory as a sandboxed one does, and the extension answers"
    )
    func unsandboxedLaunchMakesItsDirectories() async throws {
        var configuration = AppExtensionProcess.Configuration(
            identity: try installEcho(),
            hostBundlePath: fixture.hostPath,
            environment: fixture.world.environment
        )
        configuration.isSandboxed = false
        let data = fixture.world.environment.home + "/ExtensionData/com.example.echo"
        #expect(!FileManager.default.fileExists(atPath: data))  // a fresh home: nothing made it yet
        let process = try await AppExtensionProcess(configuration: configuration)
        defer { process.invalidate() }
        let reply = try await process.send(EchoRequest(command: "echo", text: "unsandboxed"), expecting: EchoReply.self)
        #expect(reply.text == "unsandboxed")
        #expect(FileManager.default.fileExists(atPath: data))
    }

    @Test(
        "a launched extension's libdispatch reports nothing: LIBDISPATCH_LOG=NO is in its environment (its one report, at every start, maps the C library's syslog, time zone and printf code)"
    )
    func extensionsLibdispatchReportsNothing() async throws {
        let process = try process(try installEcho())
        defer { process.invalidate() }
        let reply = try await process.send(EchoRequest(command: "echo", text: "quiet"), expecting: EchoReply.self)
        #expect(reply.text == "quiet")
        let pid = try #require(process.processIdentifier)
        let environment = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
            .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(environment.contains("LIBDISPATCH_LOG=NO"))
    }

    @Test(
        "an extension or widget started by hand, not by its host, says so on standard error and exits 1, with no crash report",
        arguments: [echoExecutable, widgetExecutable]
    )
    func startedByHand(_ executable: String) async throws {
        let output = try await run(executable, [], environment: ["PATH": "/usr/bin:/bin"])
        let name = URL(fileURLWithPath: executable).lastPathComponent
        #expect(output.status == 1)
        #expect(output.standardError.hasPrefix("\(name): launch-failed: not launched by an Appex host"))
        #expect(!output.standardError.contains("Fatal error"))
        #expect(output.standardOutput.isEmpty)
    }

    @Test("a running extension is held by a pidfd (signals can never reach a process that reused its pid)")
    func heldByPidfd() async throws {
        /// The pids this process holds pidfds of (each pidfd's fdinfo names its process), so the
        /// check sees this extension's pidfd whatever other tests open or close meanwhile.
        func pidfdTargets() -> Set<Int32> {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return Set(
                entries.compactMap { entry -> Int32? in
                    guard
                        ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry)) ?? "")
                            .contains("pidfd"),
                        let info = try? String(contentsOfFile: "/proc/self/fdinfo/" + entry, encoding: .utf8),
                        let line = info.split(separator: "\n").first(where: { $0.hasPrefix("Pid:") })
                    else { return nil }
                    return Int32(line.dropFirst(4).trimmingCharacters(in: .whitespaces))
                }
            )
        }
        let process = try process(try installEcho())
        defer { process.invalidate() }
        _ = try await process.send(EchoRequest(command: "echo", text: "x"), expecting: EchoReply.self)
        let pid = try #require(process.processIdentifier)
        #expect(pidfdTargets().contains(pid), "no pidfd of the extension (pid \(pid)) is open")
    }

    @Test("an extension that exits before its hello fails the launch with that reason, not with the launch timeout")
    func exitBeforeHello() async throws {
        let identity = try installScript("#!/bin/sh\nexit 0\n", name: "Quitter", id: "com.example.quitter")
        var configuration = AppExtensionProcess.Configuration(
            identity: identity,
            hostBundlePath: fixture.hostPath,
            environment: fixture.world.environment
        )
        configuration.launchTimeout = .seconds(5)
        let process = try await AppExtensionProcess(configuration: configuration)
        defer { process.invalidate() }
        await #expect {
            _ = try await process.makeSession()
        } throws: { error in
            guard let error = error as? AppexError else { return false }
            // Without closing the host's copy of the child's end, this was "no hello within 5 s".
            return error.code == .launchFailed && error.message.contains("ended before completing the handshake")
        }
    }

    @Test("a hello written by another process than the launched one is refused (kernel-attested sender)")
    func helloFromAnotherProcess() async throws {
        // The helper's command line is unique to this run: the test finds it among all processes
        // (in its own PID namespace the script knows the helper by another number).
        let marker = "30.\(UInt32.random(in: 100_000...999_999))"
        let script = #"""
            #!/bin/sh
            sleep MARKER &
            echo $! > helper.pid
            payload='{"protocolVersion":1,"extensionBundleIdentifier":"com.example.impostor","boundExtensionPoint":"com.example.hostapp.HostAppFeature","processIdentifier":'$$'}'
            length=${#payload}
            header=$(printf '\\%03o\\%03o' $((length % 256)) $((length / 256)))
            ( printf "$header\\000\\000\\001\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000%s" "$payload" >&3 )
            sleep 30
            """#
        // The script runs `sleep`: a helper process, which its point must allow.
        try fixture.declarePoint(["AppexSandbox": .dictionary(["AllowsHelperProcesses": .boolean(true)])])
        let identity = try installScript(
            script.replacingOccurrences(of: "MARKER", with: marker),
            name: "Impostor",
            id: "com.example.impostor"
        )
        let process = try process(identity)
        defer { process.invalidate() }
        await #expect {
            _ = try await process.makeSession()
        } throws: { error in
            guard let error = error as? AppexError else { return false }
            // The wire-level refusal is the underlying error; the description says it.
            return error.code == .launchFailed && error.underlyingError is AppexError
                && error.description.contains("not the launched process")
        }
        // The refused process's whole group is ended: the helper it forked does not live on.
        let helperFile = fixture.world.environment.home + "/ExtensionData/com.example.impostor/helper.pid"
        #expect(FileManager.default.fileExists(atPath: helperFile), "the impostor started no helper")
        #expect(
            await eventually(within: 5) { Self.processes(withArgument: marker).isEmpty },
            "the impostor's helper (sleep \(marker)) outlived the failed launch: \(Self.processes(withArgument: marker))"
        )
    }

    /// The pids of the processes one of whose arguments is `argument`.
    static func processes(withArgument argument: String) -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name -> Int32? in
            guard let pid = Int32(name), let line = FileManager.default.contents(atPath: "/proc/\(name)/cmdline") else {
                return nil
            }
            return line.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == argument } ? pid : nil
        }
    }

    @Test(
        "an extension launched by the host sees the host's login and its changes; before login it is refused with not-logged-in; its own publish is refused with host-only"
    )
    func loginStatusReachesTheExtension() async throws {
        let group = "group.com.example.app"
        let identity = try installEcho(
            entitlements: Entitlements(applicationGroups: [group], keychainAccessGroups: []),
            executable: sharedStateExecutable
        )
        let process = try process(identity)
        defer { process.invalidate() }
        // The host, as its signed bundle would vouch for it: same team, entitled to the group.
        let hostContext = ProcessContext(
            bundleIdentifier: HostFixture.hostIdentifier,
            team: fixture.world.team.teamIdentifier,
            entitlements: Entitlements(applicationGroups: [group], keychainAccessGroups: [])
        )
        let host = try LoginStatus(group: AppGroup(group, context: hostContext, environment: fixture.world.environment))
        await #expect {
            _ = try await process.send(EchoRequest(command: "login", text: group), expecting: EchoReply.self)
        } throws: { error in "\(error)".contains("not-logged-in") }

        try host.publish(
            UserAccount(
                identifier: "005xx",
                name: "Ada",
                instanceURL: URL(string: "https://example.my.salesforce.com")!
            )
        )
        #expect(
            try await process.send(EchoRequest(command: "login", text: group), expecting: EchoReply.self).text == "Ada"
        )
        try host.publish(
            UserAccount(
                identifier: "005yy",
                name: "Grace",
                instanceURL: URL(string: "https://example.my.salesforce.com")!
            )
        )
        #expect(
            try await process.send(EchoRequest(command: "login", text: group), expecting: EchoReply.self).text
                == "Grace"
        )
        // Only the host publishes: the extension's attempt is refused, and changes nothing.
        await #expect {
            _ = try await process.send(EchoRequest(command: "publish-login", text: group), expecting: EchoReply.self)
        } throws: { error in "\(error)".contains("host-only") }
        #expect(host.currentUser?.name == "Grace")
        try host.publish(nil)
        await #expect(throws: AppexError.self) {
            _ = try await process.send(EchoRequest(command: "login", text: group), expecting: EchoReply.self)
        }
    }

    @Test(
        "an extension process uses the host's OAuth session: refused with not-logged-in before the host logs in, served after (live server)"
    )
    func extensionUsesHostSession() async throws {
        try await OAuthServer.start()
        let group = "group.com.example.app"
        let keychainGroup = "TEAMID.com.example.shared"
        let entitlements = Entitlements(applicationGroups: [group], keychainAccessGroups: [keychainGroup])
        let process = try process(try installEcho(entitlements: entitlements, executable: sharedStateExecutable))
        defer { process.invalidate() }
        let configuration = OAuthConfiguration(
            issuer: OAuthServer.issuer,
            clientID: "swift-public",
            scopes: ["read"],
            appGroup: group,
            keychainAccessGroup: keychainGroup
        )
        // Where the extension can read it: its app group (its sandbox reaches nothing outside).
        let path = fixture.world.environment.home + "/AppGroups/\(group)/oauth.json"
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        try JSONEncoder().encode(configuration).write(to: URL(fileURLWithPath: path))
        await #expect {
            _ = try await process.send(EchoRequest(command: "token", text: path), expecting: EchoReply.self)
        } throws: { error in "\(error)".contains("not-logged-in") }

        let hostContext = ProcessContext(
            bundleIdentifier: HostFixture.hostIdentifier,
            team: fixture.world.team.teamIdentifier,
            entitlements: entitlements
        )
        let host = try HostAccessorBuilder(
            configuration: configuration,
            context: hostContext,
            environment: fixture.world.environment
        ).option(.oauth).build()
        try await host.login.password(user: "ada", password: "lovelace")
        let reply = try await process.send(EchoRequest(command: "token", text: path), expecting: EchoReply.self)
        #expect(reply.text.hasPrefix("token of "))
    }

    @Test(
        "an extension launched by the host without the group's entitlement is refused with missing-entitlement naming the group and the key"
    )
    func unentitledExtensionRefused() async throws {
        let group = "group.com.example.app"
        let identity = try installEcho(
            entitlements: Entitlements(applicationGroups: ["group.com.example.other"], keychainAccessGroups: []),
            executable: sharedStateExecutable
        )
        let process = try process(identity)
        defer { process.invalidate() }
        await #expect {
            _ = try await process.send(EchoRequest(command: "login", text: group), expecting: EchoReply.self)
        } throws: { error in
            let text = "\(error)"
            return text.contains("missing-entitlement") && text.contains(group)
                && text.contains("com.apple.security.application-groups")
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.world.environment.home + "/AppGroups/" + group))
    }

    @Test("an enabled extension is launched on first use and answers typed messages")
    func echo() async throws {
        let process = try process(try installEcho())
        defer { process.invalidate() }
        let reply = try await process.echo("echo", "hello")
        #expect(reply.text == "hello")
        #expect(reply.pid > 1 && reply.pid != getpid())
        // Reused while alive.
        let again = try await process.echo("echo", "again")
        #expect(again.pid == reply.pid)
    }

    @Test("a crash mid-request fails the pending call at once with a typed interruption, and the next call relaunches")
    func crashAndRelaunch() async throws {
        let interruptions = Mutex(0)
        let log = InMemoryLogHandler()
        let configuration = AppExtensionProcess.Configuration(
            identity: try installEcho(),
            hostBundlePath: fixture.hostPath,
            environment: fixture.world.environment,
            logger: log.logger,
            onInterruption: { _ in interruptions.withLock { $0 += 1 } }
        )
        let process = try await AppExtensionProcess(configuration: configuration)
        defer { process.invalidate() }
        let first = try await process.echo("echo", "a")
        // The extension crashes on its own, mid-request.
        let error = await #expect(throws: AppexError.self) {
            try await process.send(EchoRequest(command: "crash", text: ""), expecting: EchoReply.self)
        }
        #expect(error?.code == .interrupted)
        #expect(
            error?.message.contains("com.example.echo (pid \(first.pid)) ended during the call") == true,
            "\(String(describing: error))"
        )
        #expect(error?.message.contains("killed by signal 11") == true, "\(String(describing: error))")

        // A pending call fails when the process dies, not when its 10 s timeout passes. (The
        // latency target, 100 ms, is a benchmark figure: timed unit tests on a loaded 2-core
        // machine measure the load, not us.)
        let victim = try await process.echo("echo", "c").pid
        #expect(victim != first.pid, "the call after the crash did not relaunch")
        let pending = Task {
            try await process.send(
                EchoRequest(command: "hang", text: ""),
                expecting: EchoReply.self,
                timeout: .seconds(10)
            )
        }
        // Killed only once the extension has the request: it says "hanging" (the host logs it).
        await log.waitForEntries { $0.contains { $0.message == "hanging" && $0.metadata["pid"] == "\(victim)" } }
        let killed = ContinuousClock.now
        kill(victim, SIGKILL)
        let result = await pending.result
        #expect(ContinuousClock.now - killed < .seconds(2))
        let second = #expect(throws: AppexError.self) { try result.get() }
        #expect(second?.code == .interrupted, "\(String(describing: second))")
        #expect(
            second?.message.contains("com.example.echo (pid \(victim)) ended during the call") == true,
            "\(String(describing: second))"
        )
        #expect(second?.message.contains("killed by signal 9") == true, "\(String(describing: second))")
        // And the next call relaunches: a third process.
        let third = try await process.echo("echo", "b")
        #expect(third.text == "b")
        #expect(third.pid != victim && third.pid != first.pid)
        #expect(interruptions.withLock { $0 } == 2)
    }

    @Test(
        "what an extension prints reaches the host's logger a line a record: level info, the line, the bundle id and pid, even the line printed right before a crash"
    )
    func outputIsLogged() async throws {
        let log = InMemoryLogHandler()
        let identity = try installEcho()
        let process = try await AppExtensionProcess(
            configuration: .init(
                identity: identity,
                hostBundlePath: fixture.hostPath,
                environment: fixture.world.environment,
                logger: log.logger
            )
        )
        defer { process.invalidate() }
        func record(_ line: String, pid: Int32) -> InMemoryLogHandler.Entry {
            .init(level: .info, message: line, metadata: ["extension": "com.example.echo", "pid": "\(pid)"])
        }

        let pid = try await process.echo("log", "first line\n\n  indented, with a tab\t").pid
        let printed = [
            record("first line", pid: pid), record("", pid: pid), record("  indented, with a tab\t", pid: pid),
        ]
        #expect(await log.waitForEntries { $0.count >= printed.count } == printed)

        // The last words of a process that is killed: logged, with the dead process's pid.
        await #expect(throws: AppexError.self) {
            try await process.send(EchoRequest(command: "crash", text: "about to crash"), expecting: EchoReply.self)
        }
        let lastWords = printed + [record("about to crash", pid: pid)]
        #expect(await log.waitForEntries { $0.count >= lastWords.count } == lastWords)

        // The relaunched process's lines carry its own pid.
        let next = try await process.echo("log", "relaunched").pid
        #expect(next != pid)
        let relaunched = lastWords + [record("relaunched", pid: next)]
        #expect(await log.waitForEntries { $0.count >= relaunched.count } == relaunched)
    }

    @Test("the extension calls back into the interface the host exports, in the middle of a call")
    func callback() async throws {
        struct Question: Codable, Sendable { var text: String }
        struct Answer: Codable, Sendable { var text: String }
        var configuration = AppExtensionProcess.Configuration(
            identity: try installEcho(),
            hostBundlePath: fixture.hostPath,
            environment: fixture.world.environment
        )
        configuration.exportedHandler = AppExtensionProcess.exporting { (question: Question) in
            Answer(text: "host says " + question.text)
        }
        let process = try await AppExtensionProcess(configuration: configuration)
        defer { process.invalidate() }
        let reply = try await process.send(EchoRequest(command: "callback", text: "hi"), expecting: EchoReply.self)
        #expect(reply.text == "host says hi")

        // Without an exported interface the extension's call fails, and it says so.
        let plain = try self.process(try installEcho(id: "com.example.plain"))
        defer { plain.invalidate() }
        let error = await #expect(throws: AppexError.self) {
            try await plain.send(EchoRequest(command: "callback", text: "hi"), expecting: EchoReply.self)
        }
        #expect(error?.message.contains("this side serves no requests") == true)
    }

    @Test("the extension's exported distributed actor is resolved and called from the host, launching it on demand")
    func distributedActor() async throws {
        let process = try process(try installEcho())
        defer { process.invalidate() }
        #expect(process.processIdentifier == nil)
        let translator = try $FixtureTranslator.resolve(
            id: IPCActorSystem.ActorID("translator"),
            using: process.actorSystem
        )
        let translated = try await translator.translate("bonjour")
        #expect(translated.text == "BONJOUR")
        #expect(translated.pid == 1 && process.processIdentifier.map { $0 > 1 } == true)
    }

    @Test(
        "send and a remote actor call fail alike: the same code, naming the same extension, when it dies during the call, when its code throws, after invalidation"
    )
    func sameFailureThroughSendAndActor() async throws {
        let process = try process(try installEcho())
        defer { process.invalidate() }
        let translator = try $FixtureTranslator.resolve(
            id: IPCActorSystem.ActorID("translator"),
            using: process.actorSystem
        )

        // The extension dies during the call (each call launches it again).
        let diedInSend = await #expect(throws: AppexError.self) {
            try await process.send(EchoRequest(command: "crash", text: ""), expecting: EchoReply.self)
        }
        let diedInActor = await #expect(throws: AppexError.self) { _ = try await translator.translate("crash") }
        #expect(diedInSend?.code == .interrupted)
        #expect(diedInActor?.code == diedInSend?.code)
        for error in [diedInSend, diedInActor] {
            #expect(error?.context.bundleIdentifier == "com.example.echo")
            #expect(error?.context.peer != nil && error?.context.peer != getpid())
            #expect(error?.message.contains("killed by signal 11") == true, "\(String(describing: error))")
            #expect(error?.underlyingError is AppexError)  // the connection's end
        }
        #expect(diedInActor?.context.peer != diedInSend?.context.peer)

        // The extension's code throws.
        let thrownInSend = await #expect(throws: AppexError.self) {
            try await process.send(EchoRequest(command: "fail", text: "fail"), expecting: EchoReply.self)
        }
        let thrownInActor = await #expect(throws: AppexError.self) { _ = try await translator.translate("fail") }
        #expect(thrownInSend?.code == .remoteFailure)
        #expect(thrownInActor?.code == thrownInSend?.code)
        #expect(thrownInSend?.message.contains("echo refused: fail") == true)
        #expect(thrownInActor?.message.contains("echo refused: fail") == true)
        #expect(thrownInActor?.context.peer == thrownInSend?.context.peer)

        // The process was invalidated.
        process.invalidate()
        let invalidatedSend = await #expect(throws: AppexError.self) {
            try await process.send(EchoRequest(command: "echo", text: ""), expecting: EchoReply.self)
        }
        let invalidatedActor = await #expect(throws: AppexError.self) { _ = try await translator.translate("x") }
        #expect(invalidatedSend?.code == .invalidated)
        #expect(invalidatedActor?.code == invalidatedSend?.code)
    }

    @Test("a hung extension gives a deadline error, and keeps serving other calls")
    func hang() async throws {
        let process = try process(try installEcho())
        defer { process.invalidate() }
        let error = await #expect(throws: AppexError.self) {
            try await process.send(
                EchoRequest(command: "hang", text: ""),
                expecting: EchoReply.self,
                timeout: .milliseconds(200)
            )
        }
        #expect(error?.code == .deadlineExceeded)
        #expect(
            try await process.send(EchoRequest(command: "echo", text: "still here"), expecting: EchoReply.self).text
                == "still here"
        )
    }

    @Test("stray prints in the extension never reach the channel")
    func strayOutput() async throws {
        let process = try process(try installEcho())
        defer { process.invalidate() }
        #expect(
            try await process.send(EchoRequest(command: "print", text: "after"), expecting: EchoReply.self).text
                == "after"
        )
        #expect(
            try await process.send(EchoRequest(command: "echo", text: "next"), expecting: EchoReply.self).text == "next"
        )
    }

    @Test("the extension's thrown error reaches the caller with its words")
    func remoteFailure() async throws {
        let process = try process(try installEcho())
        defer { process.invalidate() }
        let error = await #expect(throws: AppexError.self) {
            try await process.send(EchoRequest(command: "fail", text: "no"), expecting: EchoReply.self)
        }
        #expect(error?.code == .remoteFailure)
        #expect(error?.message.contains("echo refused: no") == true)
    }

    @Test("unapproved, disabled and tampered extensions are refused with the reason")
    func refusals() async throws {
        let outside = try installEcho(inHost: false, id: "com.example.outside")
        var error = #expect(throws: AppexError.self) { try process(outside) }
        #expect(error?.code == .refused)
        #expect(error?.message.contains("not approved") == true)

        let inside = try installEcho()
        try fixture.discovery().setEnabled(false, bundleIdentifier: inside.bundleIdentifier)
        error = #expect(throws: AppexError.self) { try process(inside) }
        #expect(error?.message.contains("disabled") == true)
        try fixture.discovery().setEnabled(true, bundleIdentifier: inside.bundleIdentifier)

        let launcher = try process(inside)
        try FixtureBundles.write(Data("tampered".utf8), to: inside.bundlePath + "/Info.plist.extra")
        let refused = await #expect(throws: AppexError.self) {
            try await launcher.send(EchoRequest(command: "echo", text: ""), expecting: EchoReply.self)
        }
        #expect(refused?.code == .refused)
        #expect(refused?.message.contains("Info.plist.extra was added after the bundle was signed") == true)
    }

    @Test(
        "an extension whose code binds to another point than its Info.plist names fails the handshake, and no process is left"
    )
    func bindingMismatch() async throws {
        let fixture = try HostFixture(points: ["HostAppFeature", "Second"])
        let tests = ExtensionProcessTests(fixture: fixture)
        let process = try tests.process(try tests.installEcho(point: "com.example.hostapp.Second"))
        defer { process.invalidate() }
        let error = await #expect(throws: AppexError.self) {
            try await process.send(EchoRequest(command: "echo", text: ""), expecting: EchoReply.self)
        }
        #expect(error?.code == .launchFailed)
        #expect(
            error?.message.contains(
                "binds to com.example.hostapp.HostAppFeature, but its Info.plist names com.example.hostapp.Second"
            ) == true
        )
        #expect(process.processIdentifier == nil)
    }

    @Test("a crash budget stops relaunching an extension that keeps dying")
    func crashBudget() async throws {
        var configuration = AppExtensionProcess.Configuration(
            identity: try installEcho(),
            hostBundlePath: fixture.hostPath,
            environment: fixture.world.environment
        )
        configuration.crashLimit = 2
        let process = try await AppExtensionProcess(configuration: configuration)
        defer { process.invalidate() }
        for _ in 0..<2 {
            await #expect(throws: AppexError.self) {
                try await process.send(EchoRequest(command: "crash", text: ""), expecting: EchoReply.self)
            }
        }
        let error = await #expect(throws: AppexError.self) {
            try await process.send(EchoRequest(command: "echo", text: ""), expecting: EchoReply.self)
        }
        #expect(error?.code == .crashBudgetExhausted)
    }

    @Test("after invalidation the process is gone and calls are refused")
    func invalidation() async throws {
        let process = try process(try installEcho())
        let reply = try await process.echo()
        process.invalidate()
        let error = await #expect(throws: AppexError.self) {
            try await process.send(EchoRequest(command: "echo", text: ""), expecting: EchoReply.self)
        }
        #expect(error?.code == .invalidated)
        // The child is reaped: it no longer exists (kill 0 fails with ESRCH once reaped). Its exit
        // is an event (its pidfd); its reaping, by the host's event thread, is not: polled.
        #expect(await waitForExit(of: reply.pid, within: 5), "the extension \(reply.pid) still runs after invalidate()")
        #expect(await eventually(within: 5) { kill(reply.pid, 0) != 0 }, "the extension \(reply.pid) was not reaped")
    }
}

/// `appex bundle`: the Info.plist comes from the binding in code.
@Suite(.timed) struct BundleToolTests {
    @Test("appex bundle writes Info.plist from the extension's binding, signs it, and the bundle launches")
    func bundleFromBinding() async throws {
        let fixture = try HostFixture()
        let key = fixture.world.root.appending("team.key")
        try fixture.world.team.write(to: key)
        let output = fixture.hostExtensions + "/Echo.appex"
        let made = try await appex(
            "bundle",
            "--executable",
            echoExecutable,
            "--output",
            output,
            "--identifier",
            "com.example.echo",
            "--key",
            key,
            in: fixture.world
        )
        #expect(made.status == 0, "\(made.standardError)")
        let bundle = AppexBundle.load(at: output)
        #expect(bundle.problems == [])
        #expect(bundle.info.extensionPointIdentifier == "com.example.hostapp.HostAppFeature")
        #expect(bundle.info.executableName == "AppexFixtureEcho")
        #expect(bundle.team == fixture.world.team.teamIdentifier)
        let header = try Data(contentsOf: URL(fileURLWithPath: output + "/Info.plist")).prefix(8)
        #expect(header == Data("bplist00".utf8))

        let identity = try #require(try fixture.discovery().snapshot().extensions.first?.identity)
        let process = try await AppExtensionProcess(
            configuration: .init(
                identity: identity,
                hostBundlePath: fixture.hostPath,
                environment: fixture.world.environment
            )
        )
        defer { process.invalidate() }
        #expect(
            try await process.send(EchoRequest(command: "echo", text: "bundled"), expecting: EchoReply.self).text
                == "bundled"
        )

        // Not an AppExtension: refused with the reason, nothing written.
        let refused = try await appex(
            "bundle",
            "--executable",
            "/bin/true",
            "--output",
            fixture.world.root.appending("True.appex"),
            in: fixture.world
        )
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("did not print its binding"))
        #expect(!FileManager.default.fileExists(atPath: fixture.world.root.appending("True.appex")))

        // Over an existing bundle: refused, naming the flag that replaces it; replaced with it.
        let again = try await appex(
            "bundle",
            "--executable",
            echoExecutable,
            "--output",
            output,
            "--identifier",
            "com.example.echo",
            in: fixture.world
        )
        #expect(again.status == 1)
        #expect(
            again.standardError.contains("\(output) already exists") && again.standardError.contains("--force"),
            "\(again.standardError)"
        )
        let forced = try await appex(
            "bundle",
            "--executable",
            echoExecutable,
            "--output",
            output,
            "--identifier",
            "com.example.echo",
            "--force",
            in: fixture.world
        )
        #expect(forced.status == 0, "\(forced.standardError)")
        // An identifier that is not reverse-DNS: refused, naming the flag that gives one.
        let badIdentifier = try await appex(
            "bundle",
            "--executable",
            echoExecutable,
            "--output",
            fixture.world.root.appending("Bad.appex"),
            "--identifier",
            "not an id",
            in: fixture.world
        )
        #expect(badIdentifier.status == 1)
        #expect(
            badIdentifier.standardError.contains("\"not an id\" is not a reverse-DNS bundle identifier")
                && badIdentifier.standardError.contains("--identifier")
        )
    }
}

/// Hostile extensions cost their own connection, never the host.
@Suite(.timed) struct HostileExtensionTests {
    @Test(
        "garbage or an oversize frame closes that extension's connection with a protocol error; other extensions keep serving",
        arguments: ["garbage", "oversize"]
    )
    func hostileFrames(_ command: String) async throws {
        let fixture = try HostFixture()
        let tests = ExtensionProcessTests(fixture: fixture)
        let hostile = try tests.process(try tests.installEcho(id: "com.example.hostile"))
        let healthy = try tests.process(try tests.installEcho(id: "com.example.healthy"))
        defer {
            hostile.invalidate()
            healthy.invalidate()
        }
        let victimPid = try await hostile.echo().pid
        _ = try await healthy.send(EchoRequest(command: "echo", text: ""), expecting: EchoReply.self)
        let error = await #expect(throws: AppexError.self) {
            try await hostile.send(
                EchoRequest(command: command, text: ""),
                expecting: EchoReply.self,
                timeout: .seconds(20)
            )
        }
        #expect(error?.code == .protocolViolation)
        #expect(error?.message.contains("com.example.hostile (pid \(victimPid)) broke the protocol") == true)
        #expect(
            try await healthy.send(EchoRequest(command: "echo", text: "fine"), expecting: EchoReply.self).text == "fine"
        )
        // The offender was ended, and the next call gets a fresh process.
        let next = try await hostile.echo()
        #expect(next.pid != victimPid)
    }
}

/// The host's death takes its extensions with it.
@Suite(.timed, .tags(.alone)) struct HostDeathTests {
    @Test("a host killed with SIGKILL takes its extension with it within 1 s")
    func hostKilled() async throws {
        let fixture = try HostFixture()
        _ = try ExtensionProcessTests(fixture: fixture).installEcho()
        let host = try LineChild(
            appexExecutable,
            ["call", "--host", fixture.hostPath, "com.example.echo", #"{"command":"echo","text":"hi"}"#, "--hold"],
            environment: fixture.world.processVariables,
            discardingStandardError: true
        )
        defer {
            kill(host.pid, SIGKILL)
            host.end()
        }
        // Read until the host says which process the extension is (each line within 30 s).
        var extensionPid: Int32?
        while extensionPid == nil, let line = await readLines([host], within: 30).first ?? nil {
            if line.hasPrefix("extension pid ") { extensionPid = Int32(line.dropFirst(14)) }
        }
        let pid = try #require(extensionPid, "the host never said which process the extension is")
        #expect(isRunning(pid))
        let killed = ContinuousClock.now
        kill(host.pid, SIGKILL)
        #expect(await waitForExit(of: pid, within: 5), "the extension \(pid) outlived its host by 5 s")
        #expect(ContinuousClock.now - killed < .seconds(1))
    }
}

/// Launch after launch leaves nothing behind.
@Suite(.timed, .tags(.alone)) struct LaunchCycleTests {
    @Test("500 launch/terminate cycles leave no zombie and no leaked descriptor")
    func cycles() async throws {
        let fixture = try HostFixture()
        _ = try ExtensionProcessTests(fixture: fixture).installEcho()
        let output = try await run(
            hostExecutable,
            [fixture.hostPath, "com.example.echo", "500"],
            environment: fixture.world.processVariables,
            timeout: 300
        )
        #expect(output.status == 0, "\(output.standardError)")
        let report = try JSONDecoder().decode(LaunchCycleReport.self, from: Data(output.standardOutput.utf8))
        #expect(report.cycles == 500)
        #expect(report.distinctProcesses == 500)
        #expect(report.zombies == [])
        // No leak: never more open than before the 500 cycles.
        #expect(report.descriptorsAfter <= report.descriptorsBefore)
    }
}

/// What the host's configuration and the point's policy impose on a process.
@Suite(.timed) struct ProcessPolicyTests {
    @Test("an idle process is ended quietly after the idle timeout, and the next call launches a new one")
    func idleTermination() async throws {
        let fixture = try HostFixture()
        let tests = ExtensionProcessTests(fixture: fixture)
        let interruptions = Mutex(0)
        var configuration = AppExtensionProcess.Configuration(
            identity: try tests.installEcho(),
            hostBundlePath: fixture.hostPath,
            environment: fixture.world.environment,
            onInterruption: { _ in interruptions.withLock { $0 += 1 } }
        )
        configuration.idleTimeout = .milliseconds(300)
        let process = try await AppExtensionProcess(configuration: configuration)
        defer { process.invalidate() }
        let first = try await process.echo().pid
        #expect(await waitForExit(of: first, within: 10), "the idle extension \(first) was not ended within 10 s")
        #expect(process.processIdentifier == nil)
        let second = try await process.echo().pid
        #expect(second != first)
        #expect(interruptions.withLock { $0 } == 0)
    }

    /// The memory limit of `pid`'s memory cgroup (v1's `memory.limit_in_bytes` or v2's
    /// `memory.max`); `nil` where it has none of its own.
    static func memoryLimit(of pid: Int32) throws -> UInt64? {
        let groups = try String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8).split(separator: "\n")
        for line in groups {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, parts[2] != "/" else { continue }
            let file: String
            if parts[1].split(separator: ",").contains("memory") {
                file = "/sys/fs/cgroup/memory\(parts[2])/memory.limit_in_bytes"
            } else if parts[1].isEmpty, FileManager.default.fileExists(atPath: "/sys/fs/cgroup\(parts[2])/memory.max") {
                file = "/sys/fs/cgroup\(parts[2])/memory.max"
            } else {
                continue
            }
            return UInt64(
                try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            )
        }
        return nil
    }

    @Test(
        "the point's AppexResourceLimits apply to every extension process, each over its default: open files as RLIMIT_NOFILE, memory as its memory cgroup's limit, CPU per call (no RLIMIT_CPU); a point that declares none gets 512 MiB"
    )
    func resourceLimits() async throws {
        let fixture = try HostFixture()
        // First the defaults.
        do {
            let tests = ExtensionProcessTests(fixture: fixture)
            let process = try tests.process(try tests.installEcho())
            defer { process.invalidate() }
            let pid = try await process.echo().pid
            let limited = await eventually(within: 2) { (try? Self.memoryLimit(of: pid)) == 512 << 20 }
            #expect(limited, "memory limit \(String(describing: try? Self.memoryLimit(of: pid))), not 512 MiB")
        }
        let declaration = ExtensionPointDeclaration(
            identifier: ExtensionPointIdentifier(host: HostFixture.hostIdentifier, name: "HostAppFeature"),
            scope: AppExtensionPoint.Scope.Restriction.none,
            attributes: [
                "AppexResourceLimits": .dictionary([
                    "OpenFiles": .integer(64), "CPUSeconds": .integer(600), "MemoryBytes": .integer(300 << 20),
                ])
            ]
        )
        try FixtureBundles.write(
            PropertyListFormat.xml.encode(declaration.propertyList),
            to: fixture.hostPath + "/ExtensionPoints/HostAppFeature.appextensionpoint"
        )
        try AppexBundle.sign(at: fixture.hostPath, with: fixture.world.team)
        let tests = ExtensionProcessTests(fixture: fixture)
        let process = try tests.process(try tests.installEcho())
        defer { process.invalidate() }
        let pid = try await process.echo().pid
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let openFiles = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }?.split(
            separator: " ",
            omittingEmptySubsequences: true
        )
        #expect(openFiles?[3] == "64")
        #expect(openFiles?[4] == "64")
        let cpu = limits.split(separator: "\n").first { $0.hasPrefix("Max cpu time") }?.split(
            separator: " ",
            omittingEmptySubsequences: true
        )
        #expect(cpu?[3] == "unlimited")
        // Born in a reserve group, the process gets its memory limit on the spawner thread just
        // after the launch resumed (docs/decisions/0129): within milliseconds, not before the
        // first reply.
        let limited = await eventually(within: 2) { (try? Self.memoryLimit(of: pid)) == 300 << 20 }
        #expect(limited, "memory limit \(String(describing: try? Self.memoryLimit(of: pid))), not 300 MiB")
    }

    @Test("a malformed AppexSandbox makes the host invalid, naming the key")
    func badSandboxSettings() throws {
        let fixture = try HostFixture()
        try fixture.declarePoint([
            "AppexSandbox": .dictionary(["Required": .string("yes"), "AllowsEverything": .boolean(true)])
        ])
        let problems = AppexBundle.load(at: fixture.hostPath).problems
        let point = "com.example.hostapp.HostAppFeature.AppexSandbox"
        #expect(problems.contains { $0.key == point + ".Required" && $0.kind == .wrongType })
        #expect(problems.contains { $0.key == point + ".AllowsEverything" && $0.kind == .invalidValue })
    }

    @Test("a malformed limit makes the host invalid, naming the key")
    func badLimits() throws {
        let fixture = try HostFixture()
        let declaration = ExtensionPointDeclaration(
            identifier: ExtensionPointIdentifier(host: HostFixture.hostIdentifier, name: "HostAppFeature"),
            scope: AppExtensionPoint.Scope.Restriction.none,
            attributes: ["AppexResourceLimits": .dictionary(["OpenFiles": .string("many"), "Bananas": .integer(3)])]
        )
        let file = fixture.hostPath + "/ExtensionPoints/HostAppFeature.appextensionpoint"
        try FixtureBundles.write(PropertyListFormat.xml.encode(declaration.propertyList), to: file)
        try AppexBundle.sign(at: fixture.hostPath, with: fixture.world.team)
        let problems = AppexBundle.load(at: fixture.hostPath).problems
        #expect(
            problems.contains {
                $0.file == file && $0.key == "com.example.hostapp.HostAppFeature.AppexResourceLimits.OpenFiles"
                    && $0.kind == .wrongType
            }
        )
        #expect(
            problems.contains {
                $0.key == "com.example.hostapp.HostAppFeature.AppexResourceLimits.Bananas" && $0.kind == .invalidValue
            }
        )
    }
}

extension AppExtensionProcess {
    /// Sends the echo fixture `command` with `text`; the reply's text, and the pid of the process
    /// that answered as the host knows it (to itself, in its own PID namespace, an extension is
    /// process 1).
    func echo(_ command: String = "echo", _ text: String = "") async throws -> (text: String, pid: Int32) {
        let reply = try await send(EchoRequest(command: command, text: text), expecting: EchoReply.self)
        #expect(reply.pid == 1, "an extension is process 1 of its own PID namespace")
        return (reply.text, processIdentifier ?? -1)
    }
}
