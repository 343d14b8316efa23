public import AppexCore
import AppexSQLite
public import AppexStore
import AppexVocabulary
import Crypto
public import Foundation
import GRDB
import Synchronization

/// A host app's encrypted key-value store of `Codable` values, protected by the app passcode
/// and by a paired access key whose auxiliary share its extensions hold (seed 002, SAP's
/// `SecureKeyValueStore` with `SecurityManager`).
///
/// ```swift
/// let store = try SecureStore(context: try ProcessContext(bundleAt: appPath))
/// try store.onboard(passcode: "correct horse 7")      // once: makes the store and its keys
/// try store.put(tokens, forKey: "oauth.tokens")
/// store.lock()
/// try store.open(passcode: "correct horse 7")
/// let saved: TokenSet? = try store.get("oauth.tokens")
/// ```
///
/// Every value is sealed with AES-256-GCM under a random data key; items are found by an HMAC
/// of their key, and the keys themselves are sealed, so the file holds nothing readable. The
/// data key is stored only wrapped: under a key derived from the passcode (scrypt,
/// ``PasscodeKeyDerivation``) — or, in the weaker "no passcode" mode, under a device key in the
/// host's private keychain group — and under the current paired access key, whose primary
/// share stays in the host's private keychain group and whose auxiliary share is published,
/// sealed, to the group the host shares with its extensions (``/AppexStore/AuxiliarySecurityManager``).
///
/// Wrong passcodes are counted in the file before the passcode is even tried, so killing the
/// process between attempts resets nothing; past ``PasscodePolicy/freeAttempts`` each attempt
/// waits longer (`passcode-delay`), and the failure that reaches
/// ``PasscodePolicy/retryLimit`` destroys the data key (`passcode-retry-limit`). Changing the
/// passcode re-wraps the data key in one transaction and issues a new paired access key: old
/// auxiliary shares are refused (`stale-paired-key`). Only a host app may open its store
/// (`host-only`).
public final class SecureStore: Sendable {
    /// Where the store is.
    public enum State: String, Sendable, CustomStringConvertible {
        /// Never set up, or erased at the retry limit: ``onboard(passcode:)`` makes it.
        case uninitialized
        /// Set up, and its data key not in this process's memory.
        case locked
        /// Open in this process: values can be read and written.
        case unlocked

        /// The state's name.
        public var description: String { rawValue }
    }

    /// Which store, under which rules.
    public struct Configuration: Sendable {
        /// The store's name: its file (`<name>.sqlite`) and its keychain items.
        public var name = "SecureStore"
        /// The passcode rules, the retry limit and the idle timeout.
        public var policy = PasscodePolicy()
        /// How a passcode becomes a key (for a new passcode; a stored one keeps its own).
        public var keyDerivation = PasscodeKeyDerivation.standard
        /// The keychain group the host shares with its extensions, where the auxiliary share
        /// and the auxiliary data encryption key are published; `nil`: the host's default group.
        public var sharedAccessGroup: String?
        /// Where Appex's state lives.
        public var environment: AppexEnvironment

        /// The default store of the environment.
        public init(environment: AppexEnvironment = .current()) {
            self.environment = environment
        }
    }

    /// The host app the store belongs to.
    public let context: ProcessContext
    /// The store's name, rules and environment.
    public let configuration: Configuration
    /// The store's file, in the host's container: `$APPEX_HOME/Containers/<bundle id>/Library/SecureStore/<name>.sqlite`.
    public let path: String

    let hostBundleIdentifier: String
    let database: DatabaseQueue
    let keychain: SharedKeychain
    let privateGroup: String
    let opened = Mutex<Opened?>(nil)
    let walIndex: WALIndex?
    let cache = Mutex(ValueCache())
    /// Whether the idle timer's task runs (changed only while `opened` is locked).
    let autoLockRunning = Mutex(false)

    /// The data key while the store is open, and when it was last used.
    struct Opened: Sendable {
        var dataKey: DataKey
        var storeID: Data
        var lastUse: ContinuousClock.Instant
        var epoch: UInt64
    }

    /// Values read, valid under one WAL-index header: by key and type, the decoded value (or
    /// `nil` for none). Values of class types are not kept (a caller could change the instance).
    struct ValueCache {
        var header: WALIndex.Header?
        var values: [CacheKey: CachedValue] = [:]
    }

    struct CacheKey: Hashable {
        var key: String
        var type: ObjectIdentifier
    }

    /// A decoded value (immutable once made, of a value type), or nothing stored.
    class CachedValue: @unchecked Sendable {}

    /// A decoded `Value` (a class cast finds it: cheaper than unwrapping an `Any`).
    final class Cached<Value>: CachedValue, @unchecked Sendable {
        let value: Value?
        init(_ value: Value?) { self.value = value }
    }

