import AppexCore
import AppexSQLite
import Foundation
import GRDB
import Synchronization

// The read cache: the whole suite in memory, checked on every read against the WAL index.
extension SharedDefaults {
    /// The stored values as of a WAL-index header.
    struct ReadCache {
        var values: [String: PropertyListValue] = [:]
        /// Keys whose stored value cannot be read, with the reason (absent from `values`).
        var unreadable: [String: String] = [:]
        /// The database could not be read at all (`values` is then empty).
        var failed = false
        /// The last change applied to `values` (`nil`: never filled).
        var sequence: Int64?
        /// The header `values` are current for; `nil`: unknown, query before trusting them.
        var header: WALIndex.Header?
    }

    /// Runs `body` on the stored values, current as of the moment of the call: the cache when the
    /// WAL index says nothing was committed since it was filled, else the cache brought up to
    /// date from the change log. A database that cannot be read reads as empty.
    func storedValues<Result>(_ body: (ReadCache) -> Result) -> Result {
        let header = walIndex?.header()
        if let header {
            var answer: Result?
            let current = cache.withLock { cache in
                guard cache.header == header else { return false }
                answer = body(cache)
                return true
            }
            if current, let answer { return answer }
        }
        // Refreshed outside the lock: the query may wait for the database's queue, whose holder
        // (an `update` transform reading the suite) may be waiting for this lock.
        var refreshed = cache.withLock { $0 }
        do {
            try refresh(&refreshed)
            refreshed.header = header
        } catch {
            refreshed = ReadCache()
            refreshed.failed = true
        }
        cache.withLock { cache in
            if (refreshed.sequence ?? -1) >= (cache.sequence ?? -1) { cache = refreshed }
        }
        return body(refreshed)
    }

    /// Brings `cache` up to date: every change logged after its sequence, or a full load.
    func refresh(_ cache: inout ReadCache) throws {
        // Reentrant: an `update` transform may read the suite inside the write transaction.
        try database.unsafeReentrantRead { db in
            if let sequence = cache.sequence {
                let statement = try db.cachedStatement(
                    sql: "SELECT sequence, key, value FROM change WHERE sequence > ? ORDER BY sequence"
                )
                let rows = try Row.fetchCursor(statement, arguments: [sequence])
                while let row = try rows.next() {
                    let key: String = row["key"]
                    let blob: Data? = row["value"]
                    cache.sequence = row["sequence"]
                    guard let blob else {
                        cache.values[key] = nil
                        cache.unreadable[key] = nil
                        continue
                    }
                    // A value no reader can decode (written outside Appex) is an error for its
                    // key alone.
                    do throws(AppexError) {
                        cache.values[key] = try DefaultsTable.decode(blob)
                        cache.unreadable[key] = nil
                    } catch {
                        cache.values[key] = nil
                        cache.unreadable[key] = error.message
                    }
                }
            } else {
                (cache.values, cache.unreadable) = try DefaultsTable.contents(in: db)
                cache.sequence = try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM change") ?? 0
            }
        }
    }
}
