import AppexCore
import AppexSQLite
import AppexStore
import AppexTestTiers
import AppexTesting
import Foundation
import GRDB
import Testing

/// Shared defaults in an app group's container.
@Suite(.timed) struct SharedDefaultsTests {
    let world: AppexTestEnvironment
    let group: AppGroup
    init() throws {
        world = try AppexTestEnvironment()
        let context = ProcessContext(
            bundleIdentifier: "com.example.hostapp",
            team: world.team.teamIdentifier,
            entitlements: Entitlements(applicationGroups: ["group.com.example.app"], keychainAccessGroups: [])
        )
        group = try AppGroup("group.com.example.app", context: context, environment: world.environment)
    }

    struct Profile: Codable, Equatable {
        var name: String
        var instance: URL
    }

    @Test("every value type round-trips and survives reopening the suite")
    func roundTrips() throws {
        let defaults = try SharedDefaults(group: group)
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        try defaults.set(true, forKey: "bool")
        try defaults.set(42, forKey: "int")
        try defaults.set(2.5, forKey: "double")
        try defaults.set("héllo", forKey: "string")
        try defaults.set(Data([1, 2, 3]), forKey: "data")
        try defaults.set(date, forKey: "date")
        try defaults.set(.array([.string("a"), .integer(1)]), forKey: "array")
        try defaults.set(.dictionary(["k": .boolean(false)]), forKey: "dictionary")
        try defaults.set(
            encoded: Profile(name: "Ada", instance: URL(string: "https://example.my.salesforce.com")!),
            forKey: "profile"
        )
        #expect(defaults.path == group.containerPath + "/Library/Preferences/group.com.example.app.sqlite")

        let reopened = try SharedDefaults(group: group)
        #expect(reopened.bool(forKey: "bool"))
        #expect(reopened.integer(forKey: "int") == 42)
        #expect(reopened.double(forKey: "double") == 2.5)
        #expect(reopened.string(forKey: "string") == "héllo")
        #expect(reopened.data(forKey: "data") == Data([1, 2, 3]))
        #expect(reopened.date(forKey: "date") == date)
        #expect(reopened.array(forKey: "array") == [.string("a"), .integer(1)])
        #expect(reopened.dictionary(forKey: "dictionary") == ["k": .boolean(false)])
        #expect(try reopened.decoded(Profile.self, forKey: "profile")?.name == "Ada")
        #expect(throws: AppexError.self) { _ = try reopened.decoded([Int].self, forKey: "profile") }

        try reopened.removeObject(forKey: "int")
        #expect(defaults.object(forKey: "int") == nil)
        #expect(defaults.integer(forKey: "int") == 0)
    }

    @Test("registered defaults fill in for absent keys, in this process only; dictionaryRepresentation merges")
    func registeredDefaults() throws {
        let defaults = try SharedDefaults(group: group)
        defaults.register(defaults: ["theme": .string("dark"), "count": .integer(1)])
        try defaults.set(5, forKey: "count")
        #expect(defaults.string(forKey: "theme") == "dark")
        #expect(defaults.integer(forKey: "count") == 5)
        #expect(defaults.dictionaryRepresentation() == ["theme": .string("dark"), "count": .integer(5)])
        #expect(try SharedDefaults(group: group).object(forKey: "theme") == nil)
    }

