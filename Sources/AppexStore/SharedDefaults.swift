public import AppexCore
import AppexSQLite
import AppexSystem
public import Foundation
import GRDB
import Synchronization

/// A defaults suite shared by the processes of an app group: the `UserDefaults` API shape,
/// backed by SQLite in the group's container, durable when a setter returns.
///
/// ```swift
/// let defaults = try SharedDefaults(group: AppGroup("group.com.example.app", context: try .current()))
/// try defaults.set(true, forKey: "userLoggedIn")
/// let count = try defaults.update("launches") { old in .integer((old?.integerValue ?? 0) + 1) }
/// ```
///
/// Values are property-list values (``PropertyListValue``: strings, numbers, booleans, dates,
/// data, arrays, dictionaries) or any `Codable` value (``set(encoded:forKey:)``).
/// ``update(_:_:)`` is an atomic read-modify-write across processes: no concurrent update from
/// another process is ever lost. The file is
/// `<container>/Library/Preferences/<suite>.sqlite` (WAL, `synchronous = FULL`).
public final class SharedDefaults: Sendable {
    /// The suite's name (by default the group's identifier).
    public let suiteName: String
    /// The group whose container holds the suite; `nil` for a process's own suite
    /// (``DataSharing/standard``).
    public let group: AppGroup?
    /// The SQLite file.
    public let path: String
    /// Touched after every commit, so observers wake when the commit is visible (a WAL write
    /// wakes them earlier, before the commit can be read).
    private let commitSignal: String
    /// Set on a process's own suite: writes are refused once data sharing moved the process's
    /// defaults into a group (they would land where nobody reads them).
    let refusesWritesWhenShared: Bool
    let database: DatabaseQueue
    private let registered = Mutex<[String: PropertyListValue]>([:])
    private let cache = Mutex(ReadCache())
    /// The database's WAL index, mapped to tell, without a query, whether anything was committed
    /// since the cache was filled; `nil` where it cannot be mapped (reads then always query).
    private let walIndex: WALIndex?

    /// Opens (creating if needed) the suite `suiteName` of `group`.
    ///
    /// - Throws: ``AppexError`` `invalidName` for a suite name that cannot name a file,
    ///   `storage` when the database cannot be opened (the path is named).
    public convenience init(suiteName: String? = nil, group: AppGroup) throws(AppexError) {
        try self.init(
            suiteName: suiteName ?? group.identifier,
            container: group.containerPath,
            environment: group.environment,
            group: group
        )
    }

    /// Opens the suite `suite` in `<container>/Library/Preferences/`; `refusesWritesWhenShared`
    /// for a process's own suite (``DataSharing``).

