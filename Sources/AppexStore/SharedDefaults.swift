public import AppexCore
import AppexSQLite
import AppexSystem
import AppexVocabulary
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
/// Values are property-list values (``/AppexCore/PropertyListValue``: strings, numbers, booleans, dates,
/// data, arrays, dictionaries) or any `Codable` value (``set(encoded:forKey:)``).
/// ``update(_:_:)-6u3kl`` is an atomic read-modify-write across processes: no concurrent update from
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
    let cache = Mutex(ReadCache())
    /// The database's WAL index, mapped to tell, without a query, whether anything was committed
    /// since the cache was filled; `nil` where it cannot be mapped (reads then always query).
    let walIndex: WALIndex?

    /// Opens (creating if needed) the suite `suiteName` of `group`.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalidName` for a suite name that cannot name a file,
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
        database = try SharedDatabase.openPrivate(
            path: path,
            naming: "the defaults",
            context: AppexError.Context(group: group?.identifier),
            label: "appex.defaults",
            version: DefaultsTable.version,
            schema: DefaultsTable.schema
        )
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
    /// - Parameters:
    ///   - key: the key to change.
    ///   - transform: gets the stored value (`nil` when absent; registered defaults do
    ///     not count) and returns the new one (`nil` removes the key).
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
                if refusesWritesWhenShared, let group = try DefaultsTable.meta(DataSharing.groupName, in: db),
                    try DefaultsTable.meta(DataSharing.groupEnabled, in: db) == "1"
                {
                    throw AppexError(
                        .conflict,
                        "this process's defaults moved to app group \(group) (data sharing is on), so \(path) no longer holds them: write through DataSharing.defaults() or SharedDefaults.standardOrGroup",
                        context: errorContext(key: key)
                    )
                }
                let old = try DefaultsTable.read(key, in: db)
                let new: PropertyListValue?
                do { new = try transform(old) } catch {
                    failure = error
                    return .rollback
                }
                if new != old { try DefaultsTable.write(new, forKey: key, in: db) }
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

    /// As the blocking ``update(_:_:)-6u3kl``, waiting for the write lock off Swift's cooperative pool.
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
    /// - Throws: ``/AppexVocabulary/AppexError`` `corrupt-value`, naming the key, the suite's file and what is
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
    /// - Throws: ``/AppexVocabulary/AppexError`` `storage` when the stored value is not a `Value`.
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
                guard let value = try? DefaultsTable.decode(blob) else { continue }
                found.append(Change(sequence: row["sequence"], key: row["key"], value: value))
            }
            return found
        }) ?? []
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
}