    @Test("concurrent read-modify-write through separate connections loses no update (8 writers x 50 increments)")
    func atomicUpdates() async throws {
        let group = self.group
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for _ in 0..<8 {
                tasks.addTask {
                    let defaults = try SharedDefaults(group: group)  // its own SQLite connection
                    for _ in 0..<50 {
                        try await defaults.update("counter") { old in
                            .integer((old.flatMap { if case .integer(let n) = $0 { n } else { nil } } ?? 0) + 1)
                        }
                        await Task.yield()
                    }
                }
            }
            try await tasks.waitForAll()
        }
        #expect(try SharedDefaults(group: group).integer(forKey: "counter") == 400)
    }

    @Test("cached reads see every write committed before them, by another connection, at once (no stale cache)")
    func cachedReadsAreCurrent() throws {
        let group = try AppGroup("group.com.example.app", context: .owner, environment: world.environment)
        let reader = try SharedDefaults(group: group)
        let writer = try SharedDefaults(group: group)  // its own connection, as another process has
        try writer.set(0, forKey: "n")
        #expect(reader.integer(forKey: "n") == 0)
        for value in 1...300 {
            if value % 3 == 0 {
                try writer.removeObject(forKey: "n")
                #expect(reader.object(forKey: "n") == nil)
            } else {
                try writer.set(value, forKey: "n")
                #expect(reader.integer(forKey: "n") == value)
                #expect(reader.dictionaryRepresentation()["n"] == .integer(value))
            }
        }
    }

    @Test("a value too large to read back is refused with invalid-value naming the key; reads and observers go on")
    func oversizedValue() async throws {
        let defaults = try SharedDefaults(group: group)
        try defaults.set("kept", forKey: "other")
        let changes = defaults.changes()
        let error = try #require(throws: AppexError.self) {
            try defaults.set(.array(Array(repeating: .integer(1), count: 100_001)), forKey: "big")
        }
        #expect(error.code == .invalidValue && error.message.contains("big"))
        #expect(defaults.string(forKey: "other") == "kept")
        try defaults.set("after", forKey: "other")
        let seen = await collect(1, of: changes)
        #expect(seen.map(\.value) == [.string("after")])
    }

    @Test("an update's transform may read the suite, from a stale cache too, without crashing or deadlocking")
    func transformReadsTheSuite() throws {
        let defaults = try SharedDefaults(group: group)
        let other = try SharedDefaults(group: group)
        try defaults.set(1, forKey: "a")
        _ = defaults.integer(forKey: "a")  // fill the cache
        try other.set(5, forKey: "b")  // and make it stale
        try defaults.update("a") { old in .integer((old?.integerValue ?? 0) + defaults.integer(forKey: "b")) }
        #expect(defaults.integer(forKey: "a") == 6)
    }

    @Test("a suite name that cannot name a file is refused")
    func badSuiteName() throws {
        let error = try #require(throws: AppexError.self) { try SharedDefaults(suiteName: "../escape", group: group) }
        #expect(error.code == .invalidName)
    }
}

/// `appex defaults`, like macOS `defaults`, in real processes.
@Suite(.timed) struct DefaultsCommandTests {
    @Test(
        "write then read prints the value alone; the suite as JSON; delete; writes from separate processes are seen by the library"
    )
    func writeReadDelete() async throws {
        let world = try AppexTestEnvironment()
        let group = "group.com.example.app"
        #expect(
            try await appex("defaults", "write", "--group", group, "greeting", "hello world", in: world).status == 0
        )
        #expect(try await appex("defaults", "write", "--group", group, "--int", "count", "7", in: world).status == 0)
        #expect(
            try await appex("defaults", "write", "--group", group, "--bool", "loggedIn", "yes", in: world).status == 0
        )
        #expect(
            try await appex("defaults", "read", "--group", group, "greeting", in: world).standardOutput
                == "hello world\n"
        )
        #expect(try await appex("defaults", "read", "--group", group, "loggedIn", in: world).standardOutput == "1\n")
        let all = try await appex("defaults", "read", "--group", group, in: world)
        #expect(all.standardOutput.contains("\"count\" : 7"))

        let defaults = try SharedDefaults(group: AppGroup(group, context: .owner, environment: world.environment))
        #expect(defaults.integer(forKey: "count") == 7)
        #expect(defaults.bool(forKey: "loggedIn"))

        #expect(try await appex("defaults", "delete", "--group", group, "count", in: world).status == 0)
        let missing = try await appex("defaults", "read", "--group", group, "count", in: world)
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("count"))
    }

    @Test("--as a bundle without the group's entitlement: exit 1, and the message names the group and the entitlement")
    func refusedAsBundle() async throws {
        let world = try AppexTestEnvironment()
        let bundle = try FixtureBundles.makeExtension(
            in: world.root.appending("Bundles"),
            name: "Other",
            bundleIdentifier: "com.example.other",
            extensionPoint: "com.example.hostapp.HostAppFeature",
            entitlements: Entitlements(applicationGroups: ["group.com.example.else"], keychainAccessGroups: []),
            signedBy: world.team
        )
        let refused = try await appex(
            "defaults",
            "read",
            "--group",
            "group.com.example.app",
            "--as",
            bundle,
            "key",
            in: world
        )
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("group.com.example.app"))
        #expect(refused.standardError.contains("com.apple.security.application-groups"))
        #expect(refused.standardOutput.isEmpty)
    }
}