    /// The secure store of the host app `context` (made by ``onboard(passcode:)`` if it does
    /// not exist yet). Opening it needs ``open(passcode:)`` (or another `open`).
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `hostOnly` when `context` is an extension or the owner (a
    ///   store belongs to one host app; the `appex` tool acts as the host's bundle); `storage`
    ///   when its file cannot be made or read; what opening the keychain throws.
    public init(context: ProcessContext, configuration: Configuration = Configuration()) throws(AppexError) {
        guard !context.isOwner, context.kind == .hostApp, let host = context.bundleIdentifier else {
            throw AppexError(
                .hostOnly,
                "only a host app opens its secure store; \(context.name) is \(context.isOwner ? "the owner (act as the host's bundle)" : "an app extension (it sends data requests instead)")",
                context: context.errorContext()
            )
        }
        guard !configuration.name.isEmpty, !configuration.name.contains("/"), configuration.name.utf8.count <= 100
        else {
            throw AppexError(
                .invalidName,
                "\"\(configuration.name)\" cannot name a secure store",
                context: context.errorContext()
            )
        }
        let policy = configuration.policy
        guard policy.retryLimit >= 1, policy.freeAttempts >= 0, policy.lockTimeout > .zero else {
            throw AppexError(
                .configuration,
                "a passcode policy needs a retry limit of 1 or more (it has \(policy.retryLimit)), free attempts of 0 or more (\(policy.freeAttempts)) and a lock timeout above zero (\(policy.lockTimeout))",
                context: context.errorContext()
            )
        }
        self.context = context
        self.configuration = configuration
        hostBundleIdentifier = host
        let environment = configuration.environment
        let directory = environment.home + "/Containers/\(host)/Library/SecureStore"
        path = directory + "/\(configuration.name).sqlite"
        database = try SharedDatabase.openPrivate(
            path: path,
            naming: "the secure store",
            context: context.errorContext(path: path),
            label: "appex.securestore",
            version: SecureStoreFile.version,
            secureDelete: true,
            schema: SecureStoreFile.schema
        )
        keychain = try SharedKeychain(context: context, environment: environment)
        guard let privateGroup = keychain.privateAccessGroup else {
            throw AppexError(
                .hostOnly,
                "\(context.name) has no private keychain group",
                context: context.errorContext()
            )
        }
        self.privateGroup = privateGroup
        walIndex = WALIndex(database: database)
    }

    /// Where the store is: ``State/uninitialized``, ``State/locked`` or ``State/unlocked``.
    /// An open store idle past ``PasscodePolicy/lockTimeout`` is locked when asked.
    public var state: State {
        get throws(AppexError) {
            try state(of: read("read the store's state") { db in try SecureStoreRecord.fetch(db, path: path) })
        }
    }

    /// The state of the store whose row is `record` (`nil`: none).
    private func state(of record: SecureStoreRecord?) -> State {
        guard let record else { return .uninitialized }
        let isOpen = opened.withLock { opened -> Bool in
            guard let current = opened, current.storeID == record.storeID else { return false }
            if ContinuousClock.now - current.lastUse > configuration.policy.lockTimeout {
                opened = nil
                cache.withLock { $0 = ValueCache() }
                return false
            }
            return true
        }
        return isOpen ? .unlocked : .locked
    }

    /// What `appex securestore status` shows: where the store is, and nothing secret.
    public struct Status: Sendable, Hashable {
        /// Uninitialized, locked or unlocked (in this process).
        public let state: State
        /// Whether the passcode opens it (`false`: the "no passcode" mode, or uninitialized).
        public let hasPasscode: Bool
        /// The paired access key in force: 1 at onboarding, one more at each passcode change.
        public let pairedKeyGeneration: UInt64
        /// Whether a renewal of the paired access key was cut short (the next open finishes it).
        public let isRenewingPairedKey: Bool
        /// Wrong passcodes in a row.
        public let failedAttempts: Int
        /// When the next passcode attempt may come, if a wait is running.
        public let nextAttempt: Date?
    }

    /// The store's status.
    public func status() throws(AppexError) -> Status {
        let record = try read("read the store's status") { db in try SecureStoreRecord.fetch(db, path: path) }
        let state = state(of: record)
        let next = record.map { Date(timeIntervalSince1970: $0.nextAttemptAfter) }.flatMap {
            $0 > configuration.environment.clock.now ? $0 : nil
        }
        return Status(
            state: state,
            hasPasscode: record?.mode == .passcode,
            pairedKeyGeneration: record?.generation ?? 0,
            isRenewingPairedKey: record?.pendingGeneration != nil,
            failedAttempts: record?.failedAttempts ?? 0,
            nextAttempt: next
        )
    }

    /// Wrong passcodes in a row so far (durable: kept across processes and kills).
    public var failedAttempts: Int {
        get throws(AppexError) {
            try read("read the failed attempts") { db in
                try SecureStoreRecord.fetch(db, path: path)?.failedAttempts ?? 0
            }
        }
    }

    /// Forgets the data key: the store is locked in this process until opened again.
    public func lock() {
        opened.withLock { $0 = nil }
        cache.withLock { $0 = ValueCache() }
    }

    /// Checks that the store is open and restarts its idle timer (the read path that needs no
    /// key); returns the open store's epoch.
    ///
    /// - Throws: as ``openedState()``.
    func touch() throws(AppexError) -> UInt64 {
        let timeout = configuration.policy.lockTimeout
        let epoch = opened.withLock { opened -> UInt64? in
            let now = ContinuousClock.now
            guard let lastUse = opened?.lastUse, now - lastUse <= timeout else { return nil }
            opened?.lastUse = now
            return opened?.epoch
        }
        if let epoch { return epoch }
        return try openedState().epoch  // says why, locking it if it timed out
    }

    /// The open store's data key, identifier and epoch, its idle timer restarted.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `storeLocked` when the store is not open in this process, or
    ///   was locked now for having been idle past the timeout.
    func openedState() throws(AppexError) -> Opened {
        let timeout = configuration.policy.lockTimeout
        let result = opened.withLock { opened -> Result<Opened, AppexError> in
            guard var current = opened else {
                return .failure(
                    AppexError(
                        .storeLocked,
                        "the secure store \(path) is locked: open it with the passcode",
                        context: context.errorContext(path: path)
                    )
                )
            }
            let now = ContinuousClock.now
            if now - current.lastUse > timeout {
                opened = nil
                cache.withLock { $0 = ValueCache() }
                return .failure(
                    AppexError(
                        .storeLocked,
                        "the secure store \(path) locked itself after \(timeout) unused: open it with the passcode",
                        context: context.errorContext(path: path)
                    )
                )
            }
            current.lastUse = now
            opened = current
            return .success(current)
        }
        return try result.get()
    }

    /// Refuses to go on with the key of `storeID` when the file now holds another store (erased
    /// at the retry limit, or set up again, by another process): the store is locked here too.
    func checkSameStore(_ db: Database, _ storeID: Data) throws {
        let current = try Data.fetchOne(db.cachedStatement(sql: "SELECT store_id FROM store WHERE id = 1"))
        guard current == storeID else {
            lock()
            throw AppexError(
                .storeLocked,
                "the secure store \(path) was \(current == nil ? "erased" : "set up again") by another process since it was opened here: open it again",
                context: context.errorContext(path: path)
            )
        }
    }

    /// Keeps `dataKey` as the open store's, and makes sure the idle timer runs.
    func remember(_ dataKey: DataKey, storeID: Data) {
        let startTimer = opened.withLock { opened -> Bool in
            let epoch = (opened?.epoch ?? 0) &+ 1
            opened = Opened(dataKey: dataKey, storeID: storeID, lastUse: .now, epoch: epoch)
            return autoLockRunning.withLock { running in
                defer { running = true }
                return !running
            }
        }
        if startTimer { startAutoLock() }
    }

    /// One task per store forgets the key once it has been idle past the timeout, even if
    /// nobody asks again; it ends when the store is locked.
    private func startAutoLock() {
        let timeout = configuration.policy.lockTimeout
        Task.detached(priority: .utility) { [weak self] in
            while true {
                guard let self else { return }
                // Until the moment the open store would time out; nil: it is locked, stop.
                let wait = self.opened.withLock { opened -> Duration? in
                    guard let current = opened else {
                        self.autoLockRunning.withLock { $0 = false }
                        return nil
                    }
                    let idle = ContinuousClock.now - current.lastUse
                    if idle >= timeout {
                        opened = nil
                        self.cache.withLock { $0 = ValueCache() }
                        self.autoLockRunning.withLock { $0 = false }
                        return nil
                    }
                    return max(timeout - idle, .milliseconds(10))
                }
                guard let wait else { return }
                try? await Task.sleep(for: wait)
            }
        }
    }

    // MARK: - The file

    func read<T>(_ what: String, _ body: (Database) throws -> T) throws(AppexError) -> T {
        try SharedDatabase.read(database, what, path: path, context: context.errorContext(path: path), body)
    }

    func write<T>(_ what: String, _ body: (Database) throws -> T) throws(AppexError) -> T {
        try SharedDatabase.write(database, what, path: path, context: context.errorContext(path: path), body)
    }

    /// The keychain service of this store's shares and keys.
    var keychainService: String {
        AuxiliarySecurityManager.service(host: hostBundleIdentifier, store: configuration.name)
    }

    /// The keychain group the auxiliary share goes to.
    func sharedGroup() throws(AppexError) -> String {
        if let group = configuration.sharedAccessGroup { return group }
        guard let group = keychain.defaultAccessGroup else {
            throw AppexError(
                .missingEntitlement,
                "\(context.name) has no keychain group to share the auxiliary share with its extensions: add one to \(Entitlements.Key.keychainAccessGroups)",
                context: context.errorContext(entitlement: Entitlements.Key.keychainAccessGroups)
            )
        }
        return group
    }
}
