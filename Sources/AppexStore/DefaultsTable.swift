import AppexCore
import AppexVocabulary
import Foundation
import GRDB

/// A defaults suite's tables and how values are stored in them: the schema, rows of entries and
/// changes, bookkeeping, and the encoding of values. ``SharedDefaults`` and ``DataSharing`` both
/// read and write suites through it.
///
/// Tables: `entry(key, value, sequence)` — the current value of each key as a binary property list
/// `{"v": value}`; `change(sequence, key, value, origin)` — every committed change, numbered, with
/// the value it committed (`NULL`: removed) and who made it (0 the process, 1 a data-sharing
/// migration); `meta(name, value)` — the suite's own bookkeeping, never a defaults key.
enum DefaultsTable {
    /// The schema's version (`user_version`).
    static let version = 3

    /// The SQL that brings a suite at `current` up to ``version``.
    static func schema(_ current: Int) -> String {
        var sql = """
            CREATE TABLE IF NOT EXISTS entry (
                key TEXT PRIMARY KEY NOT NULL,
                value BLOB NOT NULL,
                sequence INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS change (
                sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                key TEXT NOT NULL,
                value BLOB);
            CREATE TABLE IF NOT EXISTS meta (
                name TEXT PRIMARY KEY NOT NULL,
                value TEXT NOT NULL);
            """
        // 3: who made a change: the process (0) or a data-sharing migration (1).
        if current < 3 { sql += "\nALTER TABLE change ADD COLUMN origin INTEGER NOT NULL DEFAULT 0;" }
        return sql
    }

    /// Every stored entry (values that cannot be decoded are left out).
    static func entries(in db: Database) throws -> [String: PropertyListValue] {
        try contents(in: db).values
    }

    /// Every stored entry, and the keys whose value cannot be decoded with the reason.
    static func contents(in db: Database) throws -> (values: [String: PropertyListValue], unreadable: [String: String])
    {
        var values: [String: PropertyListValue] = [:]
        var unreadable: [String: String] = [:]
        let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT key, value FROM entry"))
        while let row = try rows.next() {
            let key: String = row["key"]
            let blob: Data = row["value"]
            do throws(AppexError) { values[key] = try decode(blob) } catch { unreadable[key] = error.message }
        }
        return (values, unreadable)
    }

    /// The stored value of `key`; a value no reader can decode (written outside Appex) reads as
    /// absent, so it can still be replaced or removed.
    static func read(_ key: String, in db: Database) throws -> PropertyListValue? {
        guard
            let blob = try Data.fetchOne(
                db.cachedStatement(sql: "SELECT value FROM entry WHERE key = ?"),
                arguments: [key]
            )
        else { return nil }
        return try? decode(blob)
    }

    /// Stores `value` (`nil`: removes the key) and logs the change; inside a write transaction.
    ///
    /// - Parameter migrated: the change is a data-sharing migration's copy, not the process's
    ///   own write (``DataSharing`` copies only the process's own writes).
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalidValue` when the value could not be read back.
    static func write(_ value: PropertyListValue?, forKey key: String, migrated: Bool = false, in db: Database) throws {
        let blob = try value.map(encode)
        if let blob, (try? decode(blob)) == nil {
            throw AppexError(
                .invalidValue,
                "the value for \(key) cannot be stored: it is too large or too deeply nested to be read back (at most 100,000 elements, 256 levels)",
                context: AppexError.Context(key: key)
            )
        }
        try db.cachedStatement(sql: "INSERT INTO change (key, value, origin) VALUES (?, ?, ?)").execute(arguments: [
            key, blob, migrated ? 1 : 0,
        ])
        let sequence = db.lastInsertedRowID
        if let blob {
            try db.cachedStatement(
                sql: """
                    INSERT INTO entry (key, value, sequence) VALUES (?, ?, ?)
                    ON CONFLICT(key) DO UPDATE SET value = excluded.value, sequence = excluded.sequence
                    """
            ).execute(arguments: [key, blob, sequence])
        } else {
            try db.cachedStatement(sql: "DELETE FROM entry WHERE key = ?").execute(arguments: [key])
        }
    }

    /// The suite's own bookkeeping (not a defaults key): `nil` when unset.
    static func meta(_ name: String, in db: Database) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE name = ?"), arguments: [name])
    }

    /// Sets (`nil`: removes) a bookkeeping value; inside a write transaction.
    static func setMeta(_ name: String, _ value: String?, in db: Database) throws {
        if let value {
            try db.execute(
                sql:
                    "INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                arguments: [name, value]
            )
        } else {
            try db.execute(sql: "DELETE FROM meta WHERE name = ?", arguments: [name])
        }
    }

    /// The number of the last logged change (0: none).
    static func lastSequence(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM change") ?? 0
    }

    /// A value is stored as a binary property list `{"v": value}`.
    static func encode(_ value: PropertyListValue) throws -> Data {
        try PropertyListFormat.binary.encode(["v": value])
    }

    /// Reads a stored value with Appex's own property-list reader (never Foundation's: the
    /// bytes may come from any process that can write the group).
    ///
    /// - Throws: what is wrong with the bytes, as a ``/AppexVocabulary/AppexError`` `corrupt-value` message.
    static func decode(_ blob: Data) throws(AppexError) -> PropertyListValue {
        let stored: [String: PropertyListValue]
        do { stored = try PropertyListValue.dictionary(fromPropertyList: Array(blob)) } catch {
            throw AppexError(.corruptValue, error.message)
        }
        guard let value = stored["v"] else {
            throw AppexError(.corruptValue, "the stored entry holds no value (no key \"v\")")
        }
        return value
    }
}