/// Change observation across processes.
@Suite(.timed) struct DefaultsObservationTests {
    @Test("a write by another process (the appex tool) reaches an observer of the key, with its value")
    func crossProcessChange() async throws {
        let world = try AppexTestEnvironment()
        let group = "group.com.example.app"
        let defaults = try SharedDefaults(group: AppGroup(group, context: .owner, environment: world.environment))
        let changes = defaults.changes(forKey: "userLoggedIn")
        let received = Task { () -> SharedDefaults.Change? in
            for await change in changes { return change }
            return nil
        }
        #expect(
            try await appex("defaults", "write", "--group", group, "--bool", "userLoggedIn", "true", in: world).status
                == 0
        )
        let change = try #require(await withTimeout(seconds: 10) { await received.value } ?? nil)
        #expect(change.key == "userLoggedIn")
        #expect(change.value == .boolean(true))
    }

    @Test("a burst of writes is delivered whole and in commit order (no change lost)")
    func burstInOrder() async throws {
        let world = try AppexTestEnvironment()
        let group = try AppGroup("group.com.example.app", context: .owner, environment: world.environment)
        let observed = try SharedDefaults(group: group)
        let changes = observed.changes()
        let writer = try SharedDefaults(group: group)  // another connection
        for index in 0..<50 { try writer.set(index, forKey: "key\(index % 5)") }
        let received = await collect(50, of: changes)
        let sequences = received.map(\.sequence)
        let keys = received.map(\.key)
        #expect(received.count == 50)
        #expect(sequences == sequences.sorted())
        #expect(Set(sequences).count == 50)
        #expect(keys == (0..<50).map { "key\($0 % 5)" })
    }
}

/// Several real processes on one suite.
@Suite(.timed) struct DefaultsProcessTests {
    @Test("4 processes x 100 atomic increments = 400 exactly")
    func processesIncrement() async throws {
        let world = try AppexTestEnvironment()
        let group = "group.com.example.app"
        let results = try await withThrowingTaskGroup(of: ProcessOutput.self) { tasks in
            for _ in 0..<4 {
                tasks.addTask {
                    try await run(
                        storeExecutable,
                        ["increment", group, "counter", "100"],
                        environment: world.processVariables,
                        timeout: 120
                    )
                }
            }
            return try await tasks.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.standardError))")
        let defaults = try SharedDefaults(group: AppGroup(group, context: .owner, environment: world.environment))
        #expect(defaults.integer(forKey: "counter") == 400)
    }

    @Test("a writer killed with SIGKILL at random moments never leaves a torn or lost committed value")
    func writerKilled() async throws {
        let world = try AppexTestEnvironment()
        let group = "group.com.example.app"
        let seed = TestSeed()
        var generator = seed.generator
        var stored = 0
        var printedAny = false
        for round in 0..<8 {
            let lifetime = Double.random(in: 0.15...0.5, using: &generator)
            let output = try await run(
                storeExecutable,
                ["write-loop", group, "value"],
                environment: world.processVariables,
                timeout: lifetime
            )
            let printed = printedNumbers(output)
            printedAny = printedAny || !printed.isEmpty
            // Reopened after the kill: the file is whole, and holds the last value the writer
            // reported, or the one it committed but was killed before reporting.
            let defaults = try SharedDefaults(group: AppGroup(group, context: .owner, environment: world.environment))
            let value = defaults.object(forKey: "value")
            var now: Int?
            if case .integer(let integer) = value {
                now = integer
            } else if let value {
                Issue.record("round \(round): the value is \(value), not an integer; \(seed)")
            }
            stored = expectCountedOn(from: stored, printed: printed, storedAfter: now, "round \(round); \(seed)")
        }
        #expect(printedAny, "the writer never committed a value before being killed; \(seed)")
    }
}

