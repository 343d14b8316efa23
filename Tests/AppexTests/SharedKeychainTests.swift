import AppexCore
import AppexStore
import AppexTestTiers
import AppexTesting
import Foundation
import GRDB
import Testing

/// The shared keychain: generic-password items, entitlement checks, encryption at rest.
@Suite(.timed) struct SharedKeychainTests {
    let world: AppexTestEnvironment
    init() throws { world = try AppexTestEnvironment() }

    static let shared = "TEAMID.com.example.shared"
    static let widgetOnly = "TEAMID.com.example.widget"

    func keychain(
        _ id: String = "com.example.hostapp",
        groups: [String] = [Self.shared],
        team: TeamIdentifier? = nil
    ) throws -> SharedKeychain {
        try SharedKeychain(
            context: ProcessContext(
                bundleIdentifier: id,
                team: team ?? world.team.teamIdentifier,
                entitlements: Entitlements(applicationGroups: [], keychainAccessGroups: groups)
            ),
            environment: world.environment
        )
    }

    @Test(
        "a bundle's private group needs no entitlement and no other bundle reaches it, even one entitled to its name; the owner does"
    )
    func privateGroup() throws {
        let host = try keychain()
        let group = try #require(host.privateAccessGroup)
        #expect(group == "private:com.example.hostapp")
        try host.add(Data("primary share".utf8), service: "s", account: "a", accessGroup: group)
        #expect(try host.item(service: "s", account: "a", accessGroup: group)?.string == "primary share")
        #expect(
            try host.item(service: "s", account: "a") == nil,
            "a search without a group leaves the private group out"
        )
        for other in [try keychain("com.example.hostapp.widget"), try keychain("com.example.other", groups: [group])] {
            let error = try #require(throws: AppexError.self) {
                try other.item(service: "s", account: "a", accessGroup: group)
            }
            #expect(error.code == .missingEntitlement && error.message.contains("private group of com.example.hostapp"))
            #expect(throws: AppexError.self) {
                try other.set(Data("x".utf8), service: "s", account: "a", accessGroup: group)
            }
        }
        // Entitled to the private group's name, with no group named: still nothing.
        let claiming = try keychain("com.example.other", groups: [group, Self.shared])
        #expect(try claiming.item(service: "s", account: "a") == nil)
        #expect(try claiming.items(matching: KeychainQuery(service: "s")).isEmpty)
        #expect(claiming.defaultAccessGroup == Self.shared)
        let impostor = try keychain(team: TeamIdentifier(rawValue: "OTHERTEAM1"))
        let claimed = try #require(throws: AppexError.self) {
            try impostor.item(service: "s", account: "a", accessGroup: group)
        }
        #expect(claimed.code == .teamMismatch)
        let owner = try SharedKeychain(context: .owner, environment: world.environment)
        #expect(try owner.item(service: "s", account: "a", accessGroup: group)?.string == "primary share")
    }

    @Test(
        "add, find with attributes, update (creation date kept, label kept), delete; another process's keychain sees each step"
    )
    func lifecycle() throws {
        let host = try keychain()
        let widget = try keychain("com.example.hostapp.widget")
        try host.add(Data("s3cret".utf8), service: "api.example.com", account: "ada", label: "Ada's token")
        let found = try #require(try widget.item(service: "api.example.com", account: "ada"))
        #expect(found.string == "s3cret")
        #expect(found.accessGroup == Self.shared)
        #expect(found.label == "Ada's token")
        #expect(found.creationDate == found.modificationDate)

        try widget.update(Data("rotated".utf8), service: "api.example.com", account: "ada")
        let updated = try #require(try host.item(service: "api.example.com", account: "ada"))
        #expect(updated.string == "rotated")
        #expect(updated.label == "Ada's token")
        #expect(updated.creationDate == found.creationDate)
        #expect(updated.modificationDate >= found.modificationDate)

        try host.delete(service: "api.example.com", account: "ada")
        #expect(try widget.item(service: "api.example.com", account: "ada") == nil)
    }

    @Test("cached item reads see every update and delete committed by another connection, at once")
    func cachedReadsAreCurrent() throws {
        let reader = try keychain("com.example.hostapp.widget")
        let writer = try keychain()
        try writer.add(Data("v0".utf8), service: "svc", account: "ada")
        #expect(try reader.item(service: "svc", account: "ada")?.string == "v0")
        for round in 1...100 {
            if round % 10 == 0 {
                try writer.delete(service: "svc", account: "ada")
                #expect(try reader.item(service: "svc", account: "ada") == nil)
                try writer.add(Data("v\(round)".utf8), service: "svc", account: "ada")
            } else {
                try writer.update(Data("v\(round)".utf8), service: "svc", account: "ada")
            }
            #expect(try reader.item(service: "svc", account: "ada")?.string == "v\(round)")
            #expect(try reader.item(service: "svc", account: "ada")?.string == "v\(round)")  // from the cache
        }
    }

    @Test(
        "a duplicate add is refused with duplicate-item; update and delete of a missing item with item-not-found; nothing changes"
    )
    func duplicatesAndMissing() throws {
        let host = try keychain()
        try host.add(Data("one".utf8), service: "svc", account: "ada")
        let duplicate = try #require(throws: AppexError.self) {
            try host.add(Data("two".utf8), service: "svc", account: "ada")
        }
        #expect(duplicate.code == .duplicateItem)
        #expect(
            duplicate.message.contains("svc") && duplicate.message.contains("ada")
                && duplicate.message.contains(Self.shared)
        )
        #expect(try host.item(service: "svc", account: "ada")?.string == "one")
        #expect(throws: AppexError.self) { try host.update(Data("x".utf8), service: "svc", account: "grace") }
        let missing = try #require(throws: AppexError.self) { try host.delete(service: "svc", account: "grace") }
        #expect(missing.code == .itemNotFound)
        try host.set(Data("three".utf8), service: "svc", account: "ada")
        try host.set(Data("four".utf8), service: "svc", account: "grace")
        #expect(try host.items(matching: KeychainQuery(service: "svc")).map(\.string) == ["three", "four"])
    }

    @Test("the default access group is the first entitled; a search without a group covers only the entitled groups")
    func accessGroups() throws {
        let widget = try keychain("com.example.hostapp.widget", groups: [Self.widgetOnly, Self.shared])
        #expect(widget.defaultAccessGroup == Self.widgetOnly)
        try widget.add(Data("private".utf8), service: "svc", account: "a")
        try widget.add(Data("shared".utf8), service: "svc", account: "b", accessGroup: Self.shared)
        #expect(try widget.item(service: "svc", account: "a")?.accessGroup == Self.widgetOnly)
        let host = try keychain()  // entitled to the shared group only
        #expect(try host.items().map(\.account) == ["b"])
        #expect(try host.item(service: "svc", account: "a") == nil)
        #expect(try widget.items().map(\.accessGroup) == [Self.widgetOnly, Self.shared])
    }

    @Test(
        "a group the process is not entitled to is refused with missing-entitlement naming the group and keychain-access-groups; another team's with team-mismatch"
    )
    func refusals() throws {
        let host = try keychain()
        try host.add(Data("x".utf8), service: "svc", account: "a")
        let outsider = try keychain("com.example.other", groups: ["TEAMID.com.example.other"])
        for attempt in [
            { _ = try outsider.item(service: "svc", account: "a", accessGroup: Self.shared) },
            { try outsider.add(Data("y".utf8), service: "svc", account: "b", accessGroup: Self.shared) },
        ] {
            let error = try #require(throws: AppexError.self, performing: attempt)
            #expect(error.code == .missingEntitlement)
            #expect(error.message.contains(Self.shared) && error.message.contains("keychain-access-groups"))
        }
        let noGroups = try keychain("com.example.none", groups: [])
        #expect(throws: AppexError.self) { try noGroups.add(Data("y".utf8), service: "svc", account: "b") }
        let stranger = try keychain("com.example.intruder", team: TeamIdentifier(rawValue: "ZZZZZZZZZZ"))
        let mismatch = try #require(throws: AppexError.self) {
            try stranger.set(Data("y".utf8), service: "svc", account: "a")
        }
        #expect(mismatch.code == .teamMismatch)
        #expect(
            mismatch.message.contains("ZZZZZZZZZZ") && mismatch.message.contains(world.team.teamIdentifier.rawValue)
        )
        // Reading too: entitled by its own (forged) entitlements, but not of the group's team.
        let readMismatch = try #require(throws: AppexError.self) {
            try stranger.item(service: "svc", account: "a", accessGroup: Self.shared)
        }
        #expect(readMismatch.code == .teamMismatch)
        #expect(try stranger.items().isEmpty)
        #expect(try stranger.item(service: "svc", account: "a") == nil)
        #expect(try host.item(service: "svc", account: "a")?.string == "x")
    }

    @Test(
        "a keys directory inside APPEX_HOME is refused with key-unavailable (a copy of the state would carry the key)"
    )
    func keysInsideHome() throws {
        let inside = AppexEnvironment(
            home: world.environment.home + "/",
            keysDirectory: world.environment.home + "/keys"
        )
        let error = try #require(throws: AppexError.self) { try SharedKeychain(context: .owner, environment: inside) }
        #expect(error.code == .keyUnavailable && error.message.contains("APPEX_KEYS_DIR"))
        #expect(AppexEnvironment(home: world.environment.home + "/").keysDirectory == world.environment.home + "-keys")
    }

    @Test("names are bound unambiguously: a sealed value moved between (b\\0c, d) and (b, c\\0d) does not open")
    func unambiguousBinding() throws {
        let host = try keychain()
        try host.add(Data("first".utf8), service: "b\0c", account: "d")
        try host.add(Data("second".utf8), service: "b", account: "c\0d")
        let queue = try DatabaseQueue(path: host.path)
        try queue.write { db in
            try db.execute(
                sql: """
                    UPDATE item SET wrapped_key = (SELECT wrapped_key FROM item WHERE service = ?), data = (SELECT data FROM item WHERE service = ?)
                    WHERE service = ?
                    """,
                arguments: ["b\0c", "b\0c", "b"]
            )
        }
        try queue.close()
        #expect(throws: AppexError.self) { try host.item(service: "b", account: "c\0d") }
    }

    @Test("at rest: neither the secret nor the label is in the database files; the root key lives outside APPEX_HOME")
    func encryptedAtRest() throws {
        let host = try keychain()
        let secret = "correct-horse-battery-staple-\(UUID().uuidString)"
        try host.add(Data(secret.utf8), service: "svc", account: "ada", label: "label-\(secret)")
        for suffix in ["", "-wal"] {
            let bytes = FileManager.default.contents(atPath: host.path + suffix) ?? Data()
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "the secret is in \(host.path + suffix)")
        }
        let key = world.environment.keysDirectory + "/keychain.key"
        #expect(FileManager.default.fileExists(atPath: key))
        #expect(!key.hasPrefix(world.environment.home + "/"))
        let mode = (try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int) ?? 0
        #expect(mode == 0o600)
    }

    @Test(
        "a missing or replaced root key is refused with key-unavailable naming the key file; a sealed value moved to another row fails with corrupt-item"
    )
    func keyAndTampering() throws {
        let host = try keychain()
        try host.add(Data("alpha".utf8), service: "svc", account: "a")
        try host.add(Data("beta".utf8), service: "svc", account: "b")
        // Moved: b's sealed key and data copied onto a's row.
        let queue = try DatabaseQueue(path: host.path)
        try queue.write { db in
            try db.execute(
                sql: """
                    UPDATE item SET wrapped_key = (SELECT wrapped_key FROM item WHERE account = 'b'),
                                    data = (SELECT data FROM item WHERE account = 'b') WHERE account = 'a'
                    """
            )
        }
        try queue.close()
        let corrupt = try #require(throws: AppexError.self) { try host.item(service: "svc", account: "a") }
        #expect(corrupt.code == .corruptItem)
        #expect(try host.item(service: "svc", account: "b")?.string == "beta")

        let key = world.environment.keysDirectory + "/keychain.key"
        let original = try #require(FileManager.default.contents(atPath: key))
        try FileManager.default.removeItem(atPath: key)
        let missing = try #require(throws: AppexError.self) { try keychain() }
        #expect(missing.code == .keyUnavailable && missing.message.contains(key))
        #expect(
            !FileManager.default.fileExists(atPath: key),
            "a new key must not be made for a keychain that has items"
        )
        try Data(repeating: 7, count: 32).write(to: URL(fileURLWithPath: key))
        let replaced = try #require(throws: AppexError.self) { try keychain() }
        #expect(replaced.code == .keyUnavailable)
        try original.write(to: URL(fileURLWithPath: key))
        #expect(try keychain().item(service: "svc", account: "b")?.string == "beta")
    }
}

