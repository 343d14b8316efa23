import AppexCore
import AppexSQLite
import AppexWidgetKit
import Foundation
import GRDB

/// The widget host's state, in `$APPEX_HOME/Widgets/widgets.sqlite`: each extension's widget
/// descriptors, each widget's last good timeline and last attempt, the reload budget used per
/// day, and the reload requests seen. SQLite in WAL mode, so timelines survive a restart (and
/// `kill -9`) of the widget host, and `appex widgets` reads what `appex widgets run` wrote.
final class WidgetStore: Sendable {
    private let database: DatabaseQueue
    let path: String

    init(environment: AppexEnvironment) throws(AppexError) {
        let folder = environment.home + "/Widgets"
        path = folder + "/widgets.sqlite"
        database = try SharedDatabase.openPrivate(
            path: path,
            naming: "the widget host's state",
            label: "appex.widgets",
            version: 3,
            // What widgets answered can be asked again: a commit survives any process's
            // death without a sync to disk (docs/decisions/0030-shared-defaults.md).
            syncsEveryCommit: false,
            schema: { current in
                // Version 2 adds each placed widget's configuration (its intent's parameters).
                let configuration = """
                    CREATE TABLE IF NOT EXISTS configuration (
                        extension TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        family TEXT NOT NULL,
                        parameters BLOB NOT NULL,
                        PRIMARY KEY (extension, kind, family));
                    """
                // Version 3 marks the reloads a widget's person asked for (no budget taken).
                let byPerson = "ALTER TABLE reload ADD COLUMN byPerson INTEGER NOT NULL DEFAULT 0;"
                if current >= 2 { return byPerson }
                if current >= 1 { return configuration + byPerson }
                return configuration + """
                    CREATE TABLE IF NOT EXISTS descriptors (
                        extension TEXT PRIMARY KEY,
                        version TEXT NOT NULL,
                        widgets BLOB NOT NULL);
                    CREATE TABLE IF NOT EXISTS timeline (
                        extension TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        family TEXT NOT NULL,
                        fetchedAt REAL NOT NULL,
                        timeline BLOB NOT NULL,
                        PRIMARY KEY (extension, kind, family));
                    CREATE TABLE IF NOT EXISTS placeholder (
                        extension TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        family TEXT NOT NULL,
                        entry BLOB NOT NULL,
                        PRIMARY KEY (extension, kind, family));
                    CREATE TABLE IF NOT EXISTS attempt (
                        extension TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        family TEXT NOT NULL,
                        at REAL NOT NULL,
                        code TEXT,
                        reason TEXT,
                        PRIMARY KEY (extension, kind, family));
                    CREATE TABLE IF NOT EXISTS budget (
                        extension TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        day TEXT NOT NULL,
                        used INTEGER NOT NULL,
                        PRIMARY KEY (extension, kind, day));
                    CREATE TABLE IF NOT EXISTS reload (
                        name TEXT PRIMARY KEY,
                        kind TEXT,
                        app TEXT,
                        requestedAt REAL NOT NULL,
                        byPerson INTEGER NOT NULL DEFAULT 0);
                    """
            }
        )
    }

    private static func failure(_ message: String, path: String, _ error: any Error) -> AppexError {
        AppexError(.storage, message, context: AppexError.Context(path: path), underlyingError: error)
    }

    private func write<T>(_ what: String, _ body: (Database) throws -> T) throws(AppexError) -> T {
        do { return try database.write(body) } catch {
            throw Self.failure("cannot \(what) in \(path)", path: path, error)
        }
    }

    private func read<T>(_ what: String, _ body: (Database) throws -> T) throws(AppexError) -> T {
        do { return try SharedDatabase.snapshot(database, body) } catch {
            throw Self.failure("cannot \(what) from \(path)", path: path, error)
        }
    }

    // MARK: Descriptors

    /// The configuration of the placed widget `key` (a JSON object of its parameters by name), or
    /// `nil` when none was set.
    func configuration(of key: WidgetKey) throws(AppexError) -> [UInt8]? {
        try read("read the configuration of widget \(key)") { db in
            try Data.fetchOne(
                db,
                sql: "SELECT parameters FROM configuration WHERE extension = ? AND kind = ? AND family = ?",
                arguments: [key.extensionIdentifier, key.kind, key.family.rawValue]
            ).map { Array($0) }
        }
    }

