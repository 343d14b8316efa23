import AppexCore
import AppexSQLite
import Foundation
import GRDB
import Synchronization

/// The keychain opened in this process: its SQLite file and the root key (``SharedKeychain``'s
/// local backend; a sandboxed extension reaches it through its host's broker instead, which
/// serves it with one of these made for that extension's context).
final class LocalKeychain: Sendable {
    /// Who is asking.
    let context: ProcessContext
    /// The database file.
    let path: String
    private let database: DatabaseQueue
    private let keys: KeychainKeys
    /// The database's WAL index: an unchanged header means nothing was committed (see
    /// ``SharedDefaults``), so an item opened before is still the stored one.
    private let walIndex: WALIndex?
    /// Items opened by ``item(service:account:accessGroup:)``, valid under `header`.
    private let cache = Mutex(ItemCache())

    private struct ItemCache {
        var header: WALIndex.Header?
        var items: [ItemKey: KeychainItem?] = [:]
    }

    private struct ItemKey: Hashable {
        var service: String
        var account: String
        var accessGroup: String?
    }

    /// Opens the keychain for `context`, creating it (and its root key) on first use.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `keyUnavailable` when the root key is missing or is not this
    ///   keychain's, `storage` when the files cannot be opened.
    init(context: ProcessContext, environment: AppexEnvironment) throws(AppexError) {
        self.context = context
        let home = URL(fileURLWithPath: environment.home).standardizedFileURL.resolvingSymlinksInPath().path
        let keysDirectory = URL(fileURLWithPath: environment.keysDirectory).standardizedFileURL
            .resolvingSymlinksInPath().path
        if keysDirectory == home || keysDirectory.hasPrefix(home.hasSuffix("/") ? home : home + "/") {
            throw AppexError(
                .keyUnavailable,
                "the keys directory \(environment.keysDirectory) is inside APPEX_HOME (\(environment.home)): a copy of the state would carry the key that opens it; set APPEX_KEYS_DIR to a directory outside it",
                context: context.errorContext(path: environment.keysDirectory)
            )
        }
        let directory = environment.home + "/Keychains"
        path = directory + "/keychain.sqlite"
        database = try SharedDatabase.openPrivate(
            path: path,
            naming: "the keychain",
            context: context.errorContext(path: path),
            label: "appex.keychain",
            version: 1,
            secureDelete: true,
            schema: { _ in
                """
                CREATE TABLE IF NOT EXISTS item (
                    access_group TEXT NOT NULL,
                    service TEXT NOT NULL,
                    account TEXT NOT NULL,
                    wrapped_key BLOB NOT NULL,
                    data BLOB NOT NULL,
                    label BLOB,
                    created REAL NOT NULL,
                    modified REAL NOT NULL,
                    PRIMARY KEY (access_group, service, account));
                CREATE TABLE IF NOT EXISTS access_group (
                    name TEXT PRIMARY KEY NOT NULL,
                    team TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS meta (
                    name TEXT PRIMARY KEY NOT NULL,
                    value BLOB NOT NULL);
                INSERT OR IGNORE INTO meta (name, value) VALUES ('salt', randomblob(32));
                """
            }
        )
        keys = try Self.openKeys(database: database, path: path, environment: environment)
        walIndex = WALIndex(database: database)
    }

    /// Reads the keychain's salt and check value and opens its keys, storing the check value of
    /// a new keychain (under a write lock, so concurrent first openers agree).
    private static func openKeys(
        database: DatabaseQueue,
        path: String,
        environment: AppexEnvironment
    ) throws(AppexError) -> KeychainKeys {
        do {
            let (salt, check) = try database.read { db in
                (
                    try Data.fetchOne(db, sql: "SELECT value FROM meta WHERE name = 'salt'"),
                    try Data.fetchOne(db, sql: "SELECT value FROM meta WHERE name = 'check'")
                )
            }
            guard let salt else {
                throw AppexError(.storage, "the keychain \(path) has no salt", context: AppexError.Context(path: path))
            }
            if check != nil {
                return try KeychainKeys.load(
                    directory: environment.keysDirectory,
                    environment: environment,
                    salt: salt,
                    check: check,
                    database: path
                ).keys
            }
            var opened: KeychainKeys?
            try database.inTransaction(.immediate) { db in
                let check = try Data.fetchOne(db, sql: "SELECT value FROM meta WHERE name = 'check'")
                let (keys, newCheck) = try KeychainKeys.load(
                    directory: environment.keysDirectory,
                    environment: environment,
                    salt: salt,
                    check: check,
                    database: path
                )
                if let newCheck {
                    try db.execute(sql: "INSERT INTO meta (name, value) VALUES ('check', ?)", arguments: [newCheck])
                }
                opened = keys
                return .commit
            }
            guard let opened else {
                throw AppexError(.storage, "cannot open the keys of \(path)", context: AppexError.Context(path: path))
            }
            return opened
        } catch let error as AppexError {
            throw error
        } catch {
            throw AppexError(
                .storage,
                "cannot read the keychain \(path)",
                context: AppexError.Context(path: path),
                underlyingError: error
            )
        }
    }

