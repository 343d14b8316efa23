public import AppexCore
import AppexSQLite
import Foundation
import GRDB

/// Whether a process keeps its defaults to itself or shares them through an app group — the
/// engine under the Salesforce SDK's `SFSDKDatasharingHelper` (``DataSharingHelper``, whose
/// `appGroupName` and `appGroupEnabled` are settable) and `msdkUserDefaults`, without the SDK's
/// data-loss bugs.
///
/// ```swift
/// let sharing = try DataSharing(context: try .current())
/// try sharing.enableAppGroup("group.com.example.app")   // moves this process's keys into the group, once
/// let defaults = try sharing.defaults()                  // the group's suite now; the own suite when disabled
/// ```
///
/// A process's own suite lives in `$APPEX_HOME/Containers/<bundle id>/Library/Preferences/`.
/// Only the process's own writes move: the copies a switch makes are marked as migrations in
/// the change log, and never count as the process's writes in a later switch.
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

    static let groupName = "app-group"
    static let groupEnabled = "app-group-enabled"
    private static let instance = "instance"
    private static let synced = "synced-with:"
    /// How many times a switch starts over because the own suite kept changing under it.
    private static let attempts = 50

    /// Opens the data-sharing state of `context`.
    ///
    /// The own container is `$APPEX_HOME/Containers/<bundle id>/` (the owner's:
    /// `Containers/.owner/`, a name no bundle identifier can take), claimed by the bundle's team
    /// the first time, as app groups are.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `teamMismatch` when a bundle of another team owns the container,
    ///   `storage` when the own suite cannot be opened.
    public init(context: ProcessContext, environment: AppexEnvironment = .current()) throws(AppexError) {
        self.context = context
        self.environment = environment
        let suite = context.bundleIdentifier ?? "owner"
        let container = environment.home + "/Containers/" + (context.bundleIdentifier ?? ".owner")
        try AppGroup.checkName(suite, naming: "a bundle's own container")
        do {
            try environment.makePrivateDirectory(container)
        } catch {
            throw AppexError(
                .storage,
                "cannot make the container \(container)",
                context: context.errorContext(path: container),
                underlyingError: error
            )
        }
        if let team = context.team {
            let owner = try AppGroup.claim(container + "/.team", for: team, group: suite)
            if owner != team {
                throw AppexError(
                    .teamMismatch,
                    "the container of \(suite) belongs to team \(owner); \(context.name) is signed by team \(team): a bundle identifier's container is its first team's",
                    context: context.errorContext(path: container)
                )
            }
        }
        standard = try SharedDefaults(
            suiteName: suite,
            container: container,
            environment: environment,
            group: nil,
            refusesWritesWhenShared: true
        )
    }

    /// The app group this process shares its defaults through, when one was ever enabled
    /// (kept when sharing is turned off, as the Salesforce helper keeps it).
    public var appGroupName: String? { try? state().name }

    /// Whether the process's defaults live in ``appGroupName``'s suite.
    public var appGroupEnabled: Bool { (try? state().enabled) ?? false }

    /// The process's defaults: the app group's suite when sharing is on, its own suite otherwise.
    ///
    /// Ask again after a switch: a suite returned before keeps pointing where it pointed. The own
    /// suite refuses writes once sharing is on (`conflict`), so none lands where nobody reads.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` from opening the group (the entitlement may have been removed
    ///   since sharing was turned on: `missingEntitlement` names it).
    public func defaults() throws(AppexError) -> SharedDefaults {
        let state = try state()
        guard state.enabled, let name = state.name else { return standard }
        return try SharedDefaults(group: AppGroup(name, context: context, environment: environment))
    }

    /// Shares this process's defaults through `name`: copies the process's own keys into the
    /// group's suite — all of them the first time, afterwards only those the process wrote
    /// since it last left the group — then empties the own suite. Does nothing when already on
    /// for `name`; turns off another group first.
    ///
    /// The first time, a host app's own values replace the group's (the host migrates its
    /// defaults into the group); an app extension's do not: a key the group already holds —
    /// the login status its host published — keeps the group's value.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `missingEntitlement`/`teamMismatch` when the process may not
    ///   open the group (nothing changes); `conflict` when another process of this bundle
    ///   switches to another group at the same moment, or keeps writing the own suite
    ///   throughout; `storage` when a step fails (a repeated call resumes).
    public func enableAppGroup(_ name: String) throws(AppexError) {
        let group = try AppGroup(name, context: context, environment: environment)
        let current = try state()
        if current.enabled {
            if current.name == name { return }
            try disableAppGroup()
        }
        let target = try SharedDefaults(group: group)
        // Named first: a process killed before the end knows which group holds its copy.
        let instance = try prepare(naming: name)
        let marker = "copied:" + (context.bundleIdentifier ?? "owner") + ":" + instance
        let extensionDefersToGroup = context.kind == .appExtension
        try attempt("turn on app group \(name)") {
            for _ in 0..<Self.attempts {
                // 1. What the process wrote beyond what the group has: its own changes after the
                // group's copy mark, or after its last copy back from the group, if later.
                let mark = try target.database.read { db in try DefaultsTable.meta(marker, in: db).flatMap(Int64.init)
                }
                guard
                    let found = try standard.database.read({ db in
                        try Self.changes(after: mark ?? 0, toward: name, in: db)
                    })
                else {
                    return  // another process of this bundle finished the switch
                }
                // 2. Copy it into the group and move the mark, in one transaction.
                var copied = false
                try target.database.inTransaction(.immediate) { db in
                    guard try DefaultsTable.meta(marker, in: db).flatMap(Int64.init) == mark else { return .rollback }
                    for (key, value) in found.changes {
                        // An extension's first copy never replaces what the group holds: those
                        // are values its host (or a sibling) published, such as the login status,
                        // and the extension's own copy of them is from before it shared anything.
                        if found.first && extensionDefersToGroup, try DefaultsTable.read(key, in: db) != nil {
                            continue
                        }
                        try DefaultsTable.write(value, forKey: key, migrated: true, in: db)
                    }
                    try DefaultsTable.setMeta(marker, String(found.through), in: db)
                    copied = true
                    return .commit
                }
                guard copied else { continue }  // a sibling process copied meanwhile
                target.didCommit()
                // 3. Empty the own suite and switch, unless it was written to since step 1.
                var switched = false
                try standard.database.inTransaction(.immediate) { db in
                    try Self.requireRecorded(name, in: db)
                    if try DefaultsTable.meta(Self.groupEnabled, in: db) == "1" {
                        switched = true
                        return .commit
                    }
                    guard try DefaultsTable.lastSequence(in: db) == found.through else { return .rollback }
                    for (key, _) in try DefaultsTable.entries(in: db) {
                        try DefaultsTable.write(nil, forKey: key, migrated: true, in: db)
                    }
                    try DefaultsTable.setMeta(Self.groupEnabled, "1", in: db)
                    switched = true
                    return .commit
                }
                if switched {
                    standard.didCommit()
                    return
                }
            }
            throw AppexError(
                .conflict,
                "\(standard.path) kept changing during \(Self.attempts) attempts to turn on app group \(name): another process of \(context.name) writes its own defaults without pause; try again",
                context: context.errorContext(path: standard.path, group: name)
            )
        }
    }

    /// Keeps this process's defaults to itself again: copies every key of the group's suite into
    /// the own suite, then uses the own suite. The group keeps its keys. Does nothing when
    /// sharing is off.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` from opening the group, or `storage` (a repeated call resumes).
    public func disableAppGroup() throws(AppexError) {
        let current = try state()
        guard current.enabled, let name = current.name else { return }
        let target = try SharedDefaults(group: AppGroup(name, context: context, environment: environment))
        try attempt("turn off app group \(name)") {
            // 1. Read the group.
            let values = try target.database.read(DefaultsTable.entries)
            // 2. Copy it into the own suite, note how far the own suite is in step with the group,
            // and switch, in one transaction — unless another process of this bundle switched
            // first: then the own suite may already hold writes newer than this copy. Killed
            // before, the process still uses the group, which holds everything; switched on
            // again later, only what the process writes after this is copied to the group.
            var switched = false
            try standard.database.inTransaction(.immediate) { db in
                guard try DefaultsTable.meta(Self.groupEnabled, in: db) == "1",
                    try DefaultsTable.meta(Self.groupName, in: db) == name
                else {
                    return .rollback
                }
                for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                    try DefaultsTable.write(value, forKey: key, migrated: true, in: db)
                }
                try DefaultsTable.setMeta(Self.synced + name, String(try DefaultsTable.lastSequence(in: db)), in: db)
                try DefaultsTable.setMeta(Self.groupEnabled, "0", in: db)
                switched = true
                return .commit
            }
            if switched { standard.didCommit() }
        }
    }

    /// Records `name` (`nil`: none) as the app group of this process while sharing is off, moving
    /// no key: ``enableAppGroup(_:)`` with no name later uses it (``DataSharingHelper``'s
    /// `appGroupName` setter). Checks the entitlement first: a refusal changes nothing.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `missingEntitlement`/`teamMismatch`/`invalidName` for a group
    ///   the process may not open; `conflict` when sharing is on (turn it off first, or switch
    ///   with ``enableAppGroup(_:)``); `storage`.
    func recordAppGroupName(_ name: String?) throws(AppexError) {
        if let name { _ = try AppGroup(name, context: context, environment: environment) }
        try SharedDatabase.write(
            standard.database,
            "record app group \(name ?? "(none)")",
            path: standard.path,
            context: context.errorContext(path: standard.path, group: name)
        ) { db in
            if try DefaultsTable.meta(Self.groupEnabled, in: db) == "1",
                let current = try DefaultsTable.meta(Self.groupName, in: db), current != name
            {
                throw AppexError(
                    .conflict,
                    "data sharing is on with app group \(current): \(context.name) cannot name another group without switching to it; nothing was changed",
                    context: context.errorContext(path: standard.path, group: current)
                )
            }
            try DefaultsTable.setMeta(Self.groupName, name, in: db)
        }
    }

    // MARK: - Steps

    /// The recorded group and whether sharing is on, read together.
    func state() throws(AppexError) -> (name: String?, enabled: Bool) {
        do {
            return try standard.database.unsafeReentrantRead { db in
                (
                    try DefaultsTable.meta(Self.groupName, in: db),
                    try DefaultsTable.meta(Self.groupEnabled, in: db) == "1"
                )
            }
        } catch {
            throw AppexError(
                .storage,
                "cannot read the data-sharing state in \(standard.path)",
                context: context.errorContext(path: standard.path),
                underlyingError: error
            )
        }
    }

    /// Records `name` as the group and returns the own suite's identity (made once): the group's
    /// copy mark is kept per own suite, so a suite made anew never inherits an old mark.
    private func prepare(naming name: String) throws(AppexError) -> String {
        do {
            var instance = ""
            try standard.database.inTransaction(.immediate) { db in
                try Self.refuseIfOnElsewhere(name, in: db)
                try DefaultsTable.setMeta(Self.groupName, name, in: db)
                if let existing = try DefaultsTable.meta(Self.instance, in: db) {
                    instance = existing
                } else {
                    instance = UUID().uuidString
                    try DefaultsTable.setMeta(Self.instance, instance, in: db)
                }
                return .commit
            }
            return instance
        } catch let error as AppexError {
            throw error
        } catch {
            throw AppexError(
                .storage,
                "cannot record app group \(name) in \(standard.path)",
                context: context.errorContext(path: standard.path, group: name),
                underlyingError: error
            )
        }
    }

    /// Refuses when the own suite is on with another group than `name`: another process of this
    /// bundle switched there meanwhile (a switch turns the old group off before it starts).
    private static func refuseIfOnElsewhere(_ name: String, in db: Database) throws {
        guard try DefaultsTable.meta(groupEnabled, in: db) == "1",
            let recorded = try DefaultsTable.meta(groupName, in: db), recorded != name
        else { return }
        throw AppexError(
            .conflict,
            "another process of this bundle turned on app group \(recorded) meanwhile: nothing was changed",
            context: AppexError.Context(group: recorded)
        )
    }

    /// Refuses unless `name` is still the group being switched to: another process of this
    /// bundle started a switch to another group meanwhile, and only one may finish.
    private static func requireRecorded(_ name: String, in db: Database) throws {
        let recorded = try DefaultsTable.meta(groupName, in: db)
        guard recorded != name else { return }
        throw AppexError(
            .conflict,
            "another process of this bundle started turning on app group \(recorded ?? "?") meanwhile: the keys copied to \(name) stay there, the process's defaults follow \(recorded ?? "?")",
            context: AppexError.Context(group: recorded)
        )
    }

    /// The final value of every key the process itself changed (not a migration) after
    /// `sequence`, or after its last copy back from `group` if later (`nil` value: removed),
    /// and the last change's number; `nil` when the suite already switched to `group`.
    private static func changes(
        after sequence: Int64,
        toward group: String,
        in db: Database
    ) throws -> (changes: [(String, PropertyListValue?)], through: Int64, first: Bool)? {
        try requireRecorded(group, in: db)
        if try DefaultsTable.meta(groupEnabled, in: db) == "1" { return nil }
        let start = max(sequence, try DefaultsTable.meta(synced + group, in: db).flatMap(Int64.init) ?? 0)
        let through = try DefaultsTable.lastSequence(in: db)
        let entries = try DefaultsTable.entries(in: db)
        guard start > 0 else { return (entries.sorted { $0.key < $1.key }, through, true) }
        let keys = try String.fetchAll(
            db,
            sql: "SELECT DISTINCT key FROM change WHERE sequence > ? AND origin = 0 ORDER BY key",
            arguments: [start]
        )
        return (keys.map { ($0, entries[$0]) }, through, false)
    }

    private func attempt(_ what: String, _ body: () throws -> Void) throws(AppexError) {
        do { try body() } catch let error as AppexError { throw error } catch {
            throw AppexError(
                .storage,
                "cannot \(what) for \(context.name) (\(standard.path))",
                context: context.errorContext(path: standard.path),
                underlyingError: error
            )
        }
    }
}

extension SharedDefaults {
    /// The process's defaults as its data-sharing state says: its app group's suite when sharing
    /// is on, its own suite otherwise (the Salesforce SDK's `msdkUserDefaults`). See ``DataSharing``.
    public static func standardOrGroup(
        context: ProcessContext,
        environment: AppexEnvironment = .current()
    ) throws(AppexError) -> SharedDefaults {
        try DataSharing(context: context, environment: environment).defaults()
    }
}
