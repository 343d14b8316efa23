import AppexTestTiers
import AppexTesting
import Foundation
import GRDB
import Testing

@testable import AppexSQLite

/// The WAL-index header (read from the connection's own mapping of `-shm`) changes exactly when
/// SQLite's own `PRAGMA data_version` says another connection committed: the cached reads of
/// SharedDefaults and SharedKeychain rest on it.
@Suite(.timed) struct WALIndexTests {
    @Test(
        "the header changes with every commit by another connection, as PRAGMA data_version does, and never without one"
    )
    func agreesWithDataVersion() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("index.sqlite")
        let schema: (Int) -> String = { _ in "CREATE TABLE IF NOT EXISTS item (key TEXT PRIMARY KEY, value INTEGER);" }
        let reader = try SharedDatabase.open(path: path, label: "reader", version: 1, schema: schema)
        let writer = try SharedDatabase.open(path: path, label: "writer", version: 1, schema: schema)
        let index = try #require(WALIndex(database: reader))
        func dataVersion() throws -> Int {
            try reader.inDatabase { try Int.fetchOne($0, sql: "PRAGMA data_version") ?? -1 }
        }

        var header = try #require(index.header())
        var version = try dataVersion()
        var rng = SeededGenerator(state: 11)
        for round in 0..<200 {
            let commits = Bool.random(using: &rng)
            if commits {
                try writer.inDatabase {
                    try $0.execute(sql: "INSERT OR REPLACE INTO item VALUES ('k', ?)", arguments: [round])
                }
            }
            let nowHeader = try #require(index.header())
            let nowVersion = try dataVersion()
            #expect(
                (nowHeader != header) == commits,
                "round \(round): the header \(commits ? "did not change after" : "changed without") a commit"
            )
            #expect((nowVersion != version) == commits, "round \(round): data_version disagrees")
            header = nowHeader
            version = nowVersion
        }
    }
}
