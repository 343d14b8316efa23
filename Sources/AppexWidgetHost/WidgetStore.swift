import AppexCoding
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
        try environment.makePrivateDirectory(folder)
        try environment.makePrivateFile(path)
        do {
            database = try SharedDatabase.open(
                path: path,
                label: "appex.widgets",
                version: 1,
                schema: { _ in
                    """
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
                        requestedAt REAL NOT NULL);
                    """
                },
                // What widgets answered can be asked again: a commit survives any process's
                // death without a sync to disk (docs/DESIGN.md, "Durability of the widget state").
                syncsEveryCommit: false
            )
        } catch {
            throw Self.failure("cannot open the widget host's state \(path)", path: path, error)
        }
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

    func descriptors(extension bundle: String, version: String) throws(AppexError) -> [WidgetDescriptor]? {
        let blob: [UInt8]? = try read("read widget descriptors") { db in
            try Row.fetchOne(
                db,
                sql: "SELECT widgets FROM descriptors WHERE extension = ? AND version = ?",
                arguments: [bundle, version]
            ).map { row in Array(row["widgets"] as Data) }
        }
        guard let blob else { return nil }
        return try? CompactDecoder().decode([WidgetDescriptor].self, from: blob)
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
                let blob = (try? CompactEncoder().encode(described.widgets)) ?? []
                try db.execute(
                    sql: "INSERT OR REPLACE INTO descriptors (extension, version, widgets) VALUES (?, ?, ?)",
                    arguments: [described.extension, described.version, Data(blob)]
                )
            }
            for (key, timeline, sentAt) in batch.timelines {
                try Self.insert(timeline, for: key, at: sentAt, in: db)
            }
            for (key, entry) in batch.placeholders {
                let blob = (try? CompactEncoder().encode(entry)) ?? []
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

    func timeline(_ key: WidgetKey) throws(AppexError) -> StoredTimeline? {
        let row: (Double, [UInt8])? = try read("read a timeline") { db in
            try Row.fetchOne(
                db,
                sql: "SELECT fetchedAt, timeline FROM timeline WHERE extension = ? AND kind = ? AND family = ?",
                arguments: [key.extensionIdentifier, key.kind, key.family.rawValue]
            ).map { row in (row["fetchedAt"] as Double, Array(row["timeline"] as Data)) }
        }
        guard let row, let timeline = try? CompactDecoder().decode(EncodedTimeline.self, from: row.1) else {
            return nil
        }
        return StoredTimeline(fetchedAt: Date(timeIntervalSince1970: row.0), timeline: timeline)
    }

    /// Writes a good timeline of `key` and its successful attempt, inside a transaction.
    private static func insert(_ timeline: EncodedTimeline, for key: WidgetKey, at date: Date, in db: Database) throws {
        let blob = (try? CompactEncoder().encode(timeline)) ?? []
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

    func placeholder(_ key: WidgetKey) throws(AppexError) -> EncodedEntry? {
        let blob: [UInt8]? = try read("read a placeholder") { db in
            try Row.fetchOne(
                db,
                sql: "SELECT entry FROM placeholder WHERE extension = ? AND kind = ? AND family = ?",
                arguments: [key.extensionIdentifier, key.kind, key.family.rawValue]
            ).map { row in Array(row["entry"] as Data) }
        }
        return blob.flatMap { try? CompactDecoder().decode(EncodedEntry.self, from: $0) }
    }

    // MARK: Attempts

    struct Attempt: Sendable {
        var at: Date
        /// `nil` when it succeeded.
        var failure: (code: String, reason: String)?
    }

    func lastAttempt(_ key: WidgetKey) throws(AppexError) -> Attempt? {
        try read("read the last attempt") { db in
            try Row.fetchOne(
                db,
                sql: "SELECT at, code, reason FROM attempt WHERE extension = ? AND kind = ? AND family = ?",
                arguments: [key.extensionIdentifier, key.kind, key.family.rawValue]
            ).map { row in
                let code: String? = row["code"]
                let reason: String? = row["reason"]
                return Attempt(
                    at: Date(timeIntervalSince1970: row["at"]),
                    failure: code.map { ($0, reason ?? "") }
                )
            }
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
    func budgetUsed(extension bundle: String, kind: String, day: String) throws(AppexError) -> Int {
        try read("read the reload budget") { db in
            try Int.fetchOne(
                db,
                sql: "SELECT used FROM budget WHERE extension = ? AND kind = ? AND day = ?",
                arguments: [bundle, kind, day]
            ) ?? 0
        }
    }

    /// The code of an attempt that is under way.
    static let inFlight = "in-flight"

    /// Takes one reload from the day's budget if any is left and marks the widget in flight, in
    /// one transaction: `true` when taken.
    func takeReload(for key: WidgetKey, day: String, limit: Int, at date: Date) throws(AppexError) -> Bool {
        try write("spend the reload budget") { db in
            let used =
                try Int.fetchOne(
                    db,
                    sql: "SELECT used FROM budget WHERE extension = ? AND kind = ? AND day = ?",
                    arguments: [key.extensionIdentifier, key.kind, day]
                ) ?? 0
            guard used < limit else { return false }
            try db.execute(
                sql: "INSERT OR REPLACE INTO budget (extension, kind, day, used) VALUES (?, ?, ?, ?)",
                arguments: [key.extensionIdentifier, key.kind, day, used + 1]
            )
            try db.execute(sql: "DELETE FROM budget WHERE day < ?", arguments: [Self.dayBefore(day)])
            try db.execute(
                sql:
                    "INSERT OR REPLACE INTO attempt (extension, kind, family, at, code, reason) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    key.extensionIdentifier, key.kind, key.family.rawValue, date.timeIntervalSince1970, Self.inFlight,
                    "fetching",
                ]
            )
            return true
        }
    }

    private static func dayBefore(_ day: String) -> String {
        // Budgets of days before yesterday are of no use.
        let formatter = WidgetClock.dayFormatter
        guard let date = formatter.date(from: day) else { return day }
        return formatter.string(from: date.addingTimeInterval(-86_400))
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
                sql: "INSERT OR IGNORE INTO reload (name, kind, app, requestedAt) VALUES (?, ?, ?, ?)",
                arguments: [name, request.kind, request.app, min(request.requestedAt, now)]
            )
            let recorded = db.changesCount > 0
            // Requests older than a day have been acted on.
            try db.execute(sql: "DELETE FROM reload WHERE requestedAt < ?", arguments: [now - 86_400])
            return recorded
        }
    }

    /// The latest request that covers the widget.
    func latestReload(kind: String, app: String?) throws(AppexError) -> Date? {
        try read("read reload requests") { db in
            try Double.fetchOne(
                db,
                sql: """
                    SELECT MAX(requestedAt) FROM reload
                    WHERE (kind IS NULL OR kind = ?) AND (app IS NULL OR app = ?)
                    """,
                arguments: [kind, app ?? ""]
            ).map(Date.init(timeIntervalSince1970:))
        }
    }
}
