import AppexCore
import AppexFixtureInterfaces
import AppexHost
import AppexIPC
@_spi(Fuzzing) import AppexStore
import AppexSystem
import AppexTestTiers
import AppexTesting
import AppexVocabulary
import Foundation
import Synchronization
import Testing

/// The hostile extension (Tests/Fixtures/AppexFixtureHostile).
let hostileExecutable = URL(fileURLWithPath: echoExecutable).deletingLastPathComponent()
    .appendingPathComponent("AppexFixtureHostile").path

/// Every extension runs confined (docs/decisions/0099-the-sandbox.md): a hostile extension tries what
/// its sandbox forbids, sees each attempt refused, and the host and other extensions go on.
@Suite(.timed) struct SandboxTests {
    let fixture: HostFixture
    let tests: ExtensionProcessTests
    static let group = "group.com.example.app"
    static let keychainGroup = "TEAMID.com.example.shared"

    init() throws {
        fixture = try HostFixture()
        tests = ExtensionProcessTests(fixture: fixture)
    }

    func hostile(
        networkClient: Bool = false,
        id: String = "com.example.hostile"
    ) throws -> AppExtensionProcess {
        var values: [String: PropertyListValue] = [:]
        if networkClient { values[Entitlements.Key.networkClient] = .boolean(true) }
        let entitlements = Entitlements(
            applicationGroups: [Self.group],
            keychainAccessGroups: [Self.keychainGroup],
            values: values
        )
        return try tests.process(
            try tests.installEcho(id: id, entitlements: entitlements, executable: hostileExecutable)
        )
    }

    func attempt(_ process: AppExtensionProcess, _ command: String, _ argument: String = "") async throws -> String {
        try await process.send(EchoRequest(command: command, text: argument), expecting: EchoReply.self).text
    }

    @Test(
        "a hostile extension is refused the keys, another group's container, $HOME, the registry, the host's environ, ptrace, signals to the host, exec of /bin/sh, a user namespace and the network; each refusal is an errno it sees, and the host and another extension go on"
    )
    func hostileRefused() async throws {
        try fixture.declarePoint([
            "AppexResourceLimits": .dictionary(["Processes": .integer(48)])
        ])
        let environment = fixture.world.environment
        // Things that exist, so a refusal is the sandbox's and not a missing file.
        let other = environment.home + "/AppGroups/group.com.example.other"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: URL(fileURLWithPath: other + "/data"))
        let homeFile = FileManager.default.homeDirectoryForCurrentUser.path + "/.appex-sandbox-probe-\(UUID())"
        try Data("private".utf8).write(to: URL(fileURLWithPath: homeFile))
        defer { try? FileManager.default.removeItem(atPath: homeFile) }
        let keychain = try SharedKeychain(context: .owner, environment: environment)
        try keychain.set(Data("x".utf8), service: "sandbox", account: "seed", accessGroup: Self.keychainGroup)
        let keys = try #require(try FileManager.default.contentsOfDirectory(atPath: environment.keysDirectory).first)
        let registry = environment.registryDirectory + "/registry.sqlite"
        try await OAuthServer.start()
        let port = try #require(OAuthServer.issuer.port)
        let host = ProcessControl.processIdentifier

