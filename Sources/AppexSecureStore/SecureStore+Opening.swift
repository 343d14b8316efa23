import AppexStore
import Crypto
public import Foundation
import GRDB

// Making the store, and opening it: with the passcode (each attempt counted first), the device
// key, or a paired access key brought by an extension's request.
extension SecureStore {
    // MARK: - Onboarding

    /// Makes the store: a new data key, wrapped under `passcode` (or, with `nil`, under the
    /// device key: the weaker "no passcode" mode), and the first paired access key, whose
    /// auxiliary share is published for the host's extensions. The store is then open.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `passcodePolicy` naming every rule the passcode breaks;
    ///   `refused` when the store exists (open it, or ``erase()`` it first);
    ///   `missingEntitlement` when the host shares no keychain group with extensions.
    public func onboard(passcode: String?) throws(AppexError) {
        if let passcode { try check(newPasscode: passcode) }
        let shared = try sharedGroup()
        let dataKey = DataKey.random()
        var record = SecureStoreRecord(
            storeID: Data(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }),
            mode: .passcode,
            generation: 0,
            pendingGeneration: 1,
            failedAttempts: 0,
            nextAttemptAfter: 0
        )
        try rewrap(&record, dataKey: dataKey, passcode: passcode)
        let pairing = PairedAccessKey.make(generation: 1)
        let spakWrap = try dataKey.wrapped(under: pairing.key, purpose: record.spakPurpose(1))
        // The key answers to extensions are sealed with exists before the store does: a kill
        // after the commit below must not leave a store whose extensions can never ask.
        if try keychain.item(
            service: keychainService,
            account: AuxiliarySecurityManager.dataKeyAccount,
            accessGroup: shared
        ) == nil {
            // SAP's generateAuxiliaryDataEncryptionKey: the key answers to extensions are sealed with.
            let key = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
            try keychain.set(
                key,
                service: keychainService,
                account: AuxiliarySecurityManager.dataKeyAccount,
                accessGroup: shared
            )
        }
        try write("make the secure store") { db in
            if try SecureStoreRecord.fetch(db, path: path) != nil {
                throw AppexError(
                    .refused,
                    "the secure store \(path) is already set up: open it, or erase it to start again",
                    context: context.errorContext(path: path)
                )
            }
            try db.execute(sql: "DELETE FROM item")
            try db.execute(sql: "DELETE FROM spak_wrap")
            try record.save(db)
            try db.execute(sql: "INSERT INTO spak_wrap (generation, wrapped) VALUES (1, ?)", arguments: [spakWrap])
        }
        try publish(pairing, record: record)
        try finishPairing(generation: 1, record: record)
        remember(dataKey, storeID: record.storeID)
    }

    /// The new passcode, checked against the policy.
    func check(newPasscode passcode: String) throws(AppexError) {
        let broken = configuration.policy.validate(passcode)
        guard broken.isEmpty else {
            throw AppexError(
                .passcodePolicy,
                "the passcode breaks the policy: it needs \(broken.map(\.message).joined(separator: "; "))",
                context: context.errorContext(path: path)
            )
        }
    }

    /// Sets `record`'s wraps of `dataKey` for `passcode` (nil: the device key).
    func rewrap(_ record: inout SecureStoreRecord, dataKey: DataKey, passcode: String?) throws(AppexError) {
        if let passcode {
            let derivation = configuration.keyDerivation
            guard derivation.isUsable else {
                throw AppexError(
                    .configuration,
                    "scrypt with N \(derivation.rounds), r \(derivation.blockSize), p \(derivation.parallelism) is too weak or not scrypt's: N must be a power of two from 2^10",
                    context: context.errorContext(path: path)
                )
            }
            let salt = Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
            record.mode = .passcode
            record.salt = salt
            record.keyDerivation = derivation
            record.passcodeWrap = try dataKey.wrapped(
                under: derivation.key(for: passcode, salt: salt),
                purpose: record.purpose("passcode")
            )
            record.deviceWrap = nil
        } else {
            record.mode = .device
            record.salt = nil
            record.keyDerivation = nil
            record.passcodeWrap = nil
            record.deviceWrap = try dataKey.wrapped(under: deviceKey(creating: true), purpose: record.purpose("device"))
        }
        record.failedAttempts = 0
        record.nextAttemptAfter = 0
        record.retryLimit = configuration.policy.retryLimit
    }

    /// The device key of the "no passcode" mode, in the host's private keychain group.
    func deviceKey(creating: Bool) throws(AppexError) -> SymmetricKey {
        if let item = try keychain.item(service: keychainService, account: "device-key", accessGroup: privateGroup),
            item.data.count == 32
        {
            return SymmetricKey(data: item.data)
        }
        guard creating else {
            throw AppexError(
                .keyUnavailable,
                "the device key of the secure store \(path) is missing from \(privateGroup)",
                context: context.errorContext(path: path, group: privateGroup)
            )
        }
        let key = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        try keychain.set(key, service: keychainService, account: "device-key", accessGroup: privateGroup)
        return SymmetricKey(data: key)
    }

    // MARK: - Opening

    /// Opens the store with the app passcode.
    ///
    /// The attempt is counted in the file before the passcode is tried, and the count is reset
    /// only when it opens: a process killed mid-attempt has used the attempt.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `wrongPasscode` (how many attempts are left, and any wait);
    ///   `passcodeDelay` when the wait after the last failures has not run out (not counted);
    ///   `passcodeRetryLimit` when this was the last attempt (the data key is destroyed);
    ///   `notOnboarded`; `refused` in the "no passcode" mode (``openWithDeviceKey()``).
    public func open(passcode: String) throws(AppexError) {
        let (record, dataKey) = try attempt(passcode)
        try completePairing(record: record, dataKey: dataKey)
        remember(dataKey, storeID: record.storeID)
    }

    /// Opens a store set up without a passcode, with the device key in the host's private
    /// keychain group. Weaker: anyone who can read the host's keychain opens it.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `refused` when the store has a passcode; `notOnboarded`.
    public func openWithDeviceKey() throws(AppexError) {
        let (record, dataKey) = try unlockWithDeviceKey(refusing: "open it with the passcode")
        try completePairing(record: record, dataKey: dataKey)
        remember(dataKey, storeID: record.storeID)
    }

    /// The record and data key of a store without a passcode, unwrapped with the device key.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `refused` when the store has a passcode (`instead` says what to
    ///   do); `keyUnavailable` when the device key does not open it; `notOnboarded`.
    func unlockWithDeviceKey(refusing instead: String) throws(AppexError) -> (SecureStoreRecord, DataKey) {
        let record = try onboardedRecord()
        guard record.mode == .device, let wrap = record.deviceWrap else {
            throw AppexError(
                .refused,
                "the secure store \(path) has a passcode: \(instead)",
                context: context.errorContext(path: path)
            )
        }
        guard
            let dataKey = DataKey.unwrap(wrap, under: try deviceKey(creating: false), purpose: record.purpose("device"))
        else {
            throw AppexError(
                .keyUnavailable,
                "the device key in \(privateGroup) does not open the secure store \(path)",
                context: context.errorContext(path: path, group: privateGroup)
            )
        }
        return (record, dataKey)
    }

    /// Opens the store with the auxiliary share an extension's data request carried (SAP's
    /// `eSPAKAuxiliary`) and the host's primary share of the same generation: how a host opens
    /// its store to answer a widget without the passcode (in the background, say).
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `stalePairedKey` for a share of a key that a passcode change
    ///   replaced; `wrongPairedKey` for bytes that are no current share of this store (another
    ///   store's, edited, or a share the primary share does not open); `notOnboarded`.
    public func open(eSPAKAuxiliary bytes: Data) throws(AppexError) {
        let (record, dataKey) = try unlock(eSPAKAuxiliary: bytes)
        try completePairing(record: record, dataKey: dataKey)
        remember(dataKey, storeID: record.storeID)
    }

    /// Runs `body` with the store opened by an extension's auxiliary share for this call only:
    /// the store's state in this process does not change (a store the user opened stays open, a
    /// locked one stays locked), and the key is forgotten when `body` returns. How a host
    /// answers a data request.
    ///
    /// - Throws: what ``open(eSPAKAuxiliary:)`` throws, and what `body` throws.
    public func withAccess<Result>(
        eSPAKAuxiliary bytes: Data,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (Access) async throws(AppexError) -> Result
    ) async throws(AppexError) -> Result {
        let (record, dataKey) = try unlock(eSPAKAuxiliary: bytes)
        try completePairing(record: record, dataKey: dataKey)
        return try await body(Access(store: self, key: dataKey, storeID: record.storeID))
    }

    /// The data key an auxiliary share and the host's primary share of its generation unwrap.
    private func unlock(eSPAKAuxiliary bytes: Data) throws(AppexError) -> (SecureStoreRecord, DataKey) {
        let record = try onboardedRecord()
        guard let share = ESPAKAuxiliary(bytes: bytes) else {
            throw wrongPairedKey("the \(bytes.count) bytes given are not an eSPAKAuxiliary")
        }
        try checkInForce(share.generation, record: record)
        guard
            let primary = try keychain.item(
                service: keychainService,
                account: Self.primaryAccount(share.generation),
                accessGroup: privateGroup
            )
        else {
            throw wrongPairedKey(
                "the host's primary share of generation \(share.generation) is missing from \(privateGroup)"
            )
        }
        guard
            let auxiliary = share.auxiliaryShare(primary: Array(primary.data), storeIdentifier: storeIdentifier(record))
        else {
            throw wrongPairedKey(
                "the auxiliary share of generation \(share.generation) does not open with the host's share"
            )
        }
        return try unlock(
            pairedKey: PairedAccessKey.combine(primary: Array(primary.data), auxiliary: auxiliary),
            generation: share.generation,
            record: record
        )
    }

    /// Opens the store with a paired access key (the two shares combined) of `generation`.
    func open(pairedKey: SymmetricKey, generation: UInt64) throws(AppexError) {
        let (record, dataKey) = try unlock(pairedKey: pairedKey, generation: generation, record: onboardedRecord())
        try completePairing(record: record, dataKey: dataKey)
        remember(dataKey, storeID: record.storeID)
    }

    private func unlock(
        pairedKey: SymmetricKey,
        generation: UInt64,
        record: SecureStoreRecord
    ) throws(AppexError) -> (SecureStoreRecord, DataKey) {
        try checkInForce(generation, record: record)
        let wrap = try read("read the paired key's wrap") { db in
            try Data.fetchOne(
                db.cachedStatement(sql: "SELECT wrapped FROM spak_wrap WHERE generation = ?"),
                arguments: [Int64(generation)]
            )
        }
        guard let wrap, let dataKey = DataKey.unwrap(wrap, under: pairedKey, purpose: record.spakPurpose(generation))
        else {
            throw wrongPairedKey("the paired access key of generation \(generation) does not open the store")
        }
        return (record, dataKey)
    }

    /// Refuses a generation that is not in force: older ones are stale, others wrong.
    private func checkInForce(_ generation: UInt64, record: SecureStoreRecord) throws(AppexError) {
        if generation == record.generation && generation > 0 { return }
        if let pending = record.pendingGeneration, generation == pending { return }
        if generation < record.generation {
            throw AppexError(
                .stalePairedKey,
                "the auxiliary share of generation \(generation) was replaced by generation \(record.generation) when the passcode changed: read the current one (AuxiliarySecurityManager.getESPAKAuxiliary) and ask again",
                context: context.errorContext(path: path)
            )
        }
        throw wrongPairedKey(
            "the store has no paired access key of generation \(generation) (it is at \(record.generation))"
        )
    }

    private func wrongPairedKey(_ why: String) -> AppexError {
        AppexError(
            .wrongPairedKey,
            "a paired access key does not open the secure store \(path): \(why)",
            context: context.errorContext(path: path)
        )
    }

    /// What binds shares to this store: the host and the store's random identifier.
    func storeIdentifier(_ record: SecureStoreRecord) -> String {
        "\(hostBundleIdentifier)/\(configuration.name)/\(record.storeID.base64EncodedString())"
    }

    /// The row of an onboarded store. A store whose wrong attempts reached the retry limit is
    /// erased now (a process killed between the last attempt and the erase left it so), so that
    /// no other way in — a paired access key, the device key — still opens it.
    func onboardedRecord() throws(AppexError) -> SecureStoreRecord {
        guard let record = try read("read the store", { db in try SecureStoreRecord.fetch(db, path: path) }) else {
            throw AppexError(
                .notOnboarded,
                "the secure store \(path) is not set up (never, or erased at the passcode retry limit): onboard it",
                context: context.errorContext(path: path)
            )
        }
        if record.failedAttempts >= record.retryLimit ?? configuration.policy.retryLimit {
            try erase()
            throw retryLimitReached()
        }
        return record
    }

    // MARK: - Attempts

    /// One passcode attempt: counted (and its delay set) in one commit, then the passcode tried;
    /// on success the count is reset, at the limit the store is erased.
    func attempt(_ passcode: String) throws(AppexError) -> (SecureStoreRecord, DataKey) {
        let policy = configuration.policy
        let now = configuration.environment.clock.now.timeIntervalSince1970
        // nil: the limit was reached before (a process killed before it could erase the store).
        var limit = policy.retryLimit
        let counted = try write("count a passcode attempt") { db -> Result<SecureStoreRecord?, AppexError> in
            guard var record = try SecureStoreRecord.fetch(db, path: path) else {
                return .failure(
                    AppexError(
                        .notOnboarded,
                        "the secure store \(path) is not set up (never, or erased at the passcode retry limit): onboard it",
                        context: context.errorContext(path: path)
                    )
                )
            }
            guard record.mode == .passcode else {
                return .failure(
                    AppexError(
                        .refused,
                        "the secure store \(path) has no passcode: open it with openWithDeviceKey()",
                        context: context.errorContext(path: path)
                    )
                )
            }
            if record.failedAttempts >= record.retryLimit ?? policy.retryLimit { return .success(nil) }
            if now < record.nextAttemptAfter {
                let wait = Int((record.nextAttemptAfter - now).rounded(.up))
                return .failure(
                    AppexError(
                        .passcodeDelay,
                        "after \(record.failedAttempts) wrong passcodes the next attempt may come in \(wait) s; this one was not tried",
                        context: context.errorContext(path: path)
                    )
                )
            }
            record.failedAttempts += 1
            limit = record.retryLimit ?? policy.retryLimit
            let delay = policy.delay(afterFailures: record.failedAttempts)
            record.nextAttemptAfter =
                now + Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
            try record.save(db)
            return .success(record)
        }.get()
        guard let counted else {
            try erase()
            throw retryLimitReached()
        }
        if let salt = counted.salt, let derivation = counted.keyDerivation, let wrap = counted.passcodeWrap,
            let dataKey = DataKey.unwrap(
                wrap,
                under: try derivation.key(for: passcode, salt: salt),
                purpose: counted.purpose("passcode")
            )
        {
            try write("reset the failed attempts") { db in
                try db.execute(sql: "UPDATE store SET failed_attempts = 0, next_attempt_after = 0 WHERE id = 1")
            }
            var opened = counted
            opened.failedAttempts = 0
            opened.nextAttemptAfter = 0
            return (opened, dataKey)
        }
        if counted.failedAttempts >= limit {
            try erase()
            throw retryLimitReached()
        }
        let left = limit - counted.failedAttempts
        let wait = policy.delay(afterFailures: counted.failedAttempts)
        throw AppexError(
            .wrongPasscode,
            "wrong passcode for the secure store \(path): \(left) attempt\(left == 1 ? "" : "s") left before the store is erased"
                + (wait > .zero ? "; the next may come in \(wait)" : ""),
            context: context.errorContext(path: path)
        )
    }

    private func retryLimitReached() -> AppexError {
        AppexError(
            .passcodeRetryLimit,
            "too many wrong passcodes in a row: the secure store \(path) was erased (its data key destroyed); onboard again",
            context: context.errorContext(path: path)
        )
    }

    // MARK: - Erasing

    /// Destroys the store: its data key's wraps, every value, and the host's and extensions'
    /// shares and keys. The store is then ``State/uninitialized``.
    public func erase() throws(AppexError) {
        lock()
        try write("erase the secure store") { db in
            try db.execute(sql: "DELETE FROM item")
            try db.execute(sql: "DELETE FROM spak_wrap")
            try db.execute(sql: "DELETE FROM store")
        }
        // Deleted pages are zeroed (secure_delete); move the WAL into the file and empty it.
        _ = try? database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        for item in try keychain.items(matching: KeychainQuery(service: keychainService, accessGroup: privateGroup)) {
            try? keychain.delete(service: item.service, account: item.account, accessGroup: privateGroup)
        }
        if let shared = try? sharedGroup() {
            for account in [AuxiliarySecurityManager.eSPAKAccount, AuxiliarySecurityManager.dataKeyAccount] {
                try? keychain.delete(service: keychainService, account: account, accessGroup: shared)
            }
        }
    }

    /// The private item that holds the primary share of `generation`.
    static func primaryAccount(_ generation: UInt64) -> String { "spak.primary.\(generation)" }
}
