public import Foundation
import GRDB

/// The contacts ContactsExplorer synced, kept in the app group so that its widget reads them:
/// SQLite (WAL, synchronous NORMAL: a cache of the server), written by the app and read by any process of the
/// group. Each page of a sync is stored with the sync's place in one transaction, so a process
/// killed at any moment leaves no contact half-stored and resumes where it stopped.
public final class ContactsStore: Sendable {
    /// The database file.
    public let path: String
    private let database: DatabaseQueue

    /// Where an unfinished sync is, or what the last finished one saw.
    public struct SyncState: Sendable, Equatable {
        /// The newest change the last finished sync stored: the next sync asks from it.
        public var since: String?
        /// The next page of an unfinished sync, and what that sync asked from.
        public var resume: (cursor: String, since: String?)?

        public static func == (left: SyncState, right: SyncState) -> Bool {
            left.since == right.since && left.resume?.cursor == right.resume?.cursor
                && left.resume?.since == right.resume?.since
        }
    }

    /// Opens (creating if needed) the store at `path`.
    public init(path: String) throws {
        self.path = path
        do {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true
            )
            var configuration = Configuration()
            configuration.journalMode = .wal
            configuration.busyMode = .timeout(10)
            // GRDB's WAL mode syncs with `synchronous = NORMAL`, which suits a cache of the
            // server's contacts: each page commits with the sync's place, so any process may die
            // at any moment and nothing is lost or doubled; a power cut may lose the last commits,
            // which the next sync asks for again (and the last "recently used" marks).
            database = try DatabaseQueue(path: path, configuration: configuration)
            try database.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS contact (
                            id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, phone TEXT NOT NULL,
                            company TEXT NOT NULL, note TEXT NOT NULL, modified TEXT NOT NULL,
                            modifiedAt REAL NOT NULL, usedAt REAL);
                        CREATE INDEX IF NOT EXISTS contact_recency ON contact (max(coalesce(usedAt, 0), modifiedAt));
                        CREATE TABLE IF NOT EXISTS sync (key TEXT PRIMARY KEY, value TEXT);
                        """
                )
            }
        } catch {
            throw ContactsError(.storage, "cannot open the contacts store \(path): \(error)")
        }
    }

    /// Where the sync is.
    public func syncState() throws -> SyncState {
        try read("read the sync state") { db in
            let values = try Dictionary(
                uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT key, value FROM sync").map {
                    (row: Row) -> (String, String?) in (row["key"], row["value"])
                }
            )
            let cursor = values["cursor"] ?? nil
            return SyncState(
                since: values["since"] ?? nil,
                resume: cursor.map { ($0, values["resumeSince"] ?? nil) }
            )
        }
    }

    /// Stores one page of a sync that asked from `since`, and where it goes next, in one
    /// transaction: `next` is the following page's cursor; `nil` ends the sync, which then
    /// records the newest change stored as where the next sync asks from.
    public func store(page contacts: [Contact], askedSince since: String?, next: String?) throws {
        try write("store \(contacts.count) contacts") { db in
            let upsert = try db.cachedStatement(
                sql: """
                    INSERT INTO contact (id, name, email, phone, company, note, modified, modifiedAt, usedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)
                    ON CONFLICT(id) DO UPDATE SET name = excluded.name, email = excluded.email,
                        phone = excluded.phone, company = excluded.company, note = excluded.note,
                        modified = excluded.modified, modifiedAt = excluded.modifiedAt
                    """
            )
            for contact in contacts {
                // Eight values of known types: no need to validate them against the statement.
                upsert.setUncheckedArguments([
                    contact.id, contact.name, contact.email, contact.phone, contact.company, contact.note,
                    contact.modified, Self.moment(contact.modified),
                ])
                try upsert.execute()
            }
            let set = try db.cachedStatement(sql: "INSERT OR REPLACE INTO sync (key, value) VALUES (?, ?)")
            if let next {
                try set.execute(arguments: ["cursor", next])
                try set.execute(arguments: ["resumeSince", since])
            } else {
                try db.execute(sql: "DELETE FROM sync WHERE key IN ('cursor', 'resumeSince')")
                let newest = try String.fetchOne(db, sql: "SELECT max(modified) FROM contact")
                try set.execute(arguments: ["since", newest])
            }
        }
    }

    /// Every contact, by name.
    public func contacts() throws -> [Contact] {
        try read("read the contacts") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM contact ORDER BY name, id").map(Self.contact)
        }
    }

    /// The contact `id`.
    public func contact(id: String) throws -> Contact {
        let found = try read("read contact \(id)") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM contact WHERE id = ?", arguments: [id]).map(Self.contact)
        }
        guard let found else { throw ContactsError(.notFound, "no contact \(id) in \(path)") }
        return found
    }

    /// The `limit` contacts most recently used or changed, the most recent first.
    public func recent(limit: Int) throws -> [Contact] {
        try read("read the recent contacts") { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM contact ORDER BY max(coalesce(usedAt, 0), modifiedAt) DESC, id LIMIT ?",
                arguments: [max(0, limit)]
            ).map(Self.contact)
        }
    }

    /// Records that the user looked at contact `id` at `date`.
    public func markUsed(id: String, at date: Date = Date()) throws {
        let changed = try write("mark contact \(id) used") { db in
            try db.execute(
                sql: "UPDATE contact SET usedAt = ? WHERE id = ?",
                arguments: [date.timeIntervalSince1970, id]
            )
            return db.changesCount
        }
        guard changed == 1 else { throw ContactsError(.notFound, "no contact \(id) in \(path)") }
    }

    /// How many contacts are stored.
    public func count() throws -> Int {
        try read("count the contacts") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM contact") ?? 0 }
    }

    // MARK: -

    private static func contact(_ row: Row) -> Contact {
        Contact(
            id: row["id"],
            name: row["name"],
            email: row["email"],
            phone: row["phone"],
            company: row["company"],
            note: row["note"],
            modified: row["modified"]
        )
    }

    /// Seconds since 1970 of an ISO 8601 date-time (0 when it is none: it then sorts last).
    ///
    /// The server's own form, `2026-01-01T00:00:00.000000Z`, is read by hand (a thousand
    /// contacts a sync: Foundation's parser cost more than storing them); any other form goes
    /// through `Date.ISO8601FormatStyle`.
    static func moment(_ text: String) -> Double {
        if let seconds = utcMoment(text) { return seconds }
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        if let date = try? style.parse(text) { return date.timeIntervalSince1970 }
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date.timeIntervalSince1970 }
        return 0
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, or `nil` for anything else.
    static func utcMoment(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), bytes[4] == UInt8(ascii: "-"),
            bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
            bytes[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            // At most nine digits are read (nanoseconds): more would overflow, and mean nothing.
            let end = min(bytes.count - 1, 29)
            guard bytes[19] == UInt8(ascii: "."), bytes.count > 21, let digits = number(20..<end),
                bytes[end..<(bytes.count - 1)].allSatisfy({ (0x30...0x39).contains($0) })
            else { return nil }
            fraction = Double(digits) / pow(10, Double(end - 20))
        } else if bytes.count != 20 {
            return nil
        }
        // Days from 1970-01-01 to the civil date (Howard Hinnant's days_from_civil).
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second) + fraction
    }

    private func read<T>(_ what: String, _ body: (Database) throws -> T) throws -> T {
        do { return try database.read(body) } catch {
            throw ContactsError(.storage, "cannot \(what) from \(path): \(error)")
        }
    }

    private func write<T>(_ what: String, _ body: (Database) throws -> T) throws -> T {
        do { return try database.write(body) } catch {
            throw ContactsError(.storage, "cannot \(what) in \(path): \(error)")
        }
    }
}
