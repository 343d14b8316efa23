import AppexCore
import Foundation
import GRDB

/// The owner's enable/disable decisions, per host, in `$APPEX_HOME/Registry/registry.sqlite`.
///
/// SQLite in WAL mode with a busy timeout, so several processes (a host's monitor, the `appex`
/// CLI) read and write it at once; a committed decision survives `kill -9` of its writer.
final class ApprovalRegistry: Sendable {
    struct Decision: Hashable, Sendable {
        /// Whether the owner enabled (`true`) or disabled (`false`) the extension.
        var isEnabled: Bool
        /// The team that signed the extension when it was enabled: approval holds for that team only.
        var team: TeamIdentifier?
    }

    private let database: DatabaseQueue
    let path: String

    init(environment: AppexEnvironment) throws(AppexError) {
        path = environment.registryPath
        try environment.makePrivateDirectory(environment.registryDirectory)
        // SQLite gives its -wal and -shm files the database file's mode: make it 0600 first.
        try environment.makePrivateFile(path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.journalMode = .wal
        configuration.label = "appex.registry"
        // A decision the CLI reports as made must survive a crash of anything, the machine included.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        // Several processes may create the registry at the same moment (the CLI run in
        // parallel): the schema is created idempotently inside one IMMEDIATE transaction, and a
        // lost race for the first WAL switch is retried.
        var attempt = 0
        while true {
            do {
                let queue = try DatabaseQueue(path: path, configuration: configuration)
                // Reading the version costs no write (and no fsync): only a new file is set up.
                let version = try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }
                if version >= 1 {
                    database = queue
                    break
                }
                try queue.inTransaction(.immediate) { db in
                    try db.execute(sql: """
                        CREATE TABLE IF NOT EXISTS decision (
                            host TEXT NOT NULL,
                            bundle TEXT NOT NULL,
                            enabled BOOLEAN NOT NULL,
                            team TEXT,
                            updatedAt DATETIME NOT NULL,
                            PRIMARY KEY (host, bundle));
                        PRAGMA user_version = 1;
                        """)
                    return .commit
                }
                database = queue
                break
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && attempt < 20 {
                attempt += 1
                usleep(useconds_t(5_000 * attempt))
            } catch {
                throw AppexError(.registry, "cannot open the approval registry \(path): \(error)", underlying: error)
            }
        }
    }

    /// Every decision the owner made for `host`, by extension bundle identifier.
    func decisions(host: String) throws(AppexError) -> [String: Decision] {
        do {
            return try database.read { db in
                var result: [String: Decision] = [:]
                let rows = try Row.fetchCursor(db, sql: "SELECT bundle, enabled, team FROM decision WHERE host = ?", arguments: [host])
                while let row = try rows.next() {
                    let team: String? = row["team"]
                    result[row["bundle"]] = Decision(isEnabled: row["enabled"], team: team.map(TeamIdentifier.init(rawValue:)))
                }
                return result
            }
        } catch {
            throw AppexError(.registry, "cannot read the approval registry \(path): \(error)", underlying: error)
        }
    }

    /// Records a decision; replaces any earlier one for the same host and extension.
    func record(_ decision: Decision, host: String, bundle: String) throws(AppexError) {
        do {
            try database.write { db in
                try db.execute(
                    sql: """
                    INSERT INTO decision (host, bundle, enabled, team, updatedAt) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(host, bundle) DO UPDATE SET enabled = excluded.enabled, team = excluded.team, updatedAt = excluded.updatedAt
                    """,
                    arguments: [host, bundle, decision.isEnabled, decision.team?.rawValue, Date()])
            }
        } catch {
            throw AppexError(.registry, "cannot write the approval registry \(path): \(error)", underlying: error)
        }
    }
}
