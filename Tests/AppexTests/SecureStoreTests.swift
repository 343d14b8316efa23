import AppexCore
import AppexStore
import AppexTestTiers
import AppexTesting
import Crypto
import Foundation
import GRDB
import Testing

@testable import AppexSecureStore

/// The host's passcode-protected store: sealed values, the passcode's durable attempt count and
/// waits, the erase at the retry limit, the passcode change, and the paired access key's shares.
@Suite(.timed) struct SecureStoreTests {
    let world: AppexTestEnvironment
    init() throws { world = try AppexTestEnvironment() }

    static let host = "com.example.hostapp"
    static let shared = "com.example.shared"
    static let passcode = "correct horse 7"

    func context(_ id: String = Self.host, kind: AppexBundle.Kind = .hostApp) -> ProcessContext {
        ProcessContext(
            bundleIdentifier: id,
            team: world.team.teamIdentifier,
            entitlements: Entitlements(applicationGroups: [], keychainAccessGroups: [Self.shared]),
            kind: kind
        )
    }

    /// A store with the tests' cheap scrypt (N = 2^10) and the given policy.
    func store(policy: PasscodePolicy = PasscodePolicy(), name: String = "SecureStore") throws -> SecureStore {
        var configuration = SecureStore.Configuration(environment: world.environment)
        configuration.name = name
        configuration.policy = policy
        configuration.keyDerivation = PasscodeKeyDerivation(rounds: 1 << 10, blockSize: 8, parallelism: 1)
        return try SecureStore(context: context(), configuration: configuration)
    }

    /// The widget's view of the host's shares.
    func widgetSecurity(store: String = "SecureStore") throws -> AuxiliarySecurityManager {
        try AuxiliarySecurityManager(
            hostBundleIdentifier: Self.host,
            storeName: store,
            context: context(Self.host + ".widget", kind: .appExtension),
            environment: world.environment
        )
    }

    struct Tokens: Codable, Equatable {
        var access: String
        var refresh: String
    }

    @Test("onboard, put, get, list, remove; locked after lock(); the passcode opens it again; states in order")
    func lifecycle() throws {
        let store = try store()
        #expect(try store.state == .uninitialized)
        try store.onboard(passcode: Self.passcode)
        #expect(try store.state == .unlocked)
        let tokens = Tokens(access: "at-1", refresh: "rt-1")
        try store.put(tokens, forKey: "oauth.tokens")
        try store.put("ada@example.com", forKey: "user")
        #expect(try store.get("oauth.tokens") == tokens)
        #expect(try store.keys() == ["oauth.tokens", "user"])
        try store.remove("user")
        #expect(try store.get("user", as: String.self) == nil)
        store.lock()
        #expect(try store.state == .locked)
        let locked = try #require(throws: AppexError.self) { try store.get("oauth.tokens", as: Tokens.self) }
        #expect(locked.code == .storeLocked)
        // Another process's view: a second instance over the same file.
        let again = try self.store()
        try again.open(passcode: Self.passcode)
        #expect(try again.get("oauth.tokens") == tokens)
        let twice = try #require(throws: AppexError.self) { try again.onboard(passcode: Self.passcode) }
        #expect(twice.code == .refused)
        // A value read (and kept in memory) and then changed through another instance is read anew.
        try store.open(passcode: Self.passcode)
        #expect(try store.get("oauth.tokens") == tokens)
        try again.put(Tokens(access: "at-2", refresh: "rt-2"), forKey: "oauth.tokens")
        #expect(try store.get("oauth.tokens") == Tokens(access: "at-2", refresh: "rt-2"))
        let mismatch = try #require(throws: AppexError.self) { try store.get("oauth.tokens", as: String.self) }
        #expect(mismatch.code == .corruptValue && mismatch.message.contains("is not a String"))
    }

