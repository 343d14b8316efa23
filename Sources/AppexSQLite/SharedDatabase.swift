package import GRDB
import Foundation

/// Opens SQLite files that several processes share: WAL, `synchronous = FULL`, a busy timeout,
/// and a schema created once, idempotently, inside an IMMEDIATE transaction — so processes that
/// open a new file at the same moment agree, and a lost race for the first switch to WAL is
/// retried. Used by the approval registry (AppexHost) and the shared stores (AppexStore).
package enum SharedDatabase {
    /// Opens (creating if needed) the database at `path`; `schema` runs once, when the file's
    /// `user_version` is below `version`, and must be idempotent (`CREATE ... IF NOT EXISTS`).
    /// The file should exist with its final mode first: SQLite gives its `-wal` and `-shm` files
    /// the database file's mode. `secureDelete` overwrites deleted content with zeros (for
    /// secrets: a deleted item does not linger in free pages).
    package static func open(path: String, label: String, version: Int, schema: String, secureDelete: Bool = false) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.journalMode = .wal
        configuration.label = label
        // What a caller was told is written must survive a crash of anything, the machine included.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            if secureDelete { try db.execute(sql: "PRAGMA secure_delete = ON") }
        }
        var attempt = 0
        while true {
            do {
                let queue = try DatabaseQueue(path: path, configuration: configuration)
                // Reading the version costs no write (and no fsync): only a new file is set up.
                let current = try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }
                if current >= version { return queue }
                try queue.inTransaction(.immediate) { db in
                    try db.execute(sql: schema + "\nPRAGMA user_version = \(version);")
                    return .commit
                }
                return queue
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && attempt < 20 {
                attempt += 1
                usleep(useconds_t(5_000 * attempt))
            }
        }
    }
}