/// Several real processes on one keychain.
@Suite(.timed) struct KeychainProcessTests {
    static let group = "TEAMID.com.example.shared"

    @Test("4 processes adding and updating 50 items each at once: 200 items, each opening to its last secret")
    func concurrentWriters() async throws {
        let world = try AppexTestEnvironment()
        let results = try await withThrowingTaskGroup(of: ProcessOutput.self) { tasks in
            for writer in 0..<4 {
                tasks.addTask {
                    try await run(
                        storeExecutable,
                        ["keychain-add", Self.group, "w\(writer)", "50"],
                        environment: world.processVariables,
                        timeout: 120
                    )
                }
            }
            return try await tasks.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.standardError))")
        let items = try SharedKeychain(context: .owner, environment: world.environment).items(
            matching: KeychainQuery(accessGroup: Self.group)
        )
        #expect(items.count == 200)
        #expect(items.allSatisfy { $0.string == "\($0.account)-secret" && $0.label != nil })
    }

    @Test("a writer killed with SIGKILL at random moments never leaves a torn item or loses a committed secret")
    func writerKilled() async throws {
        let world = try AppexTestEnvironment()
        let seed = TestSeed()
        var generator = seed.generator
        var stored = 0
        var printedAny = false
        for round in 0..<8 {
            let lifetime = Double.random(in: 0.15...0.5, using: &generator)
            let output = try await run(
                storeExecutable,
                ["keychain-loop", Self.group, "ada"],
                environment: world.processVariables,
                timeout: lifetime
            )
            let printed = printedNumbers(output)
            printedAny = printedAny || !printed.isEmpty
            // Reopened after the kill: the item opens (whole), and holds the last secret the
            // writer reported, or the one it committed but was killed before reporting.
            let keychain = try SharedKeychain(context: .owner, environment: world.environment)
            let item = try keychain.item(service: "loop", account: "ada", accessGroup: Self.group)
            var now: Int?
            if let item {
                let secret = item.string ?? "?"
                now = secret.hasPrefix("secret-") ? Int(secret.dropFirst("secret-".count)) : nil
                if now == nil {
                    Issue.record("round \(round): the secret is \(secret.debugDescription), not secret-N; \(seed)")
                }
            }
            stored = expectCountedOn(from: stored, printed: printed, storedAfter: now, "round \(round); \(seed)")
        }
        #expect(printedAny, "the writer never committed a secret before being killed; \(seed)")
    }
}