        let process = try hostile()
        defer { process.invalidate() }
        try fixture.discovery().setEnabled(true, bundleIdentifier: "com.example.hostile")  // the registry exists
        #expect(FileManager.default.fileExists(atPath: registry))
        let attempts: [(String, String)] = [
            ("list", environment.keysDirectory), ("read", environment.keysDirectory + "/" + keys),
            ("list", other), ("read", other + "/data"), ("read", homeFile), ("write", registry),
            ("read", "/proc/\(host)/environ"), ("ptrace", "\(host)"), ("signal", "\(host)"),
            ("connect", "\(port)"), ("udp", ""), ("exec", "/bin/sh"), ("unshare", ""),
            ("read", "/etc/shadow"),
        ]
        for (command, argument) in attempts {
            let outcome = try await attempt(process, command, argument)
            #expect(outcome.hasPrefix("refused: "), "\(command) \(argument): \(outcome)")
        }
        // Its own container and its group are its to use.
        let container = environment.home + "/Containers/com.example.hostile"
        #expect(try await attempt(process, "create", container + "/mine").hasPrefix("allowed"))
        #expect(
            try await attempt(process, "create", environment.home + "/AppGroups/\(Self.group)/ours").hasPrefix(
                "allowed"
            )
        )
        // More processes than the point allows (threads count too): refused before 200.
        let forks = try await attempt(process, "fork", "200")
        #expect(forks.hasPrefix("refused: fork after"), "\(forks)")
        #expect(try await attempt(process, "allocate", "\(1 << 20)").hasPrefix("allowed"))
        // A type name the host never registered: refused by name; the next call is served.
        process.actorSystem.register(String.self)
        process.actorSystem.export(
            FixtureInspector(actorSystem: process.actorSystem),
            as: IPCActorSystem.ActorID.exportedObject.name
        )
        let smuggled = try await attempt(process, "unregistered")
        #expect(
            smuggled.hasPrefix("refused: ") && smuggled.contains("unregistered-type")
                && smuggled.contains("Smuggled") && smuggled.hasSuffix("then: String: still served"),
            "\(smuggled)"
        )
        // Outside enhanced security, the default filter lets through what it does not name.
        #expect(try await attempt(process, "personality") == "allowed: personality")
        // No key, no registry path in its environment.
        let variables = try await attempt(process, "environment")
        #expect(!variables.contains("APPEX_KEYS_DIR") && variables.contains("APPEX_KEYCHAIN_FD"))
        // The host and another extension go on.
        let echo = try tests.process(try tests.installEcho())
        defer { echo.invalidate() }
        #expect(
            try await echo.send(EchoRequest(command: "echo", text: "still"), expecting: EchoReply.self).text == "still"
        )
        #expect(
            try SharedKeychain(context: .owner, environment: environment).item(
                service: "sandbox",
                account: "seed",
                accessGroup: Self.keychainGroup
            ) != nil
        )
    }

    @Test(
        "enhanced security: the extension is process 1 of its own PID namespace with a private /tmp and /proc, has no network even with the entitlement, and meets the seccomp allowlist; the host still knows it and brokers its keychain"
    )
    func enhancedSecurity() async throws {
        try fixture.declarePoint(["EXRequiresEnhancedSecurity": .boolean(true)])
        try await OAuthServer.start()
        let port = try #require(OAuthServer.issuer.port)
        let keychain = try SharedKeychain(context: .owner, environment: fixture.world.environment)
        try keychain.set(Data("kept".utf8), service: "sandbox", account: "test", accessGroup: Self.keychainGroup)
        let process = try hostile(networkClient: true)
        defer { process.invalidate() }
        // Its own PID namespace: it is process 1, its parent outside, and /proc shows its own.
        let identity = try await attempt(process, "identity")
        #expect(identity.hasPrefix("allowed: pid 1 ppid 0 processes "), "\(identity)")
        let shown = Int(identity.split(separator: " ").last ?? "") ?? -1
        #expect((1...4).contains(shown), "its /proc shows \(shown) processes: \(identity)")
        // The host knows it by its pid in the host's namespace.
        #expect(process.processIdentifier.map { $0 > 1 } == true)
        // A private /tmp: its file is not in the host's /tmp.
        let name = "appex-enhanced-\(UUID())"
        #expect(try await attempt(process, "create", "/tmp/" + name) == "allowed: created")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/" + name))
        // What it needs under the host's /tmp (this test's world lives there) is bound back in:
        // its group writable, its bundle not.
        let environment = fixture.world.environment
        let shared = environment.home + "/AppGroups/\(Self.group)/enhanced"
        #expect(try await attempt(process, "create", shared) == "allowed: created")
        #expect(FileManager.default.fileExists(atPath: shared))
        let bundle = fixture.hostPath + "/Extensions/Hostile.appex"
        #expect(FileManager.default.fileExists(atPath: bundle))
        #expect(try await attempt(process, "create", bundle + "/planted").hasPrefix("refused"))
        #expect(!FileManager.default.fileExists(atPath: bundle + "/planted"))
        // No network, the entitlement notwithstanding; a call off the allowlist is refused.
        #expect(try await attempt(process, "connect", "\(port)").hasPrefix("refused: socket"))
        #expect(try await attempt(process, "personality").hasPrefix("refused: personality"))
        #expect(try await attempt(process, "unshare").hasPrefix("refused: "))
        // The broker still knows it by the kernel's word.
        #expect(try await attempt(process, "keychain", Self.keychainGroup) == "allowed: brokered kept")

        // A point that allows the network lets the entitled extension connect.
        process.invalidate()
        try fixture.declarePoint([
            "EXRequiresEnhancedSecurity": .boolean(true),
            "AppexSandbox": .dictionary(["AllowsNetwork": .boolean(true)]),
        ])
        let networked = try hostile(networkClient: true)
        defer { networked.invalidate() }
        let connected = try await attempt(networked, "connect", "\(port)")
        #expect(connected.hasPrefix("allowed: connected"), "\(connected)")
    }

    /// A Unix stream socket listening at `path`, or with `abstract` at that abstract name; closed
    /// by the caller.
    static func listeningUnixSocket(_ name: String, abstract: Bool) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (index, byte) in bytes.enumerated() { path[index + (abstract ? 1 : 0)] = byte }
        }
        let size = socklen_t(MemoryLayout<sa_family_t>.size + 1 + bytes.count)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        try #require(bound == 0 && listen(fd, 4) == 0, "cannot listen at \(name): errno \(errno)")
        return fd
    }

    @Test(
        "in both tiers, and with the network entitlement, an extension opens no socket it was not given: a pathname Unix socket the test listens on, an abstract one and a netlink route socket are refused (EPERM), a socket pair still works",
        arguments: [false, true]
    )
    func foreignSocketsRefused(enhanced: Bool) async throws {
        if enhanced { try fixture.declarePoint(["EXRequiresEnhancedSecurity": .boolean(true)]) }
        let path = fixture.world.root.appending("agent.sock")
        let pathname = try Self.listeningUnixSocket(path, abstract: false)
        defer { close(pathname) }
        let name = "appex-test-\(UUID().uuidString.prefix(8))"
        let abstract = try Self.listeningUnixSocket(name, abstract: true)
        defer { close(abstract) }
        // The listeners are real: this process reaches both.
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(probe) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { target in
            for (index, byte) in path.utf8.enumerated() { target[index] = byte }
        }
        let reached = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(reached == 0)

        let process = try hostile(networkClient: true)
        defer { process.invalidate() }
        for (command, argument) in [("unix", path), ("abstract", name), ("netlink", "")] {
            let outcome = try await attempt(process, command, argument)
            #expect(outcome.hasPrefix("refused: ") && outcome.hasSuffix("(errno \(EPERM))"), "\(command): \(outcome)")
        }
        #expect(try await attempt(process, "socketpair") == "allowed: a socket pair")
        // The extension lives on and answers.
        #expect(
            try await attempt(
                process,
                "create",
                fixture.world.environment.home + "/Containers/com.example.hostile/after"
            ).hasPrefix("allowed")
        )
    }

    @Test(
        "in both tiers, other processes are invisible: the test's /proc/<pid>/cmdline cannot be read, /proc lists only the extension's own processes, and the extension still reads its own",
        arguments: [false, true]
    )
    func otherProcessesInvisible(enhanced: Bool) async throws {
        if enhanced { try fixture.declarePoint(["EXRequiresEnhancedSecurity": .boolean(true)]) }
        let host = ProcessControl.processIdentifier
        // What it must not see is there to be seen: this process reads the test's command line.
        #expect(FileManager.default.contents(atPath: "/proc/\(host)/cmdline")?.isEmpty == false)
        let process = try hostile()
        defer { process.invalidate() }
        let outcome = try await attempt(process, "read", "/proc/\(host)/cmdline")
        #expect(outcome.hasPrefix("refused: open"), "\(outcome)")
        let parent = try await attempt(process, "read", "/proc/\(host)/status")
        #expect(parent.hasPrefix("refused: open"), "\(parent)")
        // It sees itself: process 1 of its own namespace, its own command line, a /proc of its own.
        let identity = try await attempt(process, "identity")
        #expect(identity.hasPrefix("allowed: pid 1 ppid 0 processes "), "\(identity)")
        let shown = Int(identity.split(separator: " ").last ?? "") ?? -1
        #expect((1...4).contains(shown), "its /proc shows \(shown) processes: \(identity)")
        #expect(try await attempt(process, "read", "/proc/self/cmdline").hasPrefix("allowed: read"))
        // The host knows it by its pid in the host's namespace.
        #expect(process.processIdentifier.map { $0 > 1 && $0 != host } == true)
    }

    @Test(
        "in both tiers, an extension that touches memory past its limit (the default, 512 MiB) is ended; the host reports memory-limit, serves another extension, and relaunches it",
        arguments: [false, true]
    )
    func memoryLimit(enhanced: Bool) async throws {
        if enhanced { try fixture.declarePoint(["EXRequiresEnhancedSecurity": .boolean(true)]) }
        let interruptions = Mutex<[AppexError]>([])
        let process = try tests.process(
            try tests.installEcho(id: "com.example.hostile", executable: hostileExecutable),
            onInterruption: { error in interruptions.withLock { $0.append(error) } }
        )
        defer { process.invalidate() }
        let echo = try tests.process(try tests.installEcho())
        defer { echo.invalidate() }
        // Under its limit, it allocates and lives on.
        #expect(try await attempt(process, "allocate", "\(256 << 20)") == "allowed: \(256 << 20) bytes")
        let error = await #expect(throws: AppexError.self) {
            _ = try await attempt(process, "allocate", "\(3 << 30)")
        }
        #expect(error?.code == .interrupted)
        #expect(error?.context.exceededLimit == "memory-limit", "\(String(describing: error))")
        #expect(
            error?.message.contains("ended during the call (ended past its memory limit of 512 MiB (memory-limit))")
                == true,
            "\(String(describing: error))"
        )
        #expect(await eventually(within: 5) { !interruptions.withLock { $0 }.isEmpty })
        let reported = interruptions.withLock { $0.first }
        #expect(reported?.context.exceededLimit == "memory-limit", "\(String(describing: reported))")
        // The host goes on: another extension answers, and the next call relaunches this one.
        #expect(try await echo.echo("echo", "still").text == "still")
        #expect(try await attempt(process, "allocate", "\(1 << 20)") == "allowed: \(1 << 20) bytes")
    }

    @Test(
        "on cgroup v1, each extension is born in pids and memory groups of its own, with no migration: the spawner thread waits in the next launch's reserve group; once launched, the extension's groups hold only its own threads, under their limits",
        arguments: [false, true]
    )
    func bornInItsGroups(enhanced: Bool) async throws {
        let roots = Sandbox.facilities.cgroups
        guard let memoryRoot = roots.memory, let pidsRoot = roots.pids, memoryRoot.hasSuffix("/memory") else {
            return  // no writable v1 hierarchies here: the child joins its groups instead (DESIGN)
        }
        if enhanced { try fixture.declarePoint(["EXRequiresEnhancedSecurity": .boolean(true)]) }
        let prefix = "appex.\(ProcessControl.processIdentifier)."
        for id in ["com.example.first", "com.example.second", "com.example.third"] {
            let process = try hostile(id: id)
            defer { process.invalidate() }
            _ = try await attempt(process, "allocate", "1024")
            let pid = try #require(process.processIdentifier)
            for (root, limitFile, limit) in [
                (memoryRoot, "memory.limit_in_bytes", "\(512 << 20)"), (pidsRoot, "pids.max", "1024"),
            ] {
                let group = try #require(Self.group(of: "/proc/\(pid)", under: root), "\(id) in \(root)")
                #expect(group.hasPrefix(root + "/" + prefix) && !group.contains(".r"), "\(group)")
                // The spawner thread moves on, and the limit lands, just after the launch.
                #expect(
                    await eventually(within: 5) {
                        let tasks = (try? String(contentsOfFile: group + "/tasks", encoding: .utf8)) ?? ""
                        let threads = tasks.split(separator: "\n")
                        return !threads.isEmpty
                            && threads.allSatisfy { FileManager.default.fileExists(atPath: "/proc/\(pid)/task/\($0)") }
                            && (try? String(contentsOfFile: group + "/" + limitFile, encoding: .utf8))?
                                .trimmingCharacters(in: .whitespacesAndNewlines) == limit
                    },
                    "\(group) holds only \(id)'s threads, under \(limitFile) = \(limit)"
                )
            }
        }
        // Where the spawner thread waits: a reserve for the next launch, in both hierarchies.
        let spawner = try #require(Self.spawnerThread(), "the appex.spawner thread")
        for root in [memoryRoot, pidsRoot] {
            #expect(
                await eventually(within: 5) {
                    Self.group(of: "/proc/self/task/\(spawner)", under: root)?.hasPrefix(root + "/" + prefix + "r")
                        == true
                },
                "the spawner thread waits in a reserve under \(root)"
            )
        }
    }

    /// The v1 group `task` (a /proc directory) sits in under `root`, from its `cgroup` file.
    static func group(of task: String, under root: String) -> String? {
        guard let text = try? String(contentsOfFile: task + "/cgroup", encoding: .utf8) else { return nil }
        let controller = URL(fileURLWithPath: root).lastPathComponent
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            if fields.count == 3, fields[1].split(separator: ",").contains(Substring(controller)) {
                return fields[2] == "/" ? root : root + fields[2]
            }
        }
        return nil
    }

    /// This process's spawner thread's id (its name is appex.spawner).
    static func spawnerThread() -> String? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.first { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) == "appex.spawner"
        }
    }

    @Test(
        "in both tiers, a call may use the CPU time its point allows (CPUSeconds, per call): calls that each stay within it go on, however many; one that spins past it is ended and reported as cpu-limit",
        arguments: [false, true]
    )
    func cpuLimit(enhanced: Bool) async throws {
        var attributes: [String: PropertyListValue] = [
            "AppexResourceLimits": .dictionary(["CPUSeconds": .integer(2)])
        ]
        if enhanced { attributes["EXRequiresEnhancedSecurity"] = .boolean(true) }
        try fixture.declarePoint(attributes)
        let process = try tests.process(try tests.installEcho(id: "com.example.hostile", executable: hostileExecutable))
        defer { process.invalidate() }
        // Three calls of 0.8 s each (the process's CPU time, its start included, to 0.8, 1.6 and
        // 2.4 s): more than one call's budget in all.
        for step in 1...3 {
            let spun = try await attempt(process, "spin", "\(Double(step) * 0.8)")
            #expect(spun.hasPrefix("allowed: spun"), "\(spun)")
        }
        let started = ContinuousClock.now
        let error = await #expect(throws: AppexError.self) {
            _ = try await attempt(process, "spin", "60")
        }
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(error?.code == .interrupted)
        #expect(error?.context.exceededLimit == "cpu-limit", "\(String(describing: error))")
        #expect(
            error?.message.contains("(ended past its CPU time of 2 s per call (cpu-limit))") == true,
            "\(String(describing: error))"
        )
        #expect(try await attempt(process, "allocate", "1024") == "allowed: 1024 bytes")
    }

    @Test("the same extension with the network client entitlement reaches the loopback port")
    func networkEntitlement() async throws {
        try await OAuthServer.start()
        let port = try #require(OAuthServer.issuer.port)
        let process = try hostile(networkClient: true)
        defer { process.invalidate() }
        let outcome = try await attempt(process, "connect", "\(port)")
        #expect(outcome.hasPrefix("allowed: connected"), "\(outcome)")
    }

    @Test(
        "a sandboxed extension's keychain goes through its host's broker and answers for its own groups only; a process holding a copy of the broker's socket is refused"
    )
    func brokeredKeychain() async throws {
        let environment = fixture.world.environment
        let keychain = try SharedKeychain(context: .owner, environment: environment)
        try keychain.set(
            Data("shared-value".utf8),
            service: "sandbox",
            account: "test",
            accessGroup: Self.keychainGroup
        )
        try keychain.set(
            Data("other".utf8),
            service: "sandbox",
            account: "test",
            accessGroup: "TEAMID.com.example.other"
        )
        let process = try hostile()
        defer { process.invalidate() }
        #expect(try await attempt(process, "keychain", Self.keychainGroup) == "allowed: brokered shared-value")
        // Its answers are cached while the keychain's WAL index says nothing was committed: a
        // change by the host is seen at the next read, never a stale value.
        #expect(try await attempt(process, "keychain", Self.keychainGroup) == "allowed: brokered shared-value")
        try keychain.set(Data("changed".utf8), service: "sandbox", account: "test", accessGroup: Self.keychainGroup)
        #expect(try await attempt(process, "keychain", Self.keychainGroup) == "allowed: brokered changed")
        try keychain.set(
            Data("shared-value".utf8),
            service: "sandbox",
            account: "test",
            accessGroup: Self.keychainGroup
        )
        #expect(try await attempt(process, "keychain", Self.keychainGroup) == "allowed: brokered shared-value")
        let refused = try await attempt(process, "keychain", "TEAMID.com.example.other")
        #expect(refused.contains("missing-entitlement"), "\(refused)")

        // Another process with the extension's broker socket (taken with pidfd_getfd) asks as if
        // it were the extension: the kernel says who sent it, and the broker refuses.
        let pid = try await process.echo("environment").pid
        let pidfd = try #require(ProcessControl.openPidfd(pid))
        let copy = PacketSocket(adopting: try ProcessControl.copyDescriptor(4, of: pidfd))
        let request = KeychainBrokerRequest.items(service: "sandbox", account: "test", accessGroup: Self.keychainGroup)
        try copy.send(try request.encoded())
        let answer = try KeychainBrokerReply(bytes: try #require(try copy.receive()).bytes)
        guard case .failure(let code, let message) = answer else {
            Issue.record("an impostor was answered: \(answer)")
            return
        }
        #expect(code == "untrusted-process" && message.contains("(pid \(pid))"))
        // The extension itself is still served.
        #expect(try await attempt(process, "keychain", Self.keychainGroup) == "allowed: brokered shared-value")
    }

    @Test("the checked file is the file that runs: an executable swapped between the check and the exec does not run")
    func swappedExecutable() async throws {
        let identity = try tests.installEcho()
        let executable = identity.bundlePath + "/AppexFixtureEcho"
        var configuration = AppExtensionProcess.Configuration(
            identity: identity,
            hostBundlePath: fixture.hostPath,
            environment: fixture.world.environment
        )
        // Between the check and the spawn: a script that would say "swapped" takes the path.
        configuration.beforeSpawn = {
            let impostor = executable + ".new"
            try? Data("#!/bin/sh\necho swapped\n".utf8).write(to: URL(fileURLWithPath: impostor))
            chmod(impostor, 0o755)
            rename(impostor, executable)
        }
        let process = try await AppExtensionProcess(configuration: configuration)
        defer { process.invalidate() }
        let reply = try await process.send(EchoRequest(command: "echo", text: "original"), expecting: EchoReply.self)
        #expect(reply.text == "original")
        // The next launch checks the file again: the script is not what the seal covers.
        process.invalidate()
        configuration.beforeSpawn = nil
        await #expect {
            let next = try await AppExtensionProcess(configuration: configuration)
            defer { next.invalidate() }
            _ = try await next.send(EchoRequest(command: "echo", text: "x"), expecting: EchoReply.self)
        } throws: { error in
            "\(error)".contains("modified after the bundle was signed")
                || "\(error)".contains("not the executable its seal covers")
        }
    }
}
