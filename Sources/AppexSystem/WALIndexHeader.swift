import CAppexSystem

/// SQLite's WAL-index header, read from the connection's own mapping of the `-shm` file.
package enum WALIndexHeader {
    /// Copies the first of the two 48-byte header copies at `shm` into `words` and returns `true`
    /// when both copies agree; `false` while a writer changes them (read the database instead).
    /// Loads are atomic and ordered as SQLite's own readers order them (sqlite.org/walformat.html).
    package static func read(_ shm: UnsafeRawPointer, into words: UnsafeMutablePointer<UInt64>) -> Bool {
        cappex_wal_index_header(shm, words) == 1
    }
}