    /// ``SharedKeychain/defaultAccessGroup`` of this context (one definition, there).
    var defaultAccessGroup: String? { SharedKeychain.defaultAccessGroup(of: context) }

    /// ``SharedKeychain/privateAccessGroup`` of this context.
    var privateAccessGroup: String? { SharedKeychain.privateAccessGroup(of: context) }

    /// What begins every bundle's private access group.
    static var privateGroupPrefix: String { SharedKeychain.privateGroupPrefix }

    // MARK: - Writing

    /// Adds an item (`add`), replaces an item's data and, when one is given, its label
    /// (`update`), or does whichever applies (`set`): one IMMEDIATE transaction.
    ///
    /// - Parameter accessGroup: where; `nil`: ``defaultAccessGroup``.
    /// - Throws: ``/AppexVocabulary/AppexError`` `duplicateItem` when `add` finds an item of this service and
    ///   account, `itemNotFound` when `update` finds none (nothing changes either way);
    ///   `missingEntitlement`/`teamMismatch` for a group the process may not use.
    func write(
        _ mode: KeychainBrokerWrite,
        _ data: Data,
        service: String,
        account: String,
        label: String? = nil,
        accessGroup: String? = nil
    ) throws(AppexError) {
        let group = try resolve(accessGroup)
        try transaction(mode == .set ? "store" : mode.rawValue, service: service, account: account, group: group) {
            db in
            switch (mode, try Self.existingItem(group: group, service: service, account: account, in: db)) {
            case (.add, .some):
                throw AppexError(
                    .duplicateItem,
                    "access group \(group) already holds an item for service \(service), account \(account): update it instead",
                    context: context.errorContext(group: group)
                )
            case (.update, nil):
                throw AppexError(
                    .itemNotFound,
                    "access group \(group) holds no item for service \(service), account \(account)",
                    context: context.errorContext(group: group)
                )
            case (_, .some(let row)):
                try replace(row, with: data, label: label, group: group, service: service, account: account, in: db)
            case (_, nil):
                let now = Date()
                try insert(
                    data,
                    label: label,
                    created: now,
                    modified: now,
                    group: group,
                    service: service,
                    account: account,
                    in: db
                )
            }
        }
    }

    /// The stored item of `group`, `service` and `account`, if any (what a replacement keeps).
    private static func existingItem(group: String, service: String, account: String, in db: Database) throws -> Row? {
        try Row.fetchOne(
            db.cachedStatement(
                sql:
                    "SELECT wrapped_key, data, label, created FROM item WHERE access_group = ? AND service = ? AND account = ?"
            ),
            arguments: [group, service, account]
        )
    }

    /// Replaces the item `row` with `data`, keeping its creation date, and its label unless
    /// `label` gives one: what `update` and `set` share.
    private func replace(
        _ row: Row,
        with data: Data,
        label: String?,
        group: String,
        service: String,
        account: String,
        in db: Database
    ) throws {
        let keptLabel =
            try label ?? keys.unseal(Self.sealed(row), group: group, service: service, account: account).label
        try insert(
            data,
            label: keptLabel,
            created: row["created"],
            group: group,
            service: service,
            account: account,
            in: db
        )
    }