/// The host's login status, as extensions see it.
@Suite(.timed) struct LoginStatusTests {
    @Test("before login requireUser refuses with not-logged-in; publish and logout arrive in order on changes")
    func loginAndLogout() async throws {
        let world = try AppexTestEnvironment()
        let group = try AppGroup("group.com.example.app", context: .owner, environment: world.environment)
        let host = try LoginStatus(group: group)
        let extensionSide = try LoginStatus(group: group)  // another connection, as another process
        #expect(!extensionSide.isUserLoggedIn)
        let error = try #require(throws: AppexError.self) { try extensionSide.requireUser() }
        #expect(error.code == .notLoggedIn)

        let changes = extensionSide.changes
        let ada = UserAccount(
            identifier: "005xx",
            name: "Ada",
            instanceURL: URL(string: "https://example.my.salesforce.com")!
        )
        try host.publish(ada)
        try host.publish(nil)
        let seen = await collect(2, of: changes)
        #expect(seen == [ada, nil])
        #expect(!extensionSide.isUserLoggedIn)
    }

    @Test("an app extension's context cannot publish: host-only, and the status is unchanged")
    func extensionCannotPublish() throws {
        let world = try AppexTestEnvironment()
        let widget = ProcessContext(
            bundleIdentifier: "com.example.hostapp.widget",
            team: world.team.teamIdentifier,
            entitlements: Entitlements(applicationGroups: ["group.com.example.app"], keychainAccessGroups: []),
            kind: .appExtension
        )
        let status = try LoginStatus(
            group: AppGroup("group.com.example.app", context: widget, environment: world.environment)
        )
        let error = try #require(throws: AppexError.self) {
            try status.publish(UserAccount(identifier: "x", name: "Mallory", instanceURL: URL(fileURLWithPath: "/")))
        }
        #expect(error.code == .hostOnly && error.message.contains("com.example.hostapp.widget"))
        #expect(!status.isUserLoggedIn)
    }

    @Test(
        "publish sets the login Boolean under the configured key in the group's own suite; a Boolean the host sets itself is heard, and false hides a published account"
    )
    func booleanUnderConfiguredKey() throws {
        let world = try AppexTestEnvironment()
        let group = try AppGroup("group.com.example.app", context: .owner, environment: world.environment)
        let custom = LoginStatus.Configuration(userLoggedInKey: "mseLoggedIn")
        #expect(LoginStatus.Configuration().userLoggedInKey == "userLoggedIn")
        let host = try LoginStatus(group: group, configuration: custom)
        let reader = try LoginStatus(group: group, configuration: custom)  // another connection, as a widget
        let groupSuite = try SharedDefaults(group: group)  // what msdkUserDefaults() is once sharing is on
        let ada = UserAccount(identifier: "005xx", name: "Ada", instanceURL: URL(fileURLWithPath: "/"))

        try host.publish(ada)
        #expect(groupSuite.bool(forKey: "mseLoggedIn"))
        #expect(groupSuite.object(forKey: "userLoggedIn") == nil)
        #expect(reader.isUserLoggedIn && reader.currentUser == ada)
        // MobileSyncExplorer writes the Boolean itself at logout: the account is hidden.
        try groupSuite.set(false, forKey: "mseLoggedIn")
        #expect(!reader.isUserLoggedIn && reader.currentUser == nil)
        #expect(throws: AppexError.self) { try reader.requireUser() }
        try groupSuite.set(true, forKey: "mseLoggedIn")
        #expect(reader.isUserLoggedIn && reader.currentUser == ada)
        try host.publish(nil)
        #expect(!groupSuite.bool(forKey: "mseLoggedIn") && !reader.isUserLoggedIn)
    }
}

/// The SQLite files every store shares.
@Suite(.timed) struct SharedDatabaseTests {
    @Test("every connection syncs each commit: synchronous is FULL after GRDB's WAL setup (which sets NORMAL)")
    func synchronousFull() throws {
        let directory = try TemporaryDirectory(prefix: "appex-shared-db")
        let queue = try SharedDatabase.open(path: directory.appending("a.sqlite"), label: "test", version: 1) { _ in
            "CREATE TABLE t (x);"
        }
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 2)
        #expect(try queue.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
    }
}
