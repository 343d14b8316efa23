// The raw SQLite side of the keychain benchmarks' baselines: the sqlite3 C API and nothing else,
// on a table with the columns of SharedKeychain's items, unencrypted.
import Foundation
import GRDBSQLite

/// A raw sqlite3 connection to
/// `item (access_group, service, account, data BLOB, label, created, modified)`, primary key
/// `(access_group, service, account)`, in a WAL database with `synchronous = FULL`, with its
/// statements prepared once. Used by one thread at a time.
public final class RawKeychain: @unchecked Sendable {
    /// One row, its columns read out of SQLite.
    public struct Item: Sendable, Equatable {
        public let accessGroup: String
        public let service: String
        public let account: String
        public let data: Data
        public let label: String?
        public let created: Double
        public let modified: Double
    }

    public let path: String
    private let db: OpaquePointer
    private let select: OpaquePointer
    private let upsert: OpaquePointer
    private let begin: OpaquePointer
    private let commit: OpaquePointer

    /// Opens (creating if needed) the database at `path`.
    public init(path: String) throws(RawTable.Failure) {
        self.path = path
        var connection: OpaquePointer?
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              let connection else {
            throw RawTable.Failure(description: "cannot open \(path)")
        }
        db = connection
        sqlite3_busy_timeout(db, 10_000)
        for sql in ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL",
                    """
                    CREATE TABLE IF NOT EXISTS item (
                        access_group TEXT NOT NULL, service TEXT NOT NULL, account TEXT NOT NULL,
                        data BLOB NOT NULL, label TEXT, created REAL NOT NULL, modified REAL NOT NULL,
                        PRIMARY KEY (access_group, service, account))
                    """] {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                throw RawTable.Failure(description: "\(sql) on \(path): \(String(cString: sqlite3_errmsg(db)))")
            }
        }
        func prepare(_ sql: String) throws(RawTable.Failure) -> OpaquePointer {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
                throw RawTable.Failure(description: "cannot prepare \(sql): \(String(cString: sqlite3_errmsg(connection)))")
            }
            return statement
        }
        select = try prepare("""
            SELECT access_group, service, account, data, label, created, modified FROM item
            WHERE access_group = ? AND service = ? AND account = ?
            """)
        // As SharedKeychain.set without a label: a new item gets the label given, an existing
        // one keeps its own and its creation date.
        upsert = try prepare("""
            INSERT INTO item (access_group, service, account, data, label, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(access_group, service, account) DO UPDATE SET data = excluded.data, modified = excluded.modified
            """)
        begin = try prepare("BEGIN IMMEDIATE")
        commit = try prepare("COMMIT")
    }

    deinit {
        for statement in [select, upsert, begin, commit] { sqlite3_finalize(statement) }
        sqlite3_close_v2(db)
    }

    /// The item of `service` and `account` in `group`, or `nil`: the prepared SELECT bound,
    /// stepped, its columns read, and reset.
    public func item(group: String, service: String, account: String) -> Item? {
        withBound(select, group: group, service: service, account: account) { select in
            guard sqlite3_step(select) == SQLITE_ROW else { return nil }
            return Item(accessGroup: text(select, 0) ?? "", service: text(select, 1) ?? "", account: text(select, 2) ?? "",
                        data: blob(select, 3), label: text(select, 4),
                        created: sqlite3_column_double(select, 5), modified: sqlite3_column_double(select, 6))
        }
    }

    /// Stores `data` for the item in a transaction of its own (BEGIN IMMEDIATE, upsert, COMMIT).
    public func set(_ data: Data, label: String?, group: String, service: String, account: String) throws(RawTable.Failure) {
        try step(begin)
        let now = Date().timeIntervalSinceReferenceDate
        let done = withBound(upsert, group: group, service: service, account: account) { upsert in
            data.withUnsafeBytes { bytes in
                sqlite3_bind_blob(upsert, 4, bytes.baseAddress, Int32(bytes.count), nil)
                if let label { sqlite3_bind_text(upsert, 5, label, -1, SQLITE_TRANSIENT) } else { sqlite3_bind_null(upsert, 5) }
                sqlite3_bind_double(upsert, 6, now)
                sqlite3_bind_double(upsert, 7, now)
                return sqlite3_step(upsert)
            }
        }
        guard done == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(db))
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw RawTable.Failure(description: "cannot write the item (service \(service), account \(account)) to \(path): \(message)")
        }
        try step(commit)
    }

    /// Runs `body` with the key columns bound (without copies: the C strings live until it
    /// returns), then resets the statement.
    private func withBound<T>(_ statement: OpaquePointer, group: String, service: String, account: String,
                              _ body: (OpaquePointer) -> T) -> T {
        group.withCString { group in
            service.withCString { service in
                account.withCString { account in
                    sqlite3_bind_text(statement, 1, group, -1, nil)
                    sqlite3_bind_text(statement, 2, service, -1, nil)
                    sqlite3_bind_text(statement, 3, account, -1, nil)
                    defer { sqlite3_reset(statement) }
                    return body(statement)
                }
            }
        }
    }

    private func text(_ statement: OpaquePointer, _ column: Int32) -> String? {
        guard let text = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: text)
    }

    private func blob(_ statement: OpaquePointer, _ column: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(statement, column) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, column)))
    }

    private func step(_ statement: OpaquePointer) throws(RawTable.Failure) {
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_DONE else {
            throw RawTable.Failure(description: "\(String(cString: sqlite3_sql(statement))) on \(path): \(String(cString: sqlite3_errmsg(db)))")
        }
    }
}

/// SQLite's "copy this value now" destructor (the C macro SQLITE_TRANSIENT, which Swift does not import).
private let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
