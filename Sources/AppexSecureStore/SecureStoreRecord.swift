import AppexSQLite
import Foundation
import GRDB

/// The secure store's file: one row that says how the data key is wrapped and how many wrong
/// passcodes came in a row, the data key wrapped under each paired access key in force, and the
/// sealed items.
enum SecureStoreFile {
    static let version = 2

    static func schema(_ current: Int) -> String {
        if current == 1 { return "ALTER TABLE store ADD COLUMN retry_limit INTEGER;" }
        return """
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
                next_attempt_after REAL NOT NULL DEFAULT 0,
                retry_limit INTEGER);
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
    /// The policy's retry limit when the passcode was set (so every process, and the `appex`
    /// tool, erases at the same count); `nil` in files made before it was kept.
    var retryLimit: Int?

    /// The row, if the store is onboarded.
    static func fetch(_ db: Database, path: String) throws -> SecureStoreRecord? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM store WHERE id = 1")) else {
            return nil
        }
        var derivation: PasscodeKeyDerivation?
        if let rounds = try row.field("kdf_rounds", as: Int?.self, in: path),
            let blockSize = try row.field("kdf_block_size", as: Int?.self, in: path),
            let parallelism = try row.field("kdf_parallelism", as: Int?.self, in: path)
        {
            derivation = PasscodeKeyDerivation(rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        }
        let generation = try row.field("generation", as: Int64.self, in: path)
        let pending = try row.field("pending_generation", as: Int64?.self, in: path)
        return SecureStoreRecord(
            storeID: try row.field("store_id", in: path),
            mode: Mode(rawValue: try row.field("mode", as: String.self, in: path)) ?? .passcode,
            salt: try row.field("kdf_salt", in: path),
            keyDerivation: derivation,
            passcodeWrap: try row.field("passcode_wrap", in: path),
            deviceWrap: try row.field("device_wrap", in: path),
            generation: UInt64(max(generation, 0)),
            pendingGeneration: pending.map { UInt64(max($0, 0)) },
            failedAttempts: try row.field("failed_attempts", in: path),
            nextAttemptAfter: try row.field("next_attempt_after", in: path),
            retryLimit: try row.field("retry_limit", in: path)
        )
    }

    /// Writes the row (inserting or replacing it).
    func save(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO store (id, store_id, mode, kdf_salt, kdf_rounds, kdf_block_size,
                    kdf_parallelism, passcode_wrap, device_wrap, generation, pending_generation,
                    failed_attempts, next_attempt_after, retry_limit)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                storeID, mode.rawValue, salt, keyDerivation?.rounds, keyDerivation?.blockSize,
                keyDerivation?.parallelism, passcodeWrap, deviceWrap, Int64(generation),
                pendingGeneration.map { Int64($0) }, failedAttempts, nextAttemptAfter, retryLimit,
            ]
        )
    }

    /// The purpose a wrap of the data key is bound to.
    func purpose(_ wrap: String) -> String { "\(wrap):\(storeID.base64EncodedString())" }
    /// The purpose of the data key's wrap under the paired access key of `generation`.
    func spakPurpose(_ generation: UInt64) -> String { purpose("spak:\(generation)") }
}
