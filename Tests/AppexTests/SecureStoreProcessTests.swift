import AppexCore
import AppexStore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

@testable import AppexSecureStore

/// The secure store used by real processes killed with SIGKILL at random moments, and what a
/// process leaves on disk.
@Suite(.timed) struct SecureStoreProcessTests {
    let world: AppexTestEnvironment
    init() throws { world = try AppexTestEnvironment() }

    static let fixture = URL(fileURLWithPath: appexExecutable).deletingLastPathComponent()
        .appendingPathComponent("AppexFixtureSecureStore").path

    /// The fixture's host, seen from the test: same bundle, team and cheap scrypt.
    func store() throws -> SecureStore {
        var configuration = SecureStore.Configuration(environment: world.environment)
        configuration.keyDerivation = PasscodeKeyDerivation(rounds: 1 << 10, blockSize: 8, parallelism: 1)
        configuration.policy.freeAttempts = 1000
        configuration.policy.retryLimit = 1000
        return try SecureStore(
            context: ProcessContext(
                bundleIdentifier: "com.example.hostapp",
                team: world.team.teamIdentifier,
                entitlements: Entitlements(applicationGroups: [], keychainAccessGroups: ["com.example.shared"])
            ),
            configuration: configuration
        )
    }

    func fixture(
        _ arguments: [String],
        killedAfter seconds: Double = 60,
        variables: [String: String] = [:]
    ) async throws -> ProcessOutput {
        try await run(
            Self.fixture,
            [world.team.teamIdentifier.rawValue] + arguments,
            environment: world.processVariables.merging(variables) { $1 },
            timeout: seconds
        )
    }

    @Test(
        "the wrong-attempt count survives kill -9 between and during attempts: every printed count is kept, none is lost"
    )
    func attemptCountSurvivesKills() async throws {
        let onboarded = try await fixture(["onboard", "right passcode 1"])
        #expect(onboarded.standardOutput == "onboarded\n", "\(onboarded.standardError)")
        var before = 0
        for round in 0..<4 {
            let lines = try await killedWhileWorking(
                Self.fixture,
                [world.team.teamIdentifier.rawValue, "wrong-loop", "wrong passcode"],
                environment: world.processVariables
            )
            let printed = lines.compactMap { Int($0) }
            #expect(!printed.isEmpty, "round \(round): no attempt was made")
            before = expectCountedOn(
                from: before,
                printed: printed,
                storedAfter: try store().failedAttempts,
                "round \(round)"
            )
        }
        try store().open(passcode: "right passcode 1")
        #expect(try store().failedAttempts == 0)
    }

    @Test(
        "a passcode change killed at any moment leaves the old or the new passcode opening every value, and the next open completes the new shares"
    )
    func changeSurvivesKills() async throws {
        let values = ["token=at-123", "contact=Ada Lovelace", "note=\u{1F511} key"]
        let onboarded = try await fixture(["onboard", "passcode A 1"] + values)
        #expect(onboarded.status == 0, "\(onboarded.standardError)")
        for round in 0..<5 {
            let lines = try await killedWhileWorking(
                Self.fixture,
                [world.team.teamIdentifier.rawValue, "change-loop", "passcode A 1", "passcode B 2"],
                environment: world.processVariables
            )
            #expect(!lines.isEmpty, "round \(round): no change completed")
            let store = try store()
            // Exactly one of the two opens.
            var opened: [String] = []
            for passcode in ["passcode A 1", "passcode B 2"] {
                do {
                    try store.open(passcode: passcode)
                    opened.append(passcode)
                    store.lock()
                } catch {
                    #expect(error.code == .wrongPasscode, "round \(round): \(error)")
                }
            }
            #expect(opened.count == 1, "round \(round): \(opened) open the store")
            guard let passcode = opened.first else { return }
            try store.open(passcode: passcode)
            #expect(try store.get("token", as: String.self) == "at-123", "round \(round)")
            #expect(try store.get("contact", as: String.self) == "Ada Lovelace", "round \(round)")
            #expect(try store.get("note", as: String.self) == "\u{1F511} key", "round \(round)")
            #expect(try store.keys() == ["contact", "note", "token"], "round \(round)")
            // The open completed any renewal cut short: the share extensions read now opens it.
            let record = try store.onboardedRecord()
            #expect(record.pendingGeneration == nil, "round \(round)")
            store.lock()
            let share = try AuxiliarySecurityManager(
                hostBundleIdentifier: "com.example.hostapp",
                context: ProcessContext(
                    bundleIdentifier: "com.example.hostapp.widget",
                    team: world.team.teamIdentifier,
                    entitlements: Entitlements(applicationGroups: [], keychainAccessGroups: ["com.example.shared"]),
                    kind: .appExtension
                ),
                environment: world.environment
            ).getESPAKAuxiliary()
            try store.open(eSPAKAuxiliary: share)
            store.lock()
            // The loop starts from whichever opens.
            if passcode == "passcode B 2" {
                try store.changePasscode(from: "passcode B 2", to: "passcode A 1")
                store.lock()
            }
        }
    }

