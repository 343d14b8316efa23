import AppexSystem
package import AppexVocabulary
import Foundation
package import GRDB
import GRDBSQLite

/// Opens SQLite files that several processes share: WAL, `synchronous = FULL`, a busy timeout,
/// and a schema created or upgraded once, inside an IMMEDIATE transaction — so processes that
/// open a new file at the same moment agree, and a lost race for the first switch to WAL is
/// retried. Used by the approval registry (AppexHost) and the shared stores (AppexStore).
package enum SharedDatabase {
    /// Opens (creating if needed) the database at `path`; `schema(current)` runs once, under the
    /// write lock, when the file's `user_version` (`current`, 0 for a new file) is below
    /// `version`: it returns the SQL that brings a file at `current` to `version`.
    /// The file should exist with its final mode first: SQLite gives its `-wal` and `-shm` files
    /// the database file's mode. `secureDelete` overwrites deleted content with zeros (for
    /// secrets: a deleted item does not linger in free pages). `syncsEveryCommit` (the default)
    /// makes every commit survive a power cut; without it (WAL with `synchronous = NORMAL`) a
    /// commit survives the death of any process but the last ones may be lost to a power cut —
    /// for state that is a cache of what can be asked again.
    /// Runs `body` in a deferred read transaction on `queue`'s connection. Unlike
    /// `DatabaseQueue.read`, it does not toggle `query_only`, which makes SQLite recompile every
    /// cached statement: hot reads keep their prepared statements. Not reentrant.
    package static func snapshot<Result>(_ queue: DatabaseQueue, _ body: (Database) throws -> Result) throws -> Result {
        try queue.inDatabase { db in
            var result: Result?
            try db.inTransaction(.deferred) {
                result = try body(db)
                return .commit
            }
            guard let result else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the read produced no result")
            }
            return result
        }
    }

    /// Runs `body` in an IMMEDIATE transaction on `queue` (committed when it returns). An
    /// ``AppexError`` it throws passes through; any other failure is `storage`: "cannot `what`
    /// in `path`", with `context`. `synced: false` commits this one transaction at
    /// `synchronous = NORMAL` on a connection opened `FULL`: it survives the crash of any
    /// process but may be lost to a power cut, until the next synced commit (whose sync
    /// covers the frames before it).
    package static func write<Result>(
        _ queue: DatabaseQueue,
        _ what: String,
        path: String,
        context: AppexError.Context,
        synced: Bool = true,
        _ body: (Database) throws -> Result
    ) throws(AppexError) -> Result {
        do {
            return try queue.inDatabase { db in
                var result: Result?
                if !synced { try db.cachedStatement(sql: "PRAGMA synchronous = NORMAL").execute() }
                defer { if !synced { try? db.cachedStatement(sql: "PRAGMA synchronous = FULL").execute() } }
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                guard let result else {
                    throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the transaction produced no result")
                }
                return result
            }
        } catch {
            throw storageFailure(error, what, path: path, context: context)
        }
    }

    /// ``snapshot(_:_:)`` with the errors of ``write(_:_:path:context:_:)``.
    package static func read<Result>(
        _ queue: DatabaseQueue,
        _ what: String,
        path: String,
        context: AppexError.Context,
        _ body: (Database) throws -> Result
    ) throws(AppexError) -> Result {
        do { return try snapshot(queue, body) } catch {
            throw storageFailure(error, what, path: path, context: context)
        }
    }

    private static func storageFailure(
        _ error: any Error,
        _ what: String,
        path: String,
        context: AppexError.Context
    ) -> AppexError {
        if let error = error as? AppexError { return error }
        return AppexError(.storage, "cannot \(what) in \(path)", context: context, underlyingError: error)
    }

    package static func open(
        path: String,
        label: String,
        version: Int,
        schema: (Int) -> String,
        secureDelete: Bool = false,
        syncsEveryCommit: Bool = true
    ) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.journalMode = .wal
        configuration.label = label
        // What a caller was told is written must survive a crash of anything, the machine included.
        configuration.prepareDatabase { db in
            if secureDelete { try db.execute(sql: "PRAGMA secure_delete = ON") }
            // The -wal file stays when the last connection closes (as Apple's SQLite does by
            // default): otherwise every short-lived process — a widget reading three stores —
            // deleted it at exit and made it again at start, each time syncing the file and its
            // directory (found by strace: 12 of a widget launch's 14 fdatasync). Durability is
            // unchanged: a commit is synced as before.
            var persist: Int32 = 1
            _ = sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
        }
        var attempt = 0
        while true {
            do {
                let queue = try DatabaseQueue(path: path, configuration: configuration)
                // After GRDB's WAL setup, which sets `synchronous = NORMAL` (after
                // `prepareDatabase` runs, so it cannot be set there): NORMAL does not sync each
                // commit in WAL mode, and a commit could be lost to a power cut. (Found by strace:
                // 18 fdatasync for 2,000 commits; with this, one per commit.)
                let synchronous = syncsEveryCommit ? "FULL" : "NORMAL"
                try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
                // Reading the version costs no write (and no fsync): only a new file is set up.
                let current = try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }
                if current >= version { return queue }
                try queue.inTransaction(.immediate) { db in
                    // Again under the write lock: another process may have upgraded it meanwhile,
                    // and a schema step that alters a table must run once.
                    let locked = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                    if locked >= version { return .commit }
                    try db.execute(sql: schema(locked) + "\nPRAGMA user_version = \(version);")
                    return .commit
                }
                return queue
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && attempt < 20 {
                attempt += 1
                ProcessControl.sleep(microseconds: UInt32(5_000 * attempt))
            }
        }
    }
}
