public import AppexCore
import Foundation
import GRDB

/// Whether a process keeps its defaults to itself or shares them through an app group — the
/// Salesforce SDK's `SFSDKDatasharingHelper` (`appGroupName`, `appGroupEnabled`) and
/// `msdkUserDefaults`, without its data-loss bugs.
///
/// ```swift
/// let sharing = try DataSharing(context: try .current())
/// try sharing.enableAppGroup("group.com.example.app")   // moves this process's keys into the group, once
/// let defaults = try sharing.defaults()                  // the group's suite now; the own suite when disabled
/// ```
///
/// A process's own suite lives in `$APPEX_HOME/Containers/<bundle id>/Library/Preferences/`.
/// Turning the group on copies every key of the own suite into the group's suite (the own value
/// wins over a group value of the same key), then empties the own suite; turning it off copies
/// every key of the group's suite back (the group keeps its keys: other processes use them).
/// The choice is recorded in the own suite, so it holds for every later launch, and
/// ``SharedDefaults/standardOrGroup(context:environment:)`` follows it.
///
/// Each step is one SQLite transaction. SQLite cannot commit two files at once, so each side
/// records, in the transaction that copies, how far it is in step with the other: the group
/// notes how far into the own suite's change log it has copied, the own suite notes where it was
/// when it copied the group back. The own suite is emptied only when nothing was written to it
/// since the copy. A process killed at any moment loses no key; a repeated switch copies only
/// what changed since, so an older own value never overwrites a newer one another process wrote
/// to the group.
public final class DataSharing: Sendable {
    /// The process whose defaults these are.
    public let context: ProcessContext
    /// Where the suites live.
    public let environment: AppexEnvironment
    /// The process's own suite: `<bundle id>` in its own container.
    public let standard: SharedDefaults

    private static let groupName = "app-group"
    private static let groupEnabled = "app-group-enabled"
    private static let instance = "instance"
    private static let synced = "synced-with:"

    /// Opens the data-sharing state of `context` (the owner's is `appex.owner`).
    ///
    /// - Throws: ``StoreError`` `storage` when the own suite cannot be opened.
    public init(context: ProcessContext, environment: AppexEnvironment = .current()) throws(StoreError) {
        self.context = context
        self.environment = environment
        let name = context.bundleIdentifier ?? "appex.owner"
        standard = try SharedDefaults(suiteName: name, container: environment.home + "/Containers/" + name, environment: environment, group: nil)
    }

    /// The app group this process shares its defaults through, when one was ever enabled
    /// (kept when sharing is turned off, as the Salesforce helper keeps it).
    public var appGroupName: String? { try? state().name }

    /// Whether the process's defaults live in ``appGroupName``'s suite.
    public var appGroupEnabled: Bool { (try? state().enabled) ?? false }

    /// The process's defaults: the app group's suite when sharing is on, its own suite otherwise.
    ///
    /// - Throws: ``StoreError`` from opening the group (the entitlement may have been removed
    ///   since sharing was turned on: `missingEntitlement` names it).
    public func defaults() throws(StoreError) -> SharedDefaults {
        let state = try state()
        guard state.enabled, let name = state.name else { return standard }
        return try SharedDefaults(group: AppGroup(name, context: context, environment: environment))
    }

    /// Shares this process's defaults through `name`: copies the own suite's keys into the
    /// group's suite, once, then empties the own suite. Does nothing when already on for `name`;
    /// turns off another group first.
    ///
    /// - Throws: ``StoreError`` `missingEntitlement`/`teamMismatch` when the process may not
    ///   open the group (nothing changes), `storage` when a step fails (a repeated call resumes).
    public func enableAppGroup(_ name: String) throws(StoreError) {
        let group = try AppGroup(name, context: context, environment: environment)
        let current = try state()
        if current.enabled {
            if current.name == name { return }
            try disableAppGroup()
        }
        let target = try SharedDefaults(group: group)
        // Named first: a process killed before the end knows which group holds its copy.
        let instance = try prepare(naming: name)
        let marker = "copied:" + (context.bundleIdentifier ?? "appex.owner") + ":" + instance
        try attempt("turn on app group \(name)") {
            while true {
                // 1. What the own suite holds beyond what the group already has: changes after the
                // group's copy mark, or after the last copy back from the group, whichever is later.
                let mark = try target.database.read { db in try SharedDefaults.meta(marker, in: db).flatMap(Int64.init) }
                guard let found = try standard.database.read({ db in try Self.changes(after: mark ?? 0, syncedWith: name, in: db) }) else {
                    return  // another process of this bundle finished the switch
                }
                // 2. Copy it into the group and move the mark, in one transaction.
                var copied = false
                try target.database.inTransaction(.immediate) { db in
                    guard try SharedDefaults.meta(marker, in: db).flatMap(Int64.init) == mark else { return .rollback }
                    for (key, value) in found.changes { try SharedDefaults.write(value, forKey: key, in: db) }
                    try SharedDefaults.setMeta(marker, String(found.through), in: db)
                    copied = true
                    return .commit
                }
                guard copied else { continue }  // a sibling process copied meanwhile
                // 3. Empty the own suite and switch, unless it was written to since step 1.
                var switched = false
                try standard.database.inTransaction(.immediate) { db in
                    if try SharedDefaults.meta(Self.groupEnabled, in: db) == "1" { switched = true; return .commit }
                    guard try SharedDefaults.lastSequence(in: db) == found.through else { return .rollback }
                    for (key, _) in try SharedDefaults.entries(in: db) { try SharedDefaults.write(nil, forKey: key, in: db) }
                    try SharedDefaults.setMeta(Self.groupEnabled, "1", in: db)
                    switched = true
                    return .commit
                }
                if switched { return }
            }
        }
    }

