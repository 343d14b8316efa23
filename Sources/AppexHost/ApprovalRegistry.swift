import AppexCore
import AppexSQLite
import AppexSystem
import Foundation
import GRDB

/// The owner's enable/disable decisions, per host, in `$APPEX_HOME/Registry/registry.sqlite`.
///
/// SQLite in WAL mode with a busy timeout, so several processes (a host's monitor, the `appex`
/// CLI) read and write it at once; a committed decision survives `kill -9` of its writer.
package final class ApprovalRegistry: Sendable {
    package struct Decision: Hashable, Sendable, Codable {
        /// Whether the owner enabled (`true`) or disabled (`false`) the extension.
        package var isEnabled: Bool
        /// The team that signed the extension when it was enabled: approval holds for that team only.
        package var team: TeamIdentifier?
    }

    private let database: DatabaseQueue
    let path: String
    /// Touched after every decision is committed, so monitors (which watch the registry's
    /// folder) wake when the decision can be read. The WAL write wakes them earlier, before the
    /// commit is visible; with the writer's connection kept open (a discovery in a running host,
    /// the window's toggles) nothing else follows it, and a monitor that scanned at that moment
    /// missed the decision (MonitorTests' approvals from an open discovery, under load).
    private let commitSignal: String

    init(environment: AppexEnvironment) throws(AppexError) {
        path = environment.registryPath
        commitSignal = environment.registryPath + "-committed"
        database = try SharedDatabase.openPrivate(
            path: path,
            naming: "the approval registry",
            code: .registry,
            label: "appex.registry",
            version: 1,
            schema: { _ in
                """
                CREATE TABLE IF NOT EXISTS decision (
                    host TEXT NOT NULL,
                    bundle TEXT NOT NULL,
                    enabled BOOLEAN NOT NULL,
                    team TEXT,
                    updatedAt DATETIME NOT NULL,
                    PRIMARY KEY (host, bundle));
                """
            }
        )
    }

    /// Every decision the owner made for `host`, by extension bundle identifier.
    func decisions(host: String) throws(AppexError) -> [String: Decision] {
        do {
            return try database.read { db in
                var result: [String: Decision] = [:]
                let rows = try Row.fetchCursor(
                    db,
                    sql: "SELECT bundle, enabled, team FROM decision WHERE host = ?",
                    arguments: [host]
                )
                while let row = try rows.next() {
                    let team: String? = row["team"]
                    result[row["bundle"]] = Decision(
                        isEnabled: row["enabled"],
                        team: team.map(TeamIdentifier.init(rawValue:))
                    )
                }
                return result
            }
        } catch {
            throw AppexError(
                .registry,
                "cannot read the approval registry \(path)",
                context: AppexError.Context(path: path),
                underlyingError: error
            )
        }
    }

    /// Forgets the decision about `bundle` for `host`: the extension is then as if the owner
    /// never decided (enabled inside its host and of its team, else unapproved).
    func forget(host: String, bundle: String) throws(AppexError) {
        try write { db in
            try db.execute(sql: "DELETE FROM decision WHERE host = ? AND bundle = ?", arguments: [host, bundle])
        }
    }

    /// Records a decision; replaces any earlier one for the same host and extension.
    func record(_ decision: Decision, host: String, bundle: String) throws(AppexError) {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO decision (host, bundle, enabled, team, updatedAt) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(host, bundle) DO UPDATE SET enabled = excluded.enabled, team = excluded.team, updatedAt = excluded.updatedAt
                    """,
                arguments: [host, bundle, decision.isEnabled, decision.team?.rawValue, Date()]
            )
        }
    }

    /// Commits `change`, then touches the commit signal (monitors wake when it can be read).
    private func write(_ change: (Database) throws -> Void) throws(AppexError) {
        do {
            try database.write(change)
            touchFile(commitSignal)
        } catch {
            throw AppexError(
                .registry,
                "cannot write the approval registry \(path)",
                context: AppexError.Context(path: path),
                underlyingError: error
            )
        }
    }
}
