// The raw SQLite side of the store benchmarks' baselines: the sqlite3 C API and nothing else,
// on a table shaped like SharedDefaults' entries.
import GRDBSQLite

/// A raw sqlite3 connection to `t (key TEXT PRIMARY KEY, value BLOB)` in a WAL database with
/// `synchronous = FULL`, with its statements prepared once. Used by one thread at a time.
public final class RawTable: @unchecked Sendable {
    /// What went wrong, in SQLite's words.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let path: String
    private let db: OpaquePointer
    private let select: OpaquePointer
    private let upsert: OpaquePointer
    private let begin: OpaquePointer
    private let commit: OpaquePointer

    /// Opens (creating if needed) the database at `path`.
    public init(path: String) throws(Failure) {
        self.path = path
        var connection: OpaquePointer?
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              let connection else {
            throw Failure(description: "cannot open \(path)")
        }
        db = connection
        sqlite3_busy_timeout(db, 10_000)
        for sql in ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL",
                    "CREATE TABLE IF NOT EXISTS t (key TEXT PRIMARY KEY NOT NULL, value BLOB)"] {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                throw Failure(description: "\(sql) on \(path): \(String(cString: sqlite3_errmsg(db)))")
            }
        }
        func prepare(_ sql: String) throws(Failure) -> OpaquePointer {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
                throw Failure(description: "cannot prepare \(sql): \(String(cString: sqlite3_errmsg(connection)))")
            }
            return statement
        }
        select = try prepare("SELECT value FROM t WHERE key = ?")
        upsert = try prepare("INSERT INTO t (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
        begin = try prepare("BEGIN IMMEDIATE")
        commit = try prepare("COMMIT")
    }

    deinit {
        for statement in [select, upsert, begin, commit] { sqlite3_finalize(statement) }
        sqlite3_close_v2(db)
    }

    /// The integer stored for `key`, or `nil`: the prepared SELECT bound, stepped and reset.
    public func read(_ key: String) -> Int64? {
        key.withCString { name in
            sqlite3_bind_text(select, 1, name, -1, nil)
            defer { sqlite3_reset(select) }
            guard sqlite3_step(select) == SQLITE_ROW else { return nil }
            return sqlite3_column_int64(select, 0)
        }
    }

    /// Stores `value` for `key` in a transaction of its own (BEGIN IMMEDIATE, upsert, COMMIT).
    public func write(_ value: Int64, forKey key: String) throws(Failure) {
        try step(begin)
        let done = key.withCString { name in
            sqlite3_bind_text(upsert, 1, name, -1, nil)
            sqlite3_bind_int64(upsert, 2, value)
            defer { sqlite3_reset(upsert) }
            return sqlite3_step(upsert)
        }
        guard done == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(db))
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw Failure(description: "cannot write \(key) to \(path): \(message)")
        }
        try step(commit)
    }

    private func step(_ statement: OpaquePointer) throws(Failure) {
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_DONE else {
            throw Failure(description: "\(String(cString: sqlite3_sql(statement))) on \(path): \(String(cString: sqlite3_errmsg(db)))")
        }
    }
}
