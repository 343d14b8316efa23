import AppexSystem
package import GRDB
import GRDBSQLite

/// The WAL index of a SQLite database (the shared memory of its `-shm` file), as the process's
/// own connection maps it, to tell whether anything was committed since a moment, without a query.
///
/// Every commit rewrites the index header (its frame count, change counter and salts; format at
/// sqlite.org/walformat.html) before the writer releases its lock. So an unchanged header means
/// nothing was committed, and a cache filled under that header is current. The region is the
/// connection's own mapping (the VFS's `xShmMap`): no descriptor of the file is opened here,
/// since closing one would drop the connection's POSIX locks on it. It stays mapped while the
/// connection is open, which the owner of this value guarantees.
package final class WALIndex: Sendable {
    /// The first copy of the header, valid only when both copies agreed.
    package struct Header: Equatable, Sendable {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

        package static func == (a: Header, b: Header) -> Bool {
            a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2
                && a.words.3 == b.words.3 && a.words.4 == b.words.4 && a.words.5 == b.words.5
        }
    }

    private nonisolated(unsafe) let base: UnsafeRawPointer

    /// The index of `database`'s connection; `nil` when the database is not in WAL mode, its VFS
    /// has no shared memory, or the index is not mapped yet.
    package init?(database: DatabaseQueue) {
        let region: UnsafeMutableRawPointer? = database.inDatabase { db in
            var file: UnsafeMutablePointer<sqlite3_file>?
            guard sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
                let file, let methods = file.pointee.pMethods, methods.pointee.iVersion >= 2,
                let map = methods.pointee.xShmMap
            else { return nil }
            var region: UnsafeMutableRawPointer?
            // Region 0 of 32 KiB (SQLite's WAL-index page), not extended: the connection mapped
            // it when it first read the database.
            guard map(file, 0, 32768, 0, &region) == SQLITE_OK else { return nil }
            return region
        }
        guard let region else { return nil }
        base = UnsafeRawPointer(region)
    }

    /// The header now, or `nil` while a commit is rewriting it.
    package func header() -> Header? {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        let agreed = withUnsafeMutablePointer(to: &words) { tuple in
            tuple.withMemoryRebound(to: UInt64.self, capacity: 6) { WALIndexHeader.read(base, into: $0) }
        }
        return agreed ? Header(words: words) : nil
    }
}