    /// Keeps this process's defaults to itself again: copies every key of the group's suite into
    /// the own suite, then uses the own suite. The group keeps its keys. Does nothing when
    /// sharing is off.
    ///
    /// - Throws: ``StoreError`` from opening the group, or `storage` (a repeated call resumes).
    public func disableAppGroup() throws(StoreError) {
        let current = try state()
        guard current.enabled, let name = current.name else { return }
        let target = try SharedDefaults(group: AppGroup(name, context: context, environment: environment))
        try attempt("turn off app group \(name)") {
            // 1. Read the group.
            let values = try target.database.read(SharedDefaults.entries)
            // 2. Copy it into the own suite, note how far the own suite is in step with the group,
            // and switch, in one transaction. Killed before, the process still uses the group,
            // which holds everything; switched on again later, only what the process writes
            // after this is copied to the group, so no newer group value is overwritten by this copy.
            try standard.database.inTransaction(.immediate) { db in
                for (key, value) in values.sorted(by: { $0.key < $1.key }) { try SharedDefaults.write(value, forKey: key, in: db) }
                try SharedDefaults.setMeta(Self.synced + name, String(try SharedDefaults.lastSequence(in: db)), in: db)
                try SharedDefaults.setMeta(Self.groupEnabled, "0", in: db)
                return .commit
            }
        }
    }

    // MARK: - Steps

    private func state() throws(StoreError) -> (name: String?, enabled: Bool) {
        do {
            return try standard.database.read { db in
                (try SharedDefaults.meta(Self.groupName, in: db), try SharedDefaults.meta(Self.groupEnabled, in: db) == "1")
            }
        } catch {
            throw StoreError(.storage, "cannot read the data-sharing state in \(standard.path): \(error)")
        }
    }

    /// Records `name` as the group and returns the own suite's identity (made once): the group's
    /// copy mark is kept per own suite, so a suite made anew never inherits an old mark.
    private func prepare(naming name: String) throws(StoreError) -> String {
        do {
            var instance = ""
            try standard.database.inTransaction(.immediate) { db in
                try SharedDefaults.setMeta(Self.groupName, name, in: db)
                if let existing = try SharedDefaults.meta(Self.instance, in: db) {
                    instance = existing
                } else {
                    instance = UUID().uuidString
                    try SharedDefaults.setMeta(Self.instance, instance, in: db)
                }
                return .commit
            }
            return instance
        } catch {
            throw StoreError(.storage, "cannot record app group \(name) in \(standard.path): \(error)")
        }
    }

    /// The final value of every key the own suite changed after `sequence` (or after its last
    /// copy back from `group`, if later; `nil` value: removed), and the last change's number;
    /// `nil` when the suite already switched to the group.
    private static func changes(after sequence: Int64, syncedWith group: String, in db: Database) throws -> (changes: [(String, PropertyListValue?)], through: Int64)? {
        if try SharedDefaults.meta(groupEnabled, in: db) == "1" { return nil }
        let start = max(sequence, try SharedDefaults.meta(synced + group, in: db).flatMap(Int64.init) ?? 0)
        let through = try SharedDefaults.lastSequence(in: db)
        let entries = try SharedDefaults.entries(in: db)
        guard start > 0 else { return (entries.sorted { $0.key < $1.key }, through) }
        let keys = try String.fetchAll(db, sql: "SELECT DISTINCT key FROM change WHERE sequence > ? ORDER BY key", arguments: [start])
        return (keys.map { ($0, entries[$0]) }, through)
    }

    private func attempt(_ what: String, _ body: () throws -> Void) throws(StoreError) {
        do { try body() } catch let error as StoreError { throw error } catch {
            throw StoreError(.storage, "cannot \(what) for \(context.name) (\(standard.path)): \(error)")
        }
    }
}

extension SharedDefaults {
    /// The process's defaults as its data-sharing state says: its app group's suite when sharing
    /// is on, its own suite otherwise (the Salesforce SDK's `msdkUserDefaults`). See ``DataSharing``.
    public static func standardOrGroup(context: ProcessContext, environment: AppexEnvironment = .current()) throws(StoreError) -> SharedDefaults {
        try DataSharing(context: context, environment: environment).defaults()
    }
}
