import AppexCore
import AppexHost
import AppexStore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

/// Inputs that once crashed Appex (`Fixtures/Hostile/`, a copy of `shared/fixtures/hostile/`):
/// each is refused by name, forever, wherever untrusted bytes enter — a bundle's Info.plist
/// read by `appex validate`, a folder on the search path read by discovery and the monitor, a
/// shared-defaults value read by another process.
@Suite(.timed) struct HostileInputTests {
    static let folder = fixturesFolder + "/Hostile"
    static let files: [String] = {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0 != "README.md" }.sorted()
    }()

    static func bytes(_ file: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file)))
    }

    /// What the reader must name as the problem with each file.
    static let expectedProblems = [
        "plist-set-segv.bplist": "object 0 (marker 0xCD at byte 8) is a set, which is not a property-list value",
        "xml-empty-processing-instruction.plist": "an unterminated processing instruction (line 1, column 1)",
    ]

    @Test("the fixture folder holds the inputs of shared/fixtures/hostile")
    func folderIsComplete() throws {
        #expect(Self.files.contains("plist-set-segv.bplist"))
        #expect(
            Set(Self.files) == Set(Self.expectedProblems.keys),
            "every hostile input needs the problem it must be refused with"
        )
        let shared = URL(fileURLWithPath: fixturesFolder).appendingPathComponent("../../../../shared/fixtures/hostile")
            .standardized.path
        for file in (try? FileManager.default.contentsOfDirectory(atPath: shared)) ?? [] where file != "README.md" {
            #expect(
                Self.files.contains(file),
                "\(file) from \(shared) is missing from Tests/AppexTests/Fixtures/Hostile"
            )
        }
    }

    @Test("each hostile input is refused by the reader with a named error", arguments: files)
    func refusedByTheReader(_ file: String) throws {
        let bytes = try Self.bytes(file)
        let error = try #require(throws: AppexError.self) { try PropertyListValue(propertyList: bytes) }
        #expect(error.code == .invalidPropertyList)
        #expect(error.message.contains(Self.expectedProblems[file] ?? "?"), "\(error.message)")
        let info = BundleInfo(data: bytes, file: "/x/Info.plist", role: .appExtension)
        #expect(info.problems.map(\.kind) == [.malformedPropertyList])
        let entitlements = Entitlements(data: bytes, file: "/x/Entitlements.plist")
        #expect(entitlements.problems.map(\.kind) == [.malformedPropertyList])
        #expect(entitlements.applicationGroups.isEmpty)
    }

    @Test("as a bundle's Info.plist: `appex validate` exits 1 and names the problem", arguments: files)
    func validate(_ file: String) async throws {
        let world = try AppexTestEnvironment()
        let bundle = world.root.appending("Bad.appex")
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        try FixtureBundles.write(Data(try Self.bytes(file)), to: bundle + "/Info.plist")
        let output = try await appex("validate", bundle, in: world)
        #expect(output.status == 1, "\(output.standardError)")
        #expect(
            output.standardOutput.contains(bundle + "/Info.plist: " + (Self.expectedProblems[file] ?? "?")),
            "\(output.standardOutput)"
        )
    }

    @Test(
        "on the search path: listed as invalid with its reason, every other extension still listed, the monitor starts",
        arguments: files
    )
    func discovery(_ file: String) async throws {
        let fixture = try HostFixture()
        try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        let bad = fixture.world.searchFolder + "/Bad.appex"
        try FileManager.default.createDirectory(atPath: bad, withIntermediateDirectories: true)
        try FixtureBundles.write(Data(try Self.bytes(file)), to: bad + "/Info.plist")
        try FixtureBundles.writeExecutable(at: bad + "/Extension")

        let output = try await run(
            appexExecutable,
            ["list", "--host", fixture.hostPath, "--all", "--json"],
            environment: fixture.world.processVariables
        )
        #expect(output.status == 0, "\(output.standardError)")
        let listed = try JSONDecoder().decode([ListedExtension].self, from: Data(output.standardOutput.utf8))
        #expect(Set(listed.compactMap(\.bundleIdentifier)) == ["com.example.translate", "com.example.summarize"])
        let invalid = try #require(listed.first { $0.path == bad })
        #expect(invalid.state == "invalid")
        #expect(invalid.problems.contains { $0.contains(Self.expectedProblems[file] ?? "?") }, "\(invalid.problems)")

        let point = AppExtensionPoint(host: HostFixture.hostIdentifier, name: "HostAppFeature")
        let monitor = try await AppExtensionPoint.Monitor(
            appExtensionPoint: point,
            hostBundleAt: fixture.hostPath,
            environment: fixture.world.environment
        )
        #expect(monitor.identities.map(\.bundleIdentifier) == ["com.example.translate"])
        #expect(monitor.state.invalidCount == 1)
        #expect(monitor.state.unapprovedCount == 1)
    }

    @Test(
        "as a shared-defaults value written by another process: that key fails by name, other keys and observers are unaffected",
        arguments: files
    )
    func storedDefaultsValue(_ file: String) async throws {
        let world = try AppexTestEnvironment()
        let groupName = "group.com.example.app"
        #expect(try await appex("defaults", "write", "--group", groupName, "greeting", "hello", in: world).status == 0)
        #expect(
            try await appex("defaults", "write", "--group", groupName, "--int", "count", "7", in: world).status == 0
        )

        let group = try AppGroup(groupName, context: .owner, environment: world.environment)
        let defaults = try SharedDefaults(group: group)
        #expect(defaults.string(forKey: "greeting") == "hello")  // the read cache is filled
        let observed = defaults.changes(forKey: "greeting")

        // Another process writes the hostile bytes as a value, as any process of the group can:
        // the raw file alone, and a well-formed {"v": ...} wrapper around a set.
        let hex = try Self.bytes(file).map { String(format: "%02X", $0) }.joined()
        let wrapped = bplist([[0xD1, 0x01, 0x02], [0x51, 0x76], [0xC1, 0x01]])
        let wrappedHex = wrapped.map { String(format: "%02X", $0) }.joined()
        let sql = """
            BEGIN IMMEDIATE;
            INSERT INTO change (key, value, origin) VALUES ('poisoned', X'\(hex)', 0);
            INSERT INTO entry (key, value, sequence) VALUES ('poisoned', X'\(hex)', last_insert_rowid());
            INSERT INTO change (key, value, origin) VALUES ('wrapped', X'\(wrappedHex)', 0);
            INSERT INTO entry (key, value, sequence) VALUES ('wrapped', X'\(wrappedHex)', last_insert_rowid());
            COMMIT;
            """
        let sqlite = try await run(
            "/usr/bin/env",
            ["sqlite3", "-bail", defaults.path],
            environment: world.processVariables,
            input: sql
        )
        #expect(sqlite.status == 0, "\(sqlite.standardError)")

        let expected = [
            "poisoned": Self.expectedProblems[file] ?? "?", "wrapped": "object 2 (marker 0xC1 at byte 13) is a set",
        ]
        for (key, problem) in expected {
            let read = try await appex("defaults", "read", "--group", groupName, key, in: world)
            #expect(read.status == 1)
            #expect(
                read.standardError.contains("corrupt-value: the value of \(key) in \(defaults.path) cannot be read"),
                "\(read.standardError)"
            )
            #expect(read.standardError.contains(problem), "\(read.standardError)")
            let error = try #require(throws: AppexError.self) { try defaults.value(forKey: key) }
            #expect(error.code == .corruptValue)
            #expect(defaults.object(forKey: key) == nil)
        }
        let greeting = try await appex("defaults", "read", "--group", groupName, "greeting", in: world)
        #expect(greeting.status == 0)
        #expect(greeting.standardOutput == "hello\n")
        let all = try await appex("defaults", "read", "--group", groupName, in: world)
        #expect(all.status == 1)
        #expect(
            all.standardOutput.contains("\"greeting\"") && all.standardOutput.contains("\"count\""),
            "\(all.standardOutput)"
        )
        #expect(all.standardError.contains("poisoned") && all.standardError.contains("wrapped"))
        #expect(try defaults.value(forKey: "count") == .integer(7))
        #expect(defaults.dictionaryRepresentation() == ["greeting": .string("hello"), "count": .integer(7)])

        // An observer of another key still sees the next change; the poisoned key can be replaced.
        #expect(try await appex("defaults", "write", "--group", groupName, "greeting", "again", in: world).status == 0)
        let changes = await collect(1, of: observed)
        #expect(changes.map(\.value) == [.string("again")])
        try defaults.set("mended", forKey: "poisoned")
        #expect(try defaults.value(forKey: "poisoned") == .string("mended"))
        #expect(
            try await appex("defaults", "read", "--group", groupName, "poisoned", in: world).standardOutput
                == "mended\n"
        )
    }
}