    /// Deletes an item; its sealed bytes are overwritten in the file (`secure_delete`).
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `itemNotFound` when there is no such item.
    func delete(service: String, account: String, accessGroup: String? = nil) throws(AppexError) {
        let group = try resolve(accessGroup)
        try transaction("delete", service: service, account: account, group: group) { db in
            try db.cachedStatement(sql: "DELETE FROM item WHERE access_group = ? AND service = ? AND account = ?")
                .execute(arguments: [group, service, account])
            if db.changesCount == 0 {
                throw AppexError(
                    .itemNotFound,
                    "access group \(group) holds no item for service \(service), account \(account)",
                    context: context.errorContext(group: group)
                )
            }
        }
        // Best effort: move the WAL into the file (where secure_delete zeroed the item) and empty
        // it, so the deleted item's sealed bytes do not wait in the -wal file for reuse. A reader
        // in another process can keep the WAL from being reset; see docs/threat-model.md.
        _ = try? database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    // MARK: - Reading

    /// The item of `service` and `account`, or `nil`.
    ///
    /// - Parameter accessGroup: where to look; `nil`: every group the process is entitled to,
    ///   in the order its entitlement lists them.
    /// - Throws: ``/AppexVocabulary/AppexError`` for a group the process may not use; `corruptItem` when the
    ///   stored item fails authentication.
    ///
    /// Repeated reads of an item no process changed are answered from memory: every commit
    /// rewrites the WAL-index header, which is compared on each read (no query, no decryption).
    func item(service: String, account: String, accessGroup: String? = nil) throws(AppexError) -> KeychainItem? {
        if let accessGroup { _ = try check(accessGroup) }
        let key = ItemKey(service: service, account: account, accessGroup: accessGroup)
        let header = walIndex?.header()
        if let header, let cached = cache.withLock({ $0.header == header ? $0.items[key] : nil }) { return cached }
        let found = try items(matching: KeychainQuery(service: service, account: account, accessGroup: accessGroup))
            .first
        if let header {
            cache.withLock { cache in
                if cache.header != header { cache = ItemCache(header: header) }
                cache.items[key] = .some(found)
            }
        }
        return found
    }

    /// Every item that matches `query`, with its attributes and data (the `kSecMatchLimitAll`
    /// form), in the order of the process's access groups, then by service and account.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` for a group the process may not use; `corruptItem` when a
    ///   matching item fails authentication.
    func items(matching query: KeychainQuery = KeychainQuery()) throws(AppexError) -> [KeychainItem] {
        let groups: [String]?  // nil: every group (the owner)
        if let group = query.accessGroup {
            groups = [try check(group)]
        } else if context.isOwner {
            groups = nil
        } else {
            // An entitlement never grants a private group (not even the bundle's own: searches
            // without a group leave private groups out).
            groups = context.entitlements.keychainAccessGroups.filter { !$0.hasPrefix(Self.privateGroupPrefix) }
        }
        var sql = "SELECT access_group, service, account, wrapped_key, data, label, created, modified FROM item WHERE 1"
        var arguments: StatementArguments = []
        if let service = query.service {
            sql += " AND service = ?"
            arguments += [service]
        }
        if let account = query.account {
            sql += " AND account = ?"
            arguments += [account]
        }
        if let groups {
            if groups.isEmpty { return [] }
            sql += " AND access_group IN (\(groups.map { _ in "?" }.joined(separator: ",")))"
            arguments += StatementArguments(groups)
        }
        if let team = context.team {
            // A group claimed by another team is not this process's, whatever its entitlements say.
            sql += " AND access_group NOT IN (SELECT name FROM access_group WHERE team <> ?)"
            arguments += [team.rawValue]
        }
        sql += " ORDER BY access_group, service, account"
        let rows: [Row]
        do {
            rows = try SharedDatabase.snapshot(database) { db in
                if let group = query.accessGroup, let team = context.team,
                    let owner = try String.fetchOne(
                        db.cachedStatement(sql: "SELECT team FROM access_group WHERE name = ?"),
                        arguments: [group]
                    ),
                    owner != team.rawValue
                {
                    throw Self.teamMismatch(group: group, owner: owner, context: context)
                }
                return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
            }
        } catch let error as AppexError {
            throw error
        } catch {
            throw AppexError(
                .storage,
                "cannot read the keychain \(path)",
                context: context.errorContext(path: path, group: query.accessGroup),
                underlyingError: error
            )
        }
        var found: [KeychainItem] = []
        for row in rows {
            let group: String = row["access_group"]
            let service: String = row["service"]
            let account: String = row["account"]
            let (data, label) = try keys.unseal(Self.sealed(row), group: group, service: service, account: account)
            found.append(
                KeychainItem(
                    service: service,
                    account: account,
                    accessGroup: group,
                    label: label,
                    data: data,
                    creationDate: row["created"],
                    modificationDate: row["modified"]
                )
            )
        }
        if let groups {
            let order = Dictionary(groups.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            found.sort { (order[$0.accessGroup] ?? 0) < (order[$1.accessGroup] ?? 0) }  // stable: keeps service, account order
        }
        return found
    }

    // MARK: - Access

    /// The group to use: `group`, or the default; checked against the entitlements.
    private func resolve(_ group: String?) throws(AppexError) -> String {
        if let group { return try check(group) }
        guard let group = defaultAccessGroup else {
            if context.isOwner {
                throw AppexError(
                    .invalidName,
                    "the owner has no default keychain access group: name one",
                    context: context.errorContext()
                )
            }
            throw AppexError(
                .missingEntitlement,
                "\(context.name) has no keychain access group: add one to \(Entitlements.Key.keychainAccessGroups) in the bundle's Entitlements.plist and sign the bundle again",
                context: context.errorContext(entitlement: Entitlements.Key.keychainAccessGroups)
            )
        }
        return try check(group)
    }

    /// Checks that the process may use `group`: entitled, and of the group's team.
    private func check(_ group: String) throws(AppexError) -> String {
        guard !group.isEmpty, group.utf8.count <= 256 else {
            throw AppexError(
                .invalidName,
                "\"\(group)\" cannot name a keychain access group",
                context: context.errorContext(group: group)
            )
        }
        if context.isOwner { return group }
        if group.hasPrefix(Self.privateGroupPrefix) {
            guard group == privateAccessGroup else {
                let owner = group.dropFirst(Self.privateGroupPrefix.count)
                throw AppexError(
                    .missingEntitlement,
                    "keychain access group \(group) is the private group of \(owner): only that bundle reaches it, and no entitlement grants it to \(context.name)",
                    context: context.errorContext(entitlement: Entitlements.Key.keychainAccessGroups, group: group)
                )
            }
            return group
        }
        guard context.entitlements.keychainAccessGroups.contains(group) else {
            throw AppexError(
                .missingEntitlement,
                "\(context.name) is not entitled to keychain access group \(group): add it to \(Entitlements.Key.keychainAccessGroups) in the bundle's Entitlements.plist and sign the bundle again",
                context: context.errorContext(entitlement: Entitlements.Key.keychainAccessGroups, group: group)
            )
        }
        return group
    }

    /// Runs one write in an IMMEDIATE transaction, after recording (or checking) the group's team.
    private func transaction(
        _ what: String,
        service: String,
        account: String,
        group: String,
        _ body: (Database) throws -> Void
    ) throws(AppexError) {
        do {
            try database.inTransaction(.immediate) { db in
                if let team = context.team {
                    try db.cachedStatement(sql: "INSERT OR IGNORE INTO access_group (name, team) VALUES (?, ?)")
                        .execute(arguments: [group, team.rawValue])
                    let owner =
                        try String.fetchOne(
                            db.cachedStatement(sql: "SELECT team FROM access_group WHERE name = ?"),
                            arguments: [group]
                        ) ?? team.rawValue
                    if owner != team.rawValue { throw Self.teamMismatch(group: group, owner: owner, context: context) }
                }
                try body(db)
                return .commit
            }
        } catch let error as AppexError {
            throw error
        } catch {
            throw AppexError(
                .storage,
                "cannot \(what) the item (service \(service), account \(account)) in access group \(group) of \(path)",
                context: context.errorContext(path: path, group: group),
                underlyingError: error
            )
        }
    }

    private static func teamMismatch(group: String, owner: String, context: ProcessContext) -> AppexError {
        AppexError(
            .teamMismatch,
            "keychain access group \(group) belongs to team \(owner); \(context.name) is signed by team \(context.team?.rawValue ?? "?"): a host and its extensions must be signed by the same team to share a group",
            context: context.errorContext(group: group)
        )
    }

    private func insert(
        _ data: Data,
        label: String?,
        created: Date,
        modified: Date = Date(),
        group: String,
        service: String,
        account: String,
        in db: Database
    ) throws {
        let sealed = try keys.seal(data, label: label, group: group, service: service, account: account)
        try db.cachedStatement(
            sql: """
                INSERT INTO item (access_group, service, account, wrapped_key, data, label, created, modified)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(access_group, service, account) DO UPDATE SET
                    wrapped_key = excluded.wrapped_key, data = excluded.data, label = excluded.label, modified = excluded.modified
                """
        ).execute(arguments: [group, service, account, sealed.wrappedKey, sealed.data, sealed.label, created, modified])
    }

    private static func sealed(_ row: Row) -> KeychainKeys.Sealed {
        KeychainKeys.Sealed(wrappedKey: row["wrapped_key"], data: row["data"], label: row["label"])
    }
}
