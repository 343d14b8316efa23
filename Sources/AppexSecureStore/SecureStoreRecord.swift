import Foundation
import GRDB

/// The secure store's file: one row that says how the data key is wrapped and how many wrong
/// passcodes came in a row, the data key wrapped under each paired access key in force, and the
/// sealed items.
enum SecureStoreFile {
    static let version = 1

    static func schema(_ current: Int) -> String {
        """
        CREATE TABLE IF NOT EXISTS store (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            store_id BLOB NOT NULL,
            mode TEXT NOT NULL,
            kdf_salt BLOB,
            kdf_rounds INTEGER,
            kdf_block_size INTEGER,
            kdf_parallelism INTEGER,
            passcode_wrap BLOB,
            device_wrap BLOB,
            generation INTEGER NOT NULL,
            pending_generation INTEGER,
            failed_attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_after REAL NOT NULL DEFAULT 0);
        CREATE TABLE IF NOT EXISTS spak_wrap (
            generation INTEGER PRIMARY KEY,
            wrapped BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS item (
            id BLOB PRIMARY KEY,
            name BLOB NOT NULL,
            value BLOB NOT NULL) WITHOUT ROWID;
        """
    }
}

/// The `store` row: how the data key is wrapped, the paired access key's generation, and the
/// wrong attempts in a row.
struct SecureStoreRecord: Sendable {
    /// How the store opens in the host: with the passcode, or (no passcode) with the device key.
    enum Mode: String, Sendable {
        case passcode
        case device
    }

    /// Random, made at onboarding: binds wraps and shares to this store.
    var storeID: Data
    var mode: Mode
    var salt: Data?
    var keyDerivation: PasscodeKeyDerivation?
    var passcodeWrap: Data?
    var deviceWrap: Data?
    /// The paired access key in force (0 before the first is published).
    var generation: UInt64
    /// A paired access key being put in place (a passcode change or onboarding cut short).
    var pendingGeneration: UInt64?
    var failedAttempts: Int
    /// Seconds since 1970 before which no passcode attempt is taken.
    var nextAttemptAfter: Double

    /// The row, if the store is onboarded.
    static func fetch(_ db: Database) throws -> SecureStoreRecord? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM store WHERE id = 1") else { return nil }
        let mode: String = row["mode"]
        var derivation: PasscodeKeyDerivation?
        if let rounds: Int = row["kdf_rounds"], let blockSize: Int = row["kdf_block_size"],
            let parallelism: Int = row["kdf_parallelism"]
        {
            derivation = PasscodeKeyDerivation(rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        }
        let generation: Int64 = row["generation"]
        let pending: Int64? = row["pending_generation"]
        return SecureStoreRecord(
            storeID: row["store_id"],
            mode: Mode(rawValue: mode) ?? .passcode,
            salt: row["kdf_salt"],
            keyDerivation: derivation,
            passcodeWrap: row["passcode_wrap"],
            deviceWrap: row["device_wrap"],
            generation: UInt64(max(generation, 0)),
            pendingGeneration: pending.map { UInt64(max($0, 0)) },
            failedAttempts: row["failed_attempts"],
            nextAttemptAfter: row["next_attempt_after"]
        )
    }

    /// Writes the row (inserting or replacing it).
    func save(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO store (id, store_id, mode, kdf_salt, kdf_rounds, kdf_block_size,
                    kdf_parallelism, passcode_wrap, device_wrap, generation, pending_generation,
                    failed_attempts, next_attempt_after)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                storeID, mode.rawValue, salt, keyDerivation?.rounds, keyDerivation?.blockSize,
                keyDerivation?.parallelism, passcodeWrap, deviceWrap, Int64(generation),
                pendingGeneration.map { Int64($0) }, failedAttempts, nextAttemptAfter,
            ]
        )
    }

    /// The purpose a wrap of the data key is bound to.
    func purpose(_ wrap: String) -> String { "\(wrap):\(storeID.base64EncodedString())" }
    /// The purpose of the data key's wrap under the paired access key of `generation`.
    func spakPurpose(_ generation: UInt64) -> String { purpose("spak:\(generation)") }
}