    @Test("validate names every broken rule; onboarding with such a passcode is refused and makes nothing")
    func policy() throws {
        var policy = PasscodePolicy()
        policy.minLength = 6
        policy.isDigitsOnly = true
        policy.minUniqueCharacters = 4
        #expect(policy.validate("1a1").map(\.rule) == [.minLength, .isDigitsOnly, .minUniqueCharacters])
        #expect(policy.validate("902417").isEmpty)
        var strong = PasscodePolicy()
        strong.hasDigit = true
        strong.hasLower = true
        strong.hasUpper = true
        strong.hasSpecial = true
        #expect(strong.validate("abcdefgh").map(\.rule) == [.hasDigit, .hasUpper, .hasSpecial])
        #expect(strong.validate("Abcdef1!").isEmpty)
        let store = try store(policy: policy)
        let error = try #require(throws: AppexError.self) { try store.onboard(passcode: "1a1") }
        #expect(error.code == .passcodePolicy)
        #expect(error.message.contains("at least 6 characters") && error.message.contains("digits only"))
        #expect(try store.state == .uninitialized)
    }

    @Test(
        "wrong passcodes are counted; past the free attempts each waits (a too-early attempt is not counted); a right one resets the count"
    )
    func attemptsAndDelays() throws {
        var policy = PasscodePolicy()
        policy.freeAttempts = 2
        policy.firstDelay = .milliseconds(300)
        let store = try store(policy: policy)
        try store.onboard(passcode: Self.passcode)
        store.lock()
        for expected in 1...2 {
            let error = try #require(throws: AppexError.self) { try store.open(passcode: "wrong passcode") }
            #expect(error.code == .wrongPasscode)
            #expect(try store.failedAttempts == expected)
        }
        let third = try #require(throws: AppexError.self) { try store.open(passcode: "wrong passcode") }
        #expect(
            third.code == .wrongPasscode && third.message.contains("7 attempts left")
                && third.message.contains("next may come")
        )
        let early = try #require(throws: AppexError.self) { try store.open(passcode: Self.passcode) }
        #expect(early.code == .passcodeDelay)
        #expect(try store.failedAttempts == 3)
        try world.clock.advance(by: .milliseconds(350))  // the delay runs out on the store's clock
        try store.open(passcode: Self.passcode)
        #expect(try store.failedAttempts == 0)
        #expect(policy.delay(afterFailures: 2) == .zero)
        #expect(policy.delay(afterFailures: 3) == .milliseconds(300))
        #expect(policy.delay(afterFailures: 5) == .milliseconds(1200))
    }

    @Test(
        "the failure that reaches the retry limit erases the store, its shares and keys: passcode-retry-limit, then not-onboarded"
    )
    func retryLimit() throws {
        var policy = PasscodePolicy()
        policy.retryLimit = 4
        policy.freeAttempts = 10
        let store = try store(policy: policy)
        try store.onboard(passcode: Self.passcode)
        try store.put("secret", forKey: "k")
        store.lock()
        for _ in 1...3 {
            #expect(throws: AppexError.self) { try store.open(passcode: "wrong passcode") }
        }
        #expect(try store.state == .locked)
        let last = try #require(throws: AppexError.self) { try store.open(passcode: "wrong passcode") }
        #expect(last.code == .passcodeRetryLimit)
        #expect(try store.state == .uninitialized)
        let after = try #require(throws: AppexError.self) { try store.open(passcode: Self.passcode) }
        #expect(after.code == .notOnboarded)
        let share = try #require(throws: AppexError.self) { try widgetSecurity().getESPAKAuxiliary() }
        #expect(share.code == .notOnboarded)
        let keychain = try SharedKeychain(context: .owner, environment: world.environment)
        #expect(try keychain.items(matching: KeychainQuery(accessGroup: "private:" + Self.host)).isEmpty)
        try store.onboard(passcode: Self.passcode)
        #expect(try store.get("k", as: String.self) == nil)
    }

    @Test(
        "changing the passcode: the old one is refused, the new one opens every value; the old share is stale, the new one opens"
    )
    func changePasscode() throws {
        let store = try store()
        try store.onboard(passcode: Self.passcode)
        try store.put(Tokens(access: "a", refresh: "r"), forKey: "tokens")
        let oldShare = try widgetSecurity().getESPAKAuxiliary()
        try store.changePasscode(from: Self.passcode, to: "battery staple 9")
        store.lock()
        let old = try #require(throws: AppexError.self) { try store.open(passcode: Self.passcode) }
        #expect(old.code == .wrongPasscode)
        try store.open(passcode: "battery staple 9")
        #expect(try store.get("tokens") == Tokens(access: "a", refresh: "r"))
        store.lock()
        let stale = try #require(throws: AppexError.self) { try store.open(eSPAKAuxiliary: oldShare) }
        #expect(stale.code == .stalePairedKey)
        let newShare = try widgetSecurity().getESPAKAuxiliary()
        #expect(newShare != oldShare)
        try store.open(eSPAKAuxiliary: newShare)
        #expect(try store.get("tokens") == Tokens(access: "a", refresh: "r"))
        let weak = try #require(throws: AppexError.self) {
            try store.changePasscode(from: "battery staple 9", to: "short")
        }
        #expect(weak.code == .passcodePolicy)
        #expect(try store.failedAttempts == 0)
    }

    @Test(
        "either share alone, shares swapped between stores, an edited share and garbage open nothing: wrong-paired-key"
    )
    func sharesAlone() throws {
        let store = try store()
        try store.onboard(passcode: Self.passcode)
        let other = try self.store(name: "Other")
        try other.onboard(passcode: Self.passcode)
        store.lock()
        let keychain = try SharedKeychain(context: context(), environment: world.environment)
        let primary = try #require(
            try keychain.item(
                service: store.keychainService,
                account: "spak.primary.1",
                accessGroup: "private:" + Self.host
            )
        ).data
        let share = try widgetSecurity().getESPAKAuxiliary()
        let parsed = try #require(ESPAKAuxiliary(bytes: share))
        let record = try store.onboardedRecord()
        let auxiliary = try #require(
            parsed.auxiliaryShare(primary: Array(primary), storeIdentifier: store.storeIdentifier(record))
        )
        for alone in [Array(primary), auxiliary] {
            let error = try #require(throws: AppexError.self) {
                try store.open(pairedKey: SymmetricKey(data: alone), generation: 1)
            }
            #expect(error.code == .wrongPairedKey)
        }
        // Both together open it: the shares are right, only alone they fail.
        try store.open(pairedKey: PairedAccessKey.combine(primary: Array(primary), auxiliary: auxiliary), generation: 1)
        store.lock()
        let otherShare = try widgetSecurity(store: "Other").getESPAKAuxiliary()
        var edited = share
        edited[edited.count - 1] ^= 1
        var bumped = share
        bumped[12] = 2  // generation 2, which this store never had
        for (bytes, what) in [
            (otherShare, "another store's share"), (edited, "an edited share"), (bumped, "another generation"),
            (Data("garbage".utf8), "garbage"),
        ] {
            let error = try #require(throws: AppexError.self, "\(what)") { try store.open(eSPAKAuxiliary: bytes) }
            #expect(error.code == .wrongPairedKey, "\(what)")
        }
        #expect(try store.state == .locked)
    }

    @Test(
        "an extension may not open the store (host-only) nor read the host's primary share (missing-entitlement); the owner must act as the host"
    )
    func extensionRefused() throws {
        let store = try store()
        try store.onboard(passcode: Self.passcode)
        let widget = context(Self.host + ".widget", kind: .appExtension)
        let error = try #require(throws: AppexError.self) {
            try SecureStore(context: widget, configuration: SecureStore.Configuration(environment: world.environment))
        }
        #expect(error.code == .hostOnly)
        let owner = try #require(throws: AppexError.self) {
            try SecureStore(context: .owner, configuration: SecureStore.Configuration(environment: world.environment))
        }
        #expect(owner.code == .hostOnly)
        let keychain = try SharedKeychain(context: widget, environment: world.environment)
        let denied = try #require(throws: AppexError.self) {
            try keychain.item(
                service: store.keychainService,
                account: "spak.primary.1",
                accessGroup: "private:" + Self.host
            )
        }
        #expect(denied.code == .missingEntitlement && denied.message.contains("private group of \(Self.host)"))
        // It can read its share, which opens nothing by itself.
        #expect(try widgetSecurity().getESPAKAuxiliary().count == 73)
        #expect(try widgetSecurity().getAuxiliaryDataEncryptionKey().count == 32)
    }

    @Test(
        "no passcode: the device key opens the store, a passcode does not; setting a passcode later switches the store to it"
    )
    func devicePasscodeMode() throws {
        let store = try store()
        try store.onboard(passcode: nil)
        try store.put("v", forKey: "k")
        store.lock()
        let refused = try #require(throws: AppexError.self) { try store.open(passcode: Self.passcode) }
        #expect(refused.code == .refused)
        try store.openWithDeviceKey()
        #expect(try store.get("k", as: String.self) == "v")
        try store.changePasscode(from: nil, to: Self.passcode)
        store.lock()
        #expect(throws: AppexError.self) { try store.openWithDeviceKey() }
        try store.open(passcode: Self.passcode)
        #expect(try store.get("k", as: String.self) == "v")
        try store.changePasscode(from: Self.passcode, to: nil)
        store.lock()
        try store.openWithDeviceKey()
        #expect(try store.get("k", as: String.self) == "v")
    }

    @Test("a store erased and set up again by another process is no longer served by an instance that had it open")
    func replacedUnderneath() throws {
        let store = try store()
        try store.onboard(passcode: Self.passcode)
        try store.put("old secret", forKey: "k")
        #expect(try store.get("k", as: String.self) == "old secret")
        let other = try self.store()
        try other.erase()
        try other.onboard(passcode: "another passcode 2")
        let read = try #require(throws: AppexError.self) { try store.get("k", as: String.self) }
        #expect(read.code == .storeLocked && read.message.contains("set up again by another process"))
        let write = try #require(throws: AppexError.self) { try store.put("new secret", forKey: "k") }
        #expect(write.code == .storeLocked, "locked here too once the change is seen")
        // A write is refused the same way, and writes nothing under a key no wrap holds.
        let second = try self.store()
        try second.open(passcode: "another passcode 2")
        try other.erase()
        try other.onboard(passcode: "a third passcode 3")
        let erasedWhileOpen = try #require(throws: AppexError.self) { try second.put("z", forKey: "k") }
        #expect(
            erasedWhileOpen.code == .storeLocked && erasedWhileOpen.message.contains("set up again by another process")
        )
        #expect(try store.state == .locked)
        #expect(try other.keys().isEmpty)
    }

    @Test(
        "a store whose count reached the limit (its process killed before the erase) opens no other way: it is erased then"
    )
    func limitReachedBeforeErase() throws {
        var policy = PasscodePolicy()
        policy.retryLimit = 3
        let store = try store(policy: policy)
        try store.onboard(passcode: Self.passcode)
        store.lock()
        let share = try widgetSecurity().getESPAKAuxiliary()
        let database = try DatabaseQueue(path: store.path)
        try database.write { db in try db.execute(sql: "UPDATE store SET failed_attempts = 3") }
        let error = try #require(throws: AppexError.self) { try store.open(eSPAKAuxiliary: share) }
        #expect(error.code == .passcodeRetryLimit)
        #expect(try store.state == .uninitialized)
        var bad = PasscodePolicy()
        bad.retryLimit = 0
        let refused = try #require(throws: AppexError.self) { try self.store(policy: bad) }
        #expect(refused.code == .configuration)
    }

    @Test("withAccess opens the store for one call: a locked store stays locked, an open one stays open")
    func scopedAccess() async throws {
        let store = try store()
        try store.onboard(passcode: Self.passcode)
        try store.put("v", forKey: "k")
        store.lock()
        let share = try widgetSecurity().getESPAKAuxiliary()
        let read = try await store.withAccess(eSPAKAuxiliary: share) { access throws(AppexError) in
            try access.put("w", forKey: "k2")
            return try access.get("k", as: String.self)
        }
        #expect(read == "v")
        #expect(try store.state == .locked)
        try store.open(passcode: Self.passcode)
        _ = try await store.withAccess(eSPAKAuxiliary: share) { access throws(AppexError) in
            try access.get("k2", as: String.self)
        }
        #expect(try store.state == .unlocked)
        #expect(try store.get("k2", as: String.self) == "w")
    }

    @Test("an open store left unused past its lock timeout locks itself")
    func autoLock() async throws {
        var policy = PasscodePolicy()
        policy.lockTimeout = .milliseconds(100)
        let store = try store(policy: policy)
        try store.onboard(passcode: Self.passcode)
        try store.put("v", forKey: "k")
        // The idle timer forgets the key by itself (polled: a loaded machine may run it late).
        let deadline = ContinuousClock.now + .seconds(10)
        while store.opened.withLock({ $0 != nil }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(store.opened.withLock { $0 == nil })
        #expect(try store.state == .locked)
        let error = try #require(throws: AppexError.self) { try store.get("k", as: String.self) }
        #expect(error.code == .storeLocked)
    }
}