    init(
        suiteName suite: String,
        container: String,
        environment: AppexEnvironment,
        group: AppGroup?,
        refusesWritesWhenShared: Bool = false
    ) throws(AppexError) {
        try AppGroup.checkName(suite, naming: "a defaults suite")
        self.suiteName = suite
        self.group = group
        self.refusesWritesWhenShared = refusesWritesWhenShared
        let directory = container + "/Library/Preferences"
        path = directory + "/" + suite + ".sqlite"
        commitSignal = path + "-committed"
        do {
            try environment.makePrivateDirectory(directory)  // and its parents, 0700 all
            try environment.makePrivateFile(path)
        } catch {
            throw AppexError(
                .storage,
                "cannot make the defaults file \(path)",
                context: AppexError.Context(path: path, group: group?.identifier),
                underlyingError: error
            )
        }
        do {
            database = try SharedDatabase.open(path: path, label: "appex.defaults", version: 3) { current in
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
        } catch {
            throw AppexError(
                .storage,
                "cannot open the defaults \(path)",
                context: AppexError.Context(path: path, group: group?.identifier),
                underlyingError: error
            )
        }
        // Opening read the database, so its connection has mapped the WAL index; the connection
        // lives as long as this instance.
        walIndex = WALIndex(database: database)
    }

    // MARK: - Writing

    /// Stores `value` for `key` (`nil` removes it); durable when this returns.
    public func set(_ value: PropertyListValue?, forKey key: String) throws(AppexError) {
        try update(key) { _ in value }
    }

    /// Stores a Boolean.
    public func set(_ value: Bool, forKey key: String) throws(AppexError) { try set(.boolean(value), forKey: key) }
    /// Stores an integer.
    public func set(_ value: Int, forKey key: String) throws(AppexError) { try set(.integer(value), forKey: key) }
    /// Stores a floating-point number.
    public func set(_ value: Double, forKey key: String) throws(AppexError) { try set(.real(value), forKey: key) }
    /// Stores a string.
    public func set(_ value: String, forKey key: String) throws(AppexError) { try set(.string(value), forKey: key) }
    /// Stores bytes.
    public func set(_ value: Data, forKey key: String) throws(AppexError) { try set(.data(value), forKey: key) }
    /// Stores a date.
    public func set(_ value: Date, forKey key: String) throws(AppexError) { try set(.date(value), forKey: key) }

    /// Stores any `Encodable` value (JSON inside the entry); read it with ``decoded(_:forKey:)``.
    public func set<Value: Encodable>(encoded value: Value, forKey key: String) throws(AppexError) {
        let data: Data
        do { data = try JSONEncoder().encode(value) } catch {
            throw AppexError(
                .storage,
                "cannot encode the value for \(key) in \(path)",
                context: errorContext(key: key),
                underlyingError: error
            )
        }
        try set(.data(data), forKey: key)
    }

    /// Removes `key`.
    public func removeObject(forKey key: String) throws(AppexError) {
        try set(nil, forKey: key)
    }

    /// Reads, changes and writes `key` in one transaction that excludes every other writer, in
    /// any process: concurrent updates are applied one after the other, none lost.
    ///
    /// Waits on this thread while another process holds the suite's write lock (up to the
    /// busy timeout): from async code, use the async form, which waits off Swift's pool.
    ///
    /// - Parameter transform: gets the stored value (`nil` when absent; registered defaults do
    ///   not count) and returns the new one (`nil` removes the key).
    /// - Returns: the new value.
    @available(*, noasync, message: "may wait for another process's write lock on this thread; use the async update")
    @discardableResult
    public func update(
        _ key: String,
        _ transform: (PropertyListValue?) throws -> PropertyListValue?
    ) throws(AppexError) -> PropertyListValue? {
        var result: PropertyListValue?
        var failure: (any Error)?
        do {
            try database.inTransaction(.immediate) { db in
                if refusesWritesWhenShared, let group = try Self.meta(DataSharing.groupName, in: db),
                    try Self.meta(DataSharing.groupEnabled, in: db) == "1"
                {
                    throw AppexError(
                        .conflict,
                        "this process's defaults moved to app group \(group) (data sharing is on), so \(path) no longer holds them: write through DataSharing.defaults() or SharedDefaults.standardOrGroup",
                        context: errorContext(key: key)
                    )
                }
                let old = try Self.read(key, in: db)
                let new: PropertyListValue?
                do { new = try transform(old) } catch {
                    failure = error
                    return .rollback
                }
                if new != old { try Self.write(new, forKey: key, in: db) }
                result = new
                return .commit
            }
        } catch let error as AppexError {
            throw error
        } catch {
            throw AppexError(
                .storage,
                "cannot write \(key) to \(path)",
                context: errorContext(key: key),
                underlyingError: error
            )
        }
        if let failure {
            if let error = failure as? AppexError { throw error }
            throw AppexError(
                .storage,
                "the update of \(key) in \(path) was abandoned by its transform, which threw",
                context: errorContext(key: key),
                underlyingError: failure
            )
        }
        didCommit()
        return result
    }

    /// As the blocking ``update(_:_:)``, waiting for the write lock off Swift's cooperative pool.
    @discardableResult
    public func update(
        _ key: String,
        _ transform: @escaping @Sendable (PropertyListValue?) throws -> PropertyListValue?
    ) async throws(AppexError) -> PropertyListValue? {
        try await withoutBlockingThePool { () throws(AppexError) in try self.update(key, transform) }
    }

    // MARK: - Reading

    /// Values used when a key is not stored (kept in this process only, as `UserDefaults` does).
    public func register(defaults: [String: PropertyListValue]) {
        registered.withLock { $0.merge(defaults) { _, new in new } }
    }

    /// The stored value of `key`, else its registered default, else `nil`. A database that
    /// cannot be read reads as absent (writes report such failures).
    ///
    /// Reads come from a cache in this instance, checked against the database's WAL index on
    /// every read (a memory compare, no query): a read sees every write committed before it
    /// began, by any process.
    /// A stored value that cannot be read (written outside Appex, or damaged) reads as absent
    /// here, as `UserDefaults` has no way to say otherwise; ``value(forKey:)`` names the problem.
    public func object(forKey key: String) -> PropertyListValue? {
        if let stored = storedValues({ $0.values[key] }) { return stored }
        return registered.withLock { $0[key] }
    }

    /// The stored value of `key`, else its registered default, else `nil` — as
    /// ``object(forKey:)``, except that a stored value that cannot be read is an error rather
    /// than absent. Only that key fails: every other key reads as before.
    ///
    /// - Throws: ``AppexError`` `corrupt-value`, naming the key, the suite's file and what is
    ///   wrong with the bytes (a set, a UID, damage); `storage` when the database cannot be read.
    public func value(forKey key: String) throws(AppexError) -> PropertyListValue? {
        var failure: AppexError?
        let stored = storedValues { cache -> PropertyListValue? in
            if let reason = cache.unreadable[key] {
                failure = AppexError(
                    .corruptValue,
                    "the value of \(key) in \(path) cannot be read: \(reason)",
                    context: errorContext(key: key)
                )
            }
            if cache.failed {
                failure = AppexError(.storage, "cannot read the defaults \(path)", context: errorContext())
            }
            return cache.values[key]
        }
        if let failure { throw failure }
        if let stored { return stored }
        return registered.withLock { $0[key] }
    }

    /// The keys whose stored value cannot be read, each with what is wrong with it.
    package var unreadableKeys: [String: String] {
        storedValues { $0.unreadable }
    }

    /// The value as a Boolean: `false` when absent (numbers: not zero; strings: YES/true/1).
    public func bool(forKey key: String) -> Bool {
        switch object(forKey: key) {
        case .boolean(let value): value
        case .integer(let value): value != 0
        case .real(let value): value != 0
        case .string(let value): ["yes", "true", "1"].contains(value.lowercased())
        default: false
        }
    }

    /// The value as an integer: 0 when absent or not a number.
    public func integer(forKey key: String) -> Int {
        switch object(forKey: key) {
        case .integer(let value): value
        case .real(let value): value.isFinite ? Int(exactly: value.rounded(.towardZero)) ?? 0 : 0
        case .boolean(let value): value ? 1 : 0
        case .string(let value): Int(value) ?? 0
        default: 0
        }
    }

    /// The value as a floating-point number: 0 when absent or not a number.
    public func double(forKey key: String) -> Double {
        switch object(forKey: key) {
        case .real(let value): value
        case .integer(let value): Double(value)
        case .boolean(let value): value ? 1 : 0
        case .string(let value): Double(value) ?? 0
        default: 0
        }
    }

    /// The value as a string (numbers are written out), or `nil`.
    public func string(forKey key: String) -> String? {
        switch object(forKey: key) {
        case .string(let value): value
        case .integer(let value): String(value)
        case .real(let value): String(value)
        default: nil
        }
    }

    /// The value as bytes, or `nil`.
    public func data(forKey key: String) -> Data? {
        if case .data(let value) = object(forKey: key) { value } else { nil }
    }
    /// The value as a date, or `nil`.
    public func date(forKey key: String) -> Date? {
        if case .date(let value) = object(forKey: key) { value } else { nil }
    }
    /// The value as an array, or `nil`.
    public func array(forKey key: String) -> [PropertyListValue]? { object(forKey: key)?.arrayValue }
    /// The value as a dictionary, or `nil`.
    public func dictionary(forKey key: String) -> [String: PropertyListValue]? { object(forKey: key)?.dictionaryValue }

    /// A value stored with ``set(encoded:forKey:)``, decoded; `nil` when absent.
    ///
    /// - Throws: ``AppexError`` `storage` when the stored value is not a `Value`.
    public func decoded<Value: Decodable>(_ type: Value.Type, forKey key: String) throws(AppexError) -> Value? {
        guard case .data(let data) = try value(forKey: key) else { return nil }
        do { return try JSONDecoder().decode(Value.self, from: data) } catch {
            throw AppexError(
                .storage,
                "the value of \(key) in \(path) is not a \(Value.self)",
                context: errorContext(key: key),
                underlyingError: error
            )
        }
    }

    /// Every registered default, overridden by every stored value.
    public func dictionaryRepresentation() -> [String: PropertyListValue] {
        var result = registered.withLock { $0 }
        result.merge(storedValues { $0.values }) { _, new in new }
        return result
    }

    /// Wakes observers in every process: called after each commit, once it is visible.
    func didCommit() { touchFile(commitSignal) }

    // MARK: - Observing

    /// One committed change, as an observer sees it.
    public struct Change: Sendable, Equatable {
        /// The change's number in the suite: strictly increasing in commit order, across processes.
        public let sequence: Int64
        /// The key that changed.
        public let key: String
        /// The value this change committed (`nil`: removed).
        public let value: PropertyListValue?
    }

    /// The logged changes after `sequence`, oldest first, each with the value it committed.
    func changes(after sequence: Int64) -> [Change] {
        (try? SharedDatabase.snapshot(database) { db -> [Change] in
            var found: [Change] = []
            let statement = try db.cachedStatement(
                sql: "SELECT sequence, key, value FROM change WHERE sequence > ? ORDER BY sequence"
            )
            let rows = try Row.fetchCursor(statement, arguments: [sequence])
            while let row = try rows.next() {
                let blob: Data? = row["value"]
                guard let blob else {
                    found.append(Change(sequence: row["sequence"], key: row["key"], value: nil))
                    continue
                }
                // A value no reader can decode (written outside Appex) is passed over, not
                // delivered as a removal, and does not stop the observer or touch other keys.
                guard let value = try? Self.decode(blob) else { continue }
                found.append(Change(sequence: row["sequence"], key: row["key"], value: value))
            }
            return found
        }) ?? []
    }

    // MARK: - The read cache

    /// The stored values as of a WAL-index header.
    private struct ReadCache {
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
    private func storedValues<Result>(_ body: (ReadCache) -> Result) -> Result {
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
    private func refresh(_ cache: inout ReadCache) throws {
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
                        cache.values[key] = try Self.decode(blob)
                        cache.unreadable[key] = nil
                    } catch {
                        cache.values[key] = nil
                        cache.unreadable[key] = error.message
                    }
                }
            } else {
                (cache.values, cache.unreadable) = try Self.contents(in: db)
                cache.sequence = try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM change") ?? 0
            }
        }
    }

    // MARK: - Storage

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

    /// What an error about `key` (or the whole suite) in this suite is about.
    private func errorContext(key: String? = nil) -> AppexError.Context {
        AppexError.Context(
            bundleIdentifier: group?.context.bundleIdentifier,
            path: path,
            key: key,
            group: group?.identifier
        )
    }

    /// Stores `value` (`nil`: removes the key) and logs the change; inside a write transaction.
    ///
    /// - Parameter migrated: the change is a data-sharing migration's copy, not the process's
    ///   own write (``DataSharing`` copies only the process's own writes).
    /// - Throws: ``AppexError`` `invalidValue` when the value could not be read back.
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
    private static func encode(_ value: PropertyListValue) throws -> Data {
        try PropertyListFormat.binary.encode(["v": value])
    }

    /// Reads a stored value with Appex's own property-list reader (never Foundation's: the
    /// bytes may come from any process that can write the group).
    ///
    /// - Throws: what is wrong with the bytes, as a ``AppexError`` `corrupt-value` message.
    private static func decode(_ blob: Data) throws(AppexError) -> PropertyListValue {
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