/// `appex keychain`, like macOS `security`.
@Suite(.timed) struct KeychainCommandTests {
    static let group = "TEAMID.com.example.shared"

    @Test(
        "add from standard input and --password, find prints the secret alone, --attributes, delete; the library sees the items"
    )
    func addFindDelete() async throws {
        let world = try AppexTestEnvironment()
        #expect(
            try await appex(
                "keychain",
                "add",
                "--group",
                Self.group,
                "--service",
                "svc",
                "--account",
                "ada",
                "--label",
                "Ada",
                in: world,
                input: "from stdin\n"
            ).status == 0
        )
        #expect(
            try await appex(
                "keychain",
                "find",
                "--group",
                Self.group,
                "--service",
                "svc",
                "--account",
                "ada",
                in: world
            ).standardOutput == "from stdin\n"
        )
        let duplicate = try await appex(
            "keychain",
            "add",
            "--group",
            Self.group,
            "--service",
            "svc",
            "--account",
            "ada",
            "--password",
            "x",
            in: world
        )
        #expect(duplicate.status == 1 && duplicate.standardError.contains("duplicate-item"))
        #expect(
            try await appex(
                "keychain",
                "add",
                "--group",
                Self.group,
                "--service",
                "svc",
                "--account",
                "ada",
                "--password",
                "new",
                "--update",
                in: world
            ).status == 0
        )
        let attributes = try await appex(
            "keychain",
            "find",
            "--group",
            Self.group,
            "--service",
            "svc",
            "--account",
            "ada",
            "--attributes",
            in: world
        )
        #expect(attributes.standardOutput.contains("\"label\" : \"Ada\"") && !attributes.standardOutput.contains("new"))
        let library = try SharedKeychain(context: .owner, environment: world.environment)
        #expect(try library.item(service: "svc", account: "ada", accessGroup: Self.group)?.string == "new")
        #expect(
            try await appex(
                "keychain",
                "delete",
                "--group",
                Self.group,
                "--service",
                "svc",
                "--account",
                "ada",
                in: world
            ).status == 0
        )
        let gone = try await appex(
            "keychain",
            "find",
            "--group",
            Self.group,
            "--service",
            "svc",
            "--account",
            "ada",
            in: world
        )
        #expect(gone.status == 1 && gone.standardError.contains("item-not-found") && gone.standardOutput.isEmpty)
    }

    @Test("--as a bundle without the access group: exit 1, and the message names the group and keychain-access-groups")
    func refusedAsBundle() async throws {
        let world = try AppexTestEnvironment()
        let bundle = try FixtureBundles.makeExtension(
            in: world.root.appending("Bundles"),
            name: "Other",
            bundleIdentifier: "com.example.other",
            extensionPoint: "com.example.hostapp.HostAppFeature",
            entitlements: Entitlements(applicationGroups: [], keychainAccessGroups: ["TEAMID.com.example.other"]),
            signedBy: world.team
        )
        let refused = try await appex(
            "keychain",
            "find",
            "--group",
            Self.group,
            "--service",
            "svc",
            "--account",
            "ada",
            "--as",
            bundle,
            in: world
        )
        #expect(refused.status == 1)
        #expect(refused.standardError.contains(Self.group) && refused.standardError.contains("keychain-access-groups"))
        #expect(refused.standardOutput.isEmpty)
    }
}