    @Test(
        "an extension process is refused by name: opening the store (host-only), reading the host's primary share (missing-entitlement), host-only work (host-only); its share it may read"
    )
    func extensionProcessRefused() async throws {
        let onboarded = try await fixture(["onboard", "right passcode 1", "secret=s3cret"])
        #expect(onboarded.status == 0, "\(onboarded.standardError)")
        let output = try await fixture(["as-extension"])
        #expect(output.status == 0, "\(output.standardError)")
        let lines = output.standardOutput.split(separator: "\n").map(String.init)
        #expect(
            lines == ["store: host-only", "primary: missing-entitlement", "scheduler: host-only", "share: allowed"],
            "\(lines)"
        )
    }

    @Test(
        "no plaintext: a stored token, password and contact, and the passcode, appear in no file under APPEX_HOME, the keys folder or TMPDIR, raw, base64 or hex"
    )
    func noPlaintext() async throws {
        let secrets = [
            "token": "at-9f8e7d6c5b4a39281706f5e4d3c2b1a0", "password": "Tr0ub4dor&3-horse",
            "contact": "Ada Lovelace +44 20 7946 0958",
        ]
        let passcode = "passcode 4242 xyzzy"
        let temporary = world.root.appending("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let output = try await fixture(
            ["onboard", passcode] + secrets.map { "\($0.key)=\($0.value)" },
            variables: ["TMPDIR": temporary, "APPEX_FIXTURE_STANDARD_KDF": "1"]
        )
        #expect(output.status == 0, "\(output.standardError)")
        // The test's own process reads them back (the files are real and in use).
        let store = try store()
        try store.open(passcode: passcode)
        for (key, value) in secrets { #expect(try store.get(key, as: String.self) == value) }
        var forms: [(String, [UInt8])] = []
        for secret in Array(secrets.values) + [passcode] {
            let bytes = Array(secret.utf8)
            forms.append(("raw \(secret)", bytes))
            forms.append(("base64 \(secret)", Array(Data(bytes).base64EncodedString().utf8)))
            forms.append(("hex \(secret)", Array(bytes.map { String(format: "%02x", $0) }.joined().utf8)))
            forms.append(("HEX \(secret)", Array(bytes.map { String(format: "%02X", $0) }.joined().utf8)))
        }
        var scanned = 0
        for folder in [world.environment.home, world.environment.keysDirectory, temporary] {
            guard let walker = FileManager.default.enumerator(atPath: folder) else { continue }
            for case let relative as String in walker {
                let file = folder + "/" + relative
                guard let contents = FileManager.default.contents(atPath: file) else { continue }
                scanned += 1
                let bytes = Array(contents)
                for (what, needle) in forms {
                    #expect(!contains(bytes, needle), "\(file) holds the \(what)")
                }
            }
        }
        #expect(scanned >= 4, "only \(scanned) files were scanned")
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        let first = needle[0]
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == first && Array(haystack[index..<(index + needle.count)]) == needle { return true }
            index += 1
        }
        return false
    }
}
