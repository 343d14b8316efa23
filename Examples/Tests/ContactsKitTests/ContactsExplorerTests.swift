import AppexCore
import AppexStore
import AppexTestTiers
import AppexTesting
import ContactsKit
import Foundation
import Testing

/// ContactsExplorer as a user runs it: the real executable in a signed `ContactsExplorer.app`
/// (app group and keychain group as seed 000 configures them), against the real server.
@Suite(.timed, .tags(.product)) struct ContactsExplorerTests {
    let world: AppexTestEnvironment
    let app: String
    /// The OAuth client the app uses (`CONTACTS_CLIENT_ID`); `nil`: its default.
    var client: String?

    init() throws {
        world = try AppexTestEnvironment(prefix: "contacts-explorer")
        app = try Product.install(in: world)
    }

    /// Runs the app with `arguments` (and `input` on standard input): its status and output.
    func run(
        _ arguments: [String],
        server: URL,
        input: String? = nil,
        variables extra: [String: String] = [:]
    ) throws -> (status: Int32, out: String, err: String) {
        let process = try start(arguments, server: server, input: input, variables: extra)
        // A run that hangs is killed, so a failing test neither waits forever nor leaves it behind.
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        defer { watchdog.cancel() }
        let out = String(
            decoding: (process.standardOutput as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data(),
            as: UTF8.self
        )
        let err = String(
            decoding: (process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data(),
            as: UTF8.self
        )
        process.waitUntilExit()
        return (process.terminationStatus, out, err)
    }

    /// `ContactsExplorer login` as `user`, the password on standard input.
    func logIn(
        _ user: (username: String, password: String),
        server: URL
    ) throws -> (status: Int32, out: String, err: String) {
        try run(["login", "--user", user.username, "--password-stdin"], server: server, input: user.password + "\n")
    }

    func start(
        _ arguments: [String],
        server: URL,
        input: String? = nil,
        variables extra: [String: String] = [:]
    ) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: app + "/ContactsExplorer")
        process.arguments = arguments
        var variables = world.processVariables
        variables["CONTACTS_SERVER"] = server.absoluteString
        variables["APPEX_APPS_PATH"] = (app as NSString).deletingLastPathComponent
        if let client { variables["CONTACTS_CLIENT_ID"] = client }
        variables.merge(extra) { _, new in new }
        process.environment = variables
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        let stdin = Pipe()
        process.standardInput = stdin
        try process.runWithSignalsUnblocked()
        stdin.fileHandleForWriting.write(Data((input ?? "").utf8))
        try stdin.fileHandleForWriting.close()
        return process
    }

    /// The environment of the system's widget host, with the app's folder as its apps path.
    var widgetHostEnvironment: AppexEnvironment {
        var environment = world.environment
        environment.appsPath = [(app as NSString).deletingLastPathComponent]
        return environment
    }

    /// The app's store, read as its widget reads it.
    func store() throws -> ContactsStore {
        let context = try ProcessContext(bundleAt: app)
        let group = try AppGroup(SharedConfiguration.appGroup, context: context, environment: world.environment)
        return try ContactsStore(path: SharedConfiguration.storePath(inGroupContainer: group.containerPath))
    }

    @Test(
        "login (keychain group of seed 000, not named anywhere), sync, contacts with hostile names made safe, show marks recent, logout"
    )
    func story() async throws {
        let server = try TestServer.start()
        let user = try await TestServer.newAccount(contacts: 40, hostile: true)
        let login = try logIn(user, server: server)
        #expect(login.status == 0, "\(login.err)")
        #expect(login.out.contains("logged in as"))
        let sync = try run(["sync"], server: server)
        #expect(sync.status == 0 && sync.out.contains("synced: 40 contacts"), "\(sync.out) \(sync.err)")
        let listed = try run(["contacts"], server: server)
        let lines = listed.out.split(separator: "\n")
        #expect(lines.count == 40)
        // No escape, bell or bidi override reaches the terminal.
        #expect(!listed.out.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E })
        #expect(listed.out.contains("<script>alert('x')</script> Mallory"))
        let oldest = try #require(try store().contacts().min { $0.modified < $1.modified })
        #expect(try run(["show", oldest.id], server: server).status == 0)
        #expect(try store().recent(limit: 1).first?.id == oldest.id)
        let loggedIn = try SharedDefaults(
            group: AppGroup(
                SharedConfiguration.appGroup,
                context: ProcessContext(bundleAt: app),
                environment: world.environment
            )
        )
        #expect(loggedIn.bool(forKey: "userLoggedIn") == true)
        #expect(try run(["logout"], server: server).status == 0)
        #expect(loggedIn.bool(forKey: "userLoggedIn") == false)
        let after = try run(["sync"], server: server)
        #expect(after.status == 1 && after.err.contains("not-logged-in"), "\(after.err)")
    }

    @Test(
        "passcode set moves the session's tokens out of the shared keychain behind the passcode; the app syncs only with it; change keeps them; off shares them again"
    )
    func passcode() async throws {
        let server = try TestServer.start()
        let user = try await TestServer.newAccount(contacts: 10, hostile: false)
        let login = try logIn(user, server: server)
        try #require(login.status == 0, "login: \(login.out) \(login.err)")
        let quick = ["CONTACTS_SCRYPT_ROUNDS": "1024"]
        let keychain = try SharedKeychain(context: .owner, environment: world.environment)
        func sharedTokens() throws -> Int { try keychain.items(matching: KeychainQuery(service: "appex.oauth")).count }
        #expect(try sharedTokens() > 0)
        let set = try run(["passcode", "set"], server: server, input: "first passcode 1\n", variables: quick)
        #expect(set.status == 0 && set.out.contains("passcode set"), "\(set.out) \(set.err)")
        #expect(try sharedTokens() == 0, "the tokens left the shared keychain")
        let locked = try run(["sync"], server: server, variables: quick)
        #expect(locked.status == 1 && locked.err.contains("CONTACTS_PASSCODE"), "\(locked.err)")
        var withPasscode = quick
        withPasscode["CONTACTS_PASSCODE"] = "first passcode 1"
        let sync = try run(["sync"], server: server, variables: withPasscode)
        #expect(sync.status == 0 && sync.out.contains("synced: 10 contacts"), "\(sync.out) \(sync.err)")
        withPasscode["CONTACTS_PASSCODE"] = "wrong passcode 9"
        let wrong = try run(["sync"], server: server, variables: withPasscode)
        #expect(wrong.status == 1 && wrong.err.contains("wrong-passcode"), "\(wrong.err)")
        let change = try run(
            ["passcode", "change"],
            server: server,
            input: "first passcode 1\nsecond passcode 2\n",
            variables: quick
        )
        #expect(change.status == 0, "\(change.err)")
        withPasscode["CONTACTS_PASSCODE"] = "second passcode 2"
        #expect(try run(["sync"], server: server, variables: withPasscode).status == 0)
        let off = try run(["passcode", "off"], server: server, input: "second passcode 2\n", variables: quick)
        #expect(off.status == 0 && off.out.contains("shared again"), "\(off.err)")
        #expect(try sharedTokens() > 0)
        #expect(try run(["sync"], server: server).status == 0)
    }

    @Test(
        "login --pkce prints the URL to open; signing in there (the server's login form) logs the app in and publishes it"
    )
    func loginWithPKCE() async throws {
        let server = try TestServer.start()
        let user = try await TestServer.newAccount(contacts: 2)
        let login = try start(["login", "--pkce"], server: server)
        defer { if login.isRunning { kill(login.processIdentifier, SIGKILL) } }
        let output = try #require((login.standardOutput as? Pipe)?.fileHandleForReading)
        var printed = Data()
        while !printed.contains(UInt8(ascii: "\n")) {
            let more = output.availableData
            if more.isEmpty { break }
            printed += more
        }
        let line = String(decoding: printed, as: UTF8.self)
        #expect(line.hasPrefix("Open this URL to sign in: "), "\(line)")
        let url = try #require(
            line.split(separator: " ").last.flatMap {
                URL(string: String($0).trimmingCharacters(in: .whitespacesAndNewlines))
            }
        )
        #expect(url.absoluteString.contains("code_challenge_method=S256"))
        try await LoginForm.signIn(at: url, user: user.username, password: user.password)
        let rest = String(decoding: output.readDataToEndOfFile(), as: UTF8.self)
        let err = String(
            decoding: (login.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data(),
            as: UTF8.self
        )
        login.waitUntilExit()
        #expect(login.terminationStatus == 0 && rest.contains("logged in as"), "\(rest) \(err)")
        let status = try SharedDefaults(
            group: AppGroup(
                SharedConfiguration.appGroup,
                context: ProcessContext(bundleAt: app),
                environment: world.environment
            )
        )
        #expect(status.bool(forKey: "userLoggedIn") == true)
        #expect(try run(["sync"], server: server).out.contains("synced: 2 contacts"))
    }

    @Test(
        "a CONTACTS_SERVER that is no server URL is refused by name, as the app's configuration, before anything is sent"
    )
    func badServer() throws {
        let server = try TestServer.start()
        let refused = try run(["sync"], server: server, variables: ["CONTACTS_SERVER": "not a url"])
        #expect(refused.status == 1)
        #expect(
            refused.err.contains(#"configuration: CONTACTS_SERVER is "not a url", which is no server URL"#),
            "\(refused.err)"
        )
    }

    @Test("sync killed with SIGKILL mid-way, then sync again: every contact once, none lost or doubled")
    func killedDuringSync() async throws {
        let server = try TestServer.start()
        let user = try await TestServer.newAccount(contacts: 3000)
        #expect(
            try logIn(user, server: server).status == 0
        )
        let syncing = try start(["sync"], server: server)
        defer { if syncing.isRunning { kill(syncing.processIdentifier, SIGKILL) } }
        let store = try store()
        // Off a terminal the app prints a line as each page is stored: killed when the second
        // comes (reading the pipe wakes at once; the other pages take tens of milliseconds each).
        let output = try #require((syncing.standardOutput as? Pipe)?.fileHandleForReading)
        var printed = Data()
        while printed.filter({ $0 == UInt8(ascii: "\n") }).count < 2 {
            let more = output.availableData
            if more.isEmpty { break }  // it ended first
            printed += more
        }
        kill(syncing.processIdentifier, SIGKILL)
        syncing.waitUntilExit()
        let stored = try store.count()
        #expect(stored > 0 && stored < 3000, "the sync was not caught mid-way: \(stored) stored")
        #expect(try store.syncState().resume != nil)
        let again = try run(["sync"], server: server)
        #expect(again.status == 0 && again.out.contains("(resumed)"), "\(again.out) \(again.err)")
        #expect(try store.count() == 3000)
        #expect(Set(try store.contacts().map(\.id)).count == 3000)
    }
}