    /// Sets the configuration of `key` (`nil`: back to the defaults).
    func setConfiguration(_ parameters: [UInt8]?, of key: WidgetKey) throws(AppexError) {
        try write("store the configuration of widget \(key)") { db in
            if let parameters {
                try db.execute(
                    sql:
                        "INSERT OR REPLACE INTO configuration (extension, kind, family, parameters) VALUES (?, ?, ?, ?)",
                    arguments: [key.extensionIdentifier, key.kind, key.family.rawValue, Data(parameters)]
                )
            } else {
                try db.execute(
                    sql: "DELETE FROM configuration WHERE extension = ? AND kind = ? AND family = ?",
                    arguments: [key.extensionIdentifier, key.kind, key.family.rawValue]
                )
            }
        }
    }

    func descriptors(extension bundle: String, version: String) throws(AppexError) -> [WidgetDescriptor]? {
        let blob: [UInt8]? = try read("read widget descriptors") { db in
            try Row.fetchOne(
                db,
                sql: "SELECT widgets FROM descriptors WHERE extension = ? AND version = ?",
                arguments: [bundle, version]
            ).map { row in Array(row["widgets"] as Data) }
        }
        guard let blob else { return nil }
        return WidgetDescriptor.stored(blob)
    }

    /// Whether the extension `bundle` was described at any version: a build not yet described
    /// replaces one whose timelines may still be stored.
    func hasDescriptors(extension bundle: String) throws(AppexError) -> Bool {
        try read("read widget descriptors") { db in
            try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS (SELECT 1 FROM descriptors WHERE extension = ?)",
                arguments: [bundle]
            ) ?? false
        }
    }

    // MARK: What a launch brought

    /// What one launch of a widget extension brought, stored in one transaction.
    struct Batch: Sendable {
        var descriptors: (extension: String, version: String, widgets: [WidgetDescriptor])?
        var timelines: [(key: WidgetKey, timeline: EncodedTimeline, sentAt: Date)] = []
        var placeholders: [(key: WidgetKey, entry: EncodedEntry)] = []
        var failures: [(key: WidgetKey, at: Date, code: String, reason: String)] = []
        var cancelled: [WidgetKey] = []
    }

    /// Stores `batch` in one transaction: one sync to disk for a whole launch.
    func commit(_ batch: Batch) throws(AppexError) {
        try write("store what a widget launch brought") { db in
            if let described = batch.descriptors {
                let blob = WidgetDescriptor.storedBytes(described.widgets)
                try db.execute(
                    sql: "INSERT OR REPLACE INTO descriptors (extension, version, widgets) VALUES (?, ?, ?)",
                    arguments: [described.extension, described.version, Data(blob)]
                )
            }
            for (key, timeline, sentAt) in batch.timelines {
                try Self.insert(timeline, for: key, at: sentAt, in: db)
            }
            for (key, entry) in batch.placeholders {
                let blob = entry.storedBytes
                try db.execute(
                    sql: "INSERT OR REPLACE INTO placeholder (extension, kind, family, entry) VALUES (?, ?, ?, ?)",
                    arguments: [key.extensionIdentifier, key.kind, key.family.rawValue, Data(blob)]
                )
            }
            for (key, at, code, reason) in batch.failures {
                try db.execute(
                    sql:
                        "INSERT OR REPLACE INTO attempt (extension, kind, family, at, code, reason) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [
                        key.extensionIdentifier, key.kind, key.family.rawValue, at.timeIntervalSince1970, code, reason,
                    ]
                )
            }
            for key in batch.cancelled {
                try db.execute(
                    sql: "DELETE FROM attempt WHERE extension = ? AND kind = ? AND family = ? AND code = ?",
                    arguments: [key.extensionIdentifier, key.kind, key.family.rawValue, Self.inFlight]
                )
            }
        }
    }

    // MARK: Timelines

    struct StoredTimeline: Sendable {
        var fetchedAt: Date
        var timeline: EncodedTimeline
    }

    private static func timeline(_ key: WidgetKey, in db: Database) throws -> StoredTimeline? {
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: "SELECT fetchedAt, timeline FROM timeline WHERE extension = ? AND kind = ? AND family = ?"
            ),
            arguments: [key.extensionIdentifier, key.kind, key.family.rawValue]
        )
        guard let row, let timeline = EncodedTimeline(stored: Array(row["timeline"] as Data)) else { return nil }
        return StoredTimeline(fetchedAt: Date(timeIntervalSince1970: row["fetchedAt"]), timeline: timeline)
    }

    /// Writes a good timeline of `key` and its successful attempt, inside a transaction.
    private static func insert(_ timeline: EncodedTimeline, for key: WidgetKey, at date: Date, in db: Database) throws {
        let blob = timeline.storedBytes
        try db.execute(
            sql:
                "INSERT OR REPLACE INTO timeline (extension, kind, family, fetchedAt, timeline) VALUES (?, ?, ?, ?, ?)",
            arguments: [key.extensionIdentifier, key.kind, key.family.rawValue, date.timeIntervalSince1970, Data(blob)]
        )
        try db.execute(
            sql:
                "INSERT OR REPLACE INTO attempt (extension, kind, family, at, code, reason) VALUES (?, ?, ?, ?, NULL, NULL)",
            arguments: [key.extensionIdentifier, key.kind, key.family.rawValue, date.timeIntervalSince1970]
        )
    }

    private static func placeholder(_ key: WidgetKey, in db: Database) throws -> EncodedEntry? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT entry FROM placeholder WHERE extension = ? AND kind = ? AND family = ?"),
            arguments: [key.extensionIdentifier, key.kind, key.family.rawValue]
        ).flatMap { row in EncodedEntry(stored: Array(row["entry"] as Data)) }
    }

    // MARK: Attempts

    struct Attempt: Sendable {
        var at: Date
        /// `nil` when it succeeded.
        var failure: (code: String, reason: String)?
    }

    func lastAttempt(_ key: WidgetKey) throws(AppexError) -> Attempt? {
        try read("read the last attempt") { db in try Self.lastAttempt(key, in: db) }
    }

    private static func lastAttempt(_ key: WidgetKey, in db: Database) throws -> Attempt? {
        try Row.fetchOne(
            db.cachedStatement(
                sql: "SELECT at, code, reason FROM attempt WHERE extension = ? AND kind = ? AND family = ?"
            ),
            arguments: [key.extensionIdentifier, key.kind, key.family.rawValue]
        ).map { row in
            let code: String? = row["code"]
            let reason: String? = row["reason"]
            return Attempt(at: Date(timeIntervalSince1970: row["at"]), failure: code.map { ($0, reason ?? "") })
        }
    }

    /// What the host keeps for a widget, read at one moment (one transaction): what the
    /// scheduler weighs and what a state shows.
    struct Standing: Sendable {
        var timeline: StoredTimeline? = nil
        var attempt: Attempt?
        /// The latest reload request that covers the widget.
        var reloadRequested: Date? = nil
        /// The latest of those its person asked for (taken from no budget).
        var personRequested: Date? = nil
        var placeholder: EncodedEntry? = nil
        /// The reloads spent on the day asked for.
        var budgetUsed = 0
    }

    /// The standing of `key`, whose extension is in `app` (`nil`: not in an app), with the
    /// budget spent on `day`.
    func standing(of key: WidgetKey, app: String?, day: String) throws(AppexError) -> Standing {
        try read("read a widget's timeline, attempt, placeholder, budget and reload requests") { db in
            Standing(
                timeline: try Self.timeline(key, in: db),
                attempt: try Self.lastAttempt(key, in: db),
                reloadRequested: try Self.latestReload(kind: key.kind, app: app, byPerson: false, in: db),
                personRequested: try Self.latestReload(kind: key.kind, app: app, byPerson: true, in: db),
                placeholder: try Self.placeholder(key, in: db),
                budgetUsed: try Self.budgetUsed(extension: key.extensionIdentifier, kind: key.kind, day: day, in: db)
            )
        }
    }

    func recordFailure(for key: WidgetKey, at date: Date, code: String, reason: String) throws(AppexError) {
        try write("record a failed attempt") { db in
            try db.execute(
                sql:
                    "INSERT OR REPLACE INTO attempt (extension, kind, family, at, code, reason) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    key.extensionIdentifier, key.kind, key.family.rawValue, date.timeIntervalSince1970, code, reason,
                ]
            )
        }
    }

    // MARK: Budget

    /// The reloads used by the widget on `day` (`yyyy-MM-dd`, UTC).
    private static func budgetUsed(extension bundle: String, kind: String, day: String, in db: Database) throws -> Int {
        try Int.fetchOne(
            db.cachedStatement(sql: "SELECT used FROM budget WHERE extension = ? AND kind = ? AND day = ?"),
            arguments: [bundle, kind, day]
        ) ?? 0
    }

    /// Marks the describing of an extension (`key`, its describe key) in flight, unless another
    /// refresh describes it (in flight for less than `inFlightLimit` seconds) or it failed less
    /// than `retryAfterFailure` seconds before `date`. One transaction: of two refreshes at once,
    /// one describes. - Returns: whether this refresh describes it.
    func claimDescribe(
        _ key: WidgetKey,
        at date: Date,
        retryAfterFailure: TimeInterval,
        inFlightLimit: TimeInterval
    ) throws(AppexError) -> Bool {
        try write("mark an extension's widgets as being described") { db in
            if let attempt = try Self.lastAttempt(key, in: db), let failure = attempt.failure {
                let wait = failure.code == Self.inFlight ? inFlightLimit : retryAfterFailure
                if date < attempt.at + wait { return false }
            }
            try Self.markInFlight(key, at: date, doing: "describing", in: db)
            return true
        }
    }

    /// The code of an attempt that is under way.
    static let inFlight = "in-flight"

    /// Records `key`'s last attempt as under way since `date`, `doing` what.
    private static func markInFlight(_ key: WidgetKey, at date: Date, doing: String, in db: Database) throws {
        try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO attempt (extension, kind, family, at, code, reason) VALUES (?, ?, ?, ?, ?, ?)"
        ).execute(
            arguments: [
                key.extensionIdentifier, key.kind, key.family.rawValue, date.timeIntervalSince1970, inFlight, doing,
            ]
        )
    }

    /// Takes one reload from the day's budget if any is left and marks the widget in flight, in
    /// one transaction: the reloads used today with this one, or `nil` when none was left.
    func takeReload(for key: WidgetKey, day: String, limit: Int, at date: Date) throws(AppexError) -> Int? {
        try write("spend the reload budget") { db in
            let used =
                try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT used FROM budget WHERE extension = ? AND kind = ? AND day = ?"),
                    arguments: [key.extensionIdentifier, key.kind, day]
                ) ?? 0
            guard used < limit else { return nil }
            try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO budget (extension, kind, day, used) VALUES (?, ?, ?, ?)"
            )
            .execute(arguments: [key.extensionIdentifier, key.kind, day, used + 1])
            // Budgets of days before yesterday are of no use. (A day ago is yesterday, or on the
            // day after a short DST day the day before: never today's or yesterday's budget.)
            try db.cachedStatement(sql: "DELETE FROM budget WHERE day < ?")
                .execute(arguments: [WidgetClock.day(of: date.addingTimeInterval(-86_400))])
            try Self.markInFlight(key, at: date, doing: "fetching", in: db)
            return used + 1
        }
    }

    // MARK: Reload requests

    /// Records a request read from a file; `false` when it was recorded before.
    func recordReload(name: String, _ request: WidgetReloadRequest, now: Date) throws(AppexError) -> Bool {
        try write("record a reload request") { db in
            // A request counts from `now` at the latest, the moment of the refresh that reads it:
            // that refresh's fetches answer it. A request from the future (a clock or a tool gone
            // wrong) must not ask for reloads until that day comes, and one read a moment after
            // `now` must not look newer than the fetch that answered it (the fetch's time runs on
            // the refresh's clock, which starts at `now`).
            let now = now.timeIntervalSince1970
            try db.execute(
                sql: "INSERT OR IGNORE INTO reload (name, kind, app, requestedAt, byPerson) VALUES (?, ?, ?, ?, ?)",
                arguments: [name, request.kind, request.app, min(request.requestedAt, now), request.byPerson]
            )
            let recorded = db.changesCount > 0
            // Requests older than a day have been acted on.
            try db.execute(sql: "DELETE FROM reload WHERE requestedAt < ?", arguments: [now - 86_400])
            return recorded
        }
    }

    /// The latest request that covers the widget; only its person's when `byPerson`.
    private static func latestReload(kind: String, app: String?, byPerson: Bool, in db: Database) throws -> Date? {
        try Double.fetchOne(
            db.cachedStatement(
                sql:
                    "SELECT MAX(requestedAt) FROM reload WHERE (kind IS NULL OR kind = ?) AND (app IS NULL OR app = ?) AND byPerson >= ?"
            ),
            arguments: [kind, app ?? "", byPerson]
        ).map(Date.init(timeIntervalSince1970:))
    }

    /// Marks the widget in flight without taking from its budget: a fetch its person asked for.
    func beginFreeFetch(for key: WidgetKey, at date: Date) throws(AppexError) {
        try write("mark a widget in flight") { db in try Self.markInFlight(key, at: date, doing: "fetching", in: db) }
    }
}
