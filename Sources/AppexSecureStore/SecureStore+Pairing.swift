import AppexStore
import Crypto
import Foundation
import GRDB

// The passcode change, and the paired access key's renewal: the data key re-wrapped in one
// commit, the new key's shares published, the old key's wrap and shares dropped — each step
// such that a kill between two of them leaves the store opening, and the next open finishes.
extension SecureStore {
    /// Changes the passcode: re-wraps the data key (no value is re-encrypted) and issues a new
    /// paired access key, so extensions must read their new share and old ones are refused
    /// (`stale-paired-key`).
    ///
    /// - Parameters:
    ///   - old: the current passcode (counted as an attempt, like ``open(passcode:)``); `nil`
    ///     in the "no passcode" mode.
    ///   - new: the new passcode; `nil` turns the passcode off (the device key's weaker mode).
    /// - Throws: ``/AppexVocabulary/AppexError`` `passcodePolicy` for a new passcode that breaks the policy (no
    ///   attempt is used); what ``open(passcode:)`` throws for the old one.
    ///
    /// The new wrap and the new key's wrap are one commit: a kill before it leaves the old
    /// passcode working, after it the new one, with every value intact either way. A kill
    /// before the new shares are in place leaves the old share working until the next open
    /// completes the renewal.
    public func changePasscode(from old: String?, to new: String?) throws(AppexError) {
        if let new { try check(newPasscode: new) }
        var record: SecureStoreRecord
        let dataKey: DataKey
        if let old {
            (record, dataKey) = try attempt(old)
        } else {
            (record, dataKey) = try unlockWithDeviceKey(refusing: "give it to change it")
        }
        try rewrap(&record, dataKey: dataKey, passcode: new)
        let generation = max(record.generation, record.pendingGeneration ?? 0) + 1
        record.pendingGeneration = generation
        let pairing = PairedAccessKey.make(generation: generation)
        let spakWrap = try dataKey.wrapped(under: pairing.key, purpose: record.spakPurpose(generation))
        let changed = record
        try write("change the passcode") { db in
            guard let current = try SecureStoreRecord.fetch(db, path: path), current.storeID == changed.storeID else {
                throw AppexError(
                    .conflict,
                    "the secure store \(path) was erased or set up again meanwhile: nothing was changed",
                    context: context.errorContext(path: path)
                )
            }
            var saved = changed
            saved.generation = current.generation
            try saved.save(db)
            try db.execute(
                sql: "INSERT OR REPLACE INTO spak_wrap (generation, wrapped) VALUES (?, ?)",
                arguments: [Int64(generation), spakWrap]
            )
        }
        try publish(pairing, record: record)
        try finishPairing(generation: generation, record: record)
        // The old passcode's wrap is gone from the file (secure_delete) but may wait in the WAL:
        // move the WAL into the file and empty it (best effort: a reader elsewhere can hold it).
        _ = try? database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        remember(dataKey, storeID: record.storeID)
    }

    /// Puts a paired access key's shares in place: the primary share in the host's private
    /// group, then the sealed auxiliary share where extensions read it.
    func publish(_ pairing: PairedAccessKey, record: SecureStoreRecord) throws(AppexError) {
        try keychain.set(
            Data(pairing.primary),
            service: keychainService,
            account: Self.primaryAccount(pairing.generation),
            accessGroup: privateGroup
        )
        let share = try ESPAKAuxiliary(sealing: pairing, storeIdentifier: storeIdentifier(record))
        try keychain.set(
            share.bytes,
            service: keychainService,
            account: AuxiliarySecurityManager.eSPAKAccount,
            accessGroup: try sharedGroup()
        )
    }

    /// Makes `generation` the key in force: drops the other wraps, then the other primary shares.
    func finishPairing(generation: UInt64, record: SecureStoreRecord) throws(AppexError) {
        try write("put the new paired access key in force") { db in
            guard let current = try SecureStoreRecord.fetch(db, path: path), current.storeID == record.storeID else {
                return
            }
            try db.execute(
                sql: "UPDATE store SET generation = ?, pending_generation = NULL WHERE id = 1",
                arguments: [Int64(generation)]
            )
            try db.execute(sql: "DELETE FROM spak_wrap WHERE generation <> ?", arguments: [Int64(generation)])
        }
        for item in try keychain.items(matching: KeychainQuery(service: keychainService, accessGroup: privateGroup))
        where item.account.hasPrefix("spak.primary.") && item.account != Self.primaryAccount(generation) {
            try? keychain.delete(service: item.service, account: item.account, accessGroup: privateGroup)
        }
    }

    /// Finishes a renewal that a kill cut short, now that the data key is at hand: a pending key
    /// whose shares were all published is put in force; otherwise a new key of that generation
    /// is made and published.
    func completePairing(record: SecureStoreRecord, dataKey: DataKey) throws(AppexError) {
        guard let pending = record.pendingGeneration else { return }
        if try !isPublished(pending, record: record) {
            let pairing = PairedAccessKey.make(generation: pending)
            let spakWrap = try dataKey.wrapped(under: pairing.key, purpose: record.spakPurpose(pending))
            try write("renew the paired access key") { db in
                try checkSameStore(db, record.storeID)
                try db.execute(
                    sql: "INSERT OR REPLACE INTO spak_wrap (generation, wrapped) VALUES (?, ?)",
                    arguments: [Int64(pending), spakWrap]
                )
            }
            try publish(pairing, record: record)
        }
        try finishPairing(generation: pending, record: record)
    }

    /// Whether the shares published for `generation` are this store's: the primary share opens
    /// the published auxiliary share, and the two unwrap the data key from that generation's
    /// wrap. (Shares left by an erased store, or a renewal another process raced, do not.)
    private func isPublished(_ generation: UInt64, record: SecureStoreRecord) throws(AppexError) -> Bool {
        guard
            let primary = try keychain.item(
                service: keychainService,
                account: Self.primaryAccount(generation),
                accessGroup: privateGroup
            ),
            let shared = try keychain.item(
                service: keychainService,
                account: AuxiliarySecurityManager.eSPAKAccount,
                accessGroup: sharedGroup()
            ),
            let share = ESPAKAuxiliary(bytes: shared.data), share.generation == generation,
            let auxiliary = share.auxiliaryShare(primary: Array(primary.data), storeIdentifier: storeIdentifier(record))
        else { return false }
        let wrap = try read("read the paired key's wrap") { db in
            try Data.fetchOne(
                db,
                sql: "SELECT wrapped FROM spak_wrap WHERE generation = ?",
                arguments: [Int64(generation)]
            )
        }
        guard let wrap else { return false }
        let key = PairedAccessKey.combine(primary: Array(primary.data), auxiliary: auxiliary)
        return DataKey.unwrap(wrap, under: key, purpose: record.spakPurpose(generation)) != nil
    }
}
