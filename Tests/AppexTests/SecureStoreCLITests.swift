import AppexCore
import AppexStore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

@testable import AppexSecureStore

/// `appex securestore` and `appex aux`, run as the owner runs them.
@Suite(.timed) struct SecureStoreCLITests {
    let world: AppexTestEnvironment
    let app: String
    init() throws {
        world = try AppexTestEnvironment()
        var recipe = AppexBundle.AppRecipe(executable: hostExecutable, bundleIdentifier: "com.example.hostapp")
        recipe.entitlements = Entitlements(
            applicationGroups: ["group.com.example.shared"],
            keychainAccessGroups: ["com.example.shared"]
        )
        recipe.signingKey = world.team
        app = try AppexBundle.makeApp(at: world.root.appending("HostApp.app"), from: recipe).path
    }

    @Test(
        "securestore status before and after onboarding; change-passcode from standard input renews the paired key; a wrong passcode fails by name"
    )
    func securestore() async throws {
        let before = try await appex("securestore", "status", "--host", app, in: world)
        #expect(before.status == 0 && before.standardOutput.contains("state: uninitialized"), "\(before.standardError)")
        let store = try SecureStore(
            context: ProcessContext(bundleAt: app),
            configuration: SecureStore.Configuration(environment: world.environment)
        )
        try store.onboard(passcode: "first passcode 1")
        let onboarded = try await appex("securestore", "status", "--host", app, in: world)
        #expect(onboarded.standardOutput.contains("state: locked"))
        #expect(onboarded.standardOutput.contains("opens with: the passcode"))
        #expect(onboarded.standardOutput.contains("paired key: generation 1"))
        let changed = try await appex(
            "securestore",
            "change-passcode",
            "--host",
            app,
            in: world,
            input: "first passcode 1\nsecond passcode 2\n"
        )
        #expect(changed.status == 0 && changed.standardOutput.contains("passcode changed"), "\(changed.standardError)")
        let after = try await appex("securestore", "status", "--host", app, in: world)
        #expect(after.standardOutput.contains("paired key: generation 2"))
        let wrong = try await appex(
            "securestore",
            "change-passcode",
            "--host",
            app,
            in: world,
            input: "first passcode 1\nthird passcode 3\n"
        )
        #expect(wrong.status == 1 && wrong.standardError.contains("wrong-passcode"))
        #expect(
            try await appex("securestore", "status", "--host", app, in: world).standardOutput.contains(
                "wrong attempts in a row: 1"
            )
        )
        store.lock()
        try store.open(passcode: "second passcode 2")
    }

    @Test(
        "aux list shows each request's state and nothing of its content; aux purge --answered, then purge, empty the queue"
    )
    func aux() async throws {
        let host = try ProcessContext(bundleAt: app)
        let store = try SecureStore(
            context: host,
            configuration: SecureStore.Configuration(environment: world.environment)
        )
        try store.onboard(passcode: "first passcode 1")
        let security = try AuxiliarySecurityManager(
            hostBundleIdentifier: "com.example.hostapp",
            context: host,
            environment: world.environment
        )
        let requests = AuxiliaryDataRequestManager(
            dataStore: try AuxiliaryDataStore(
                group: AppGroup("group.com.example.shared", context: host, environment: world.environment),
                encryptionKey: security.getAuxiliaryDataEncryptionKey()
            )
        )
        _ = try requests.putDataRequest(
            AuxiliaryDataRequest(info: "secret-info-1", eSPAKAux: security.getESPAKAuxiliary(), kind: "contacts")
        )
        _ = try requests.putDataRequest(
            AuxiliaryDataRequest(info: "secret-info-2", eSPAKAux: security.getESPAKAuxiliary(), kind: "contacts")
        )
        let claim = try #require(try requests.claimDataRequest())
        try requests.completeDataRequest(claim, response: Data("secret-answer".utf8))
        let listed = try await appex("aux", "list", "--group", "group.com.example.shared", in: world)
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.standardOutput.contains("answered") && listed.standardOutput.contains("pending"))
        #expect(!listed.standardOutput.contains("secret-"))
        let answered = try await appex("aux", "purge", "--group", "group.com.example.shared", "--answered", in: world)
        #expect(answered.standardOutput.contains("purged 1 data request"))
        let all = try await appex("aux", "purge", "--group", "group.com.example.shared", in: world)
        #expect(all.standardOutput.contains("purged 1 data request"))
        #expect(
            try await appex("aux", "list", "--group", "group.com.example.shared", in: world).standardOutput.contains(
                "no data requests"
            )
        )
    }
}
