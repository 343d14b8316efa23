public import AppexCore
import AppexSQLite
import AppexSystem
import AppexVocabulary
import Crypto
public import Foundation
import GRDB

/// Where an app group keeps its auxiliary data requests: the durable queue between a host's
/// extensions, which ask, and the host, which answers (seed 002, SAP's data store of the
/// auxiliary data requests).
///
/// ```swift
/// let security = try AuxiliarySecurityManager(hostBundleIdentifier: "com.myapp.MyApp")
/// let store = try AuxiliaryDataStore(
///     group: AppGroup("group.com.myapp.MyApp", context: .current()),
///     encryptionKey: security.getAuxiliaryDataEncryptionKey()
/// )
/// let requests = AuxiliaryDataRequestManager(dataStore: store)
/// ```
///
/// One SQLite file in the group's container (`Library/Appex/AuxiliaryDataRequests.sqlite`,
/// WAL; answers synced, puts and claims kept through the crash of any process, decision 0092):
/// what a request asks (its info) and what the host answers are sealed with AES-256-GCM under
/// the auxiliary data encryption key the host published
/// (``AuxiliarySecurityManager/getAuxiliaryDataEncryptionKey()``); identical requests are found
/// by an HMAC of their kind and info under the same key. Every put and answer touches
/// `AuxiliaryDataRequests.sqlite-committed` after it commits; waiters watch that file.
public final class AuxiliaryDataStore: Sendable {
    /// The app group the queue lives in.
    public let group: AppGroup
    /// The queue's file.
    public let path: String
    let database: DatabaseQueue
    let commitSignal: String
    /// The auxiliary data encryption key (bytes: `SymmetricKey` is not `Sendable` on Linux);
    /// `nil` for a store opened only to be looked after.
    private let keyBytes: [UInt8]?

    /// Opens `group`'s queue without its key, to list and purge requests (`appex aux`): what
    /// needs the key (putting, reading or answering a request) is refused with `keyUnavailable`.
    public convenience init(lookingAfter group: AppGroup) throws(AppexError) {
        try self.init(group: group, key: nil)
    }

    /// Opens (creating if needed) `group`'s queue, sealing and opening with `encryptionKey`.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalidValue` when the key is not 32 bytes; `storage`.
    public convenience init(group: AppGroup, encryptionKey: Data) throws(AppexError) {
        try self.init(group: group, key: encryptionKey)
    }

    private init(group: AppGroup, key encryptionKey: Data?) throws(AppexError) {
        if let encryptionKey, encryptionKey.count != 32 {
            throw AppexError(
                .invalidValue,
                "an auxiliary data encryption key has 32 bytes, not \(encryptionKey.count)",
                context: AppexError.Context(group: group.identifier)
            )
        }
        self.group = group
        keyBytes = encryptionKey.map { Array($0) }
        let directory = group.containerPath + "/Library/Appex"
        path = directory + "/AuxiliaryDataRequests.sqlite"
        commitSignal = path + "-committed"
        database = try SharedDatabase.openPrivate(
            path: path,
            naming: "the auxiliary data requests of app group \(group.identifier) at",
            context: AppexError.Context(group: group.identifier),
            label: "appex.auxiliary-requests",
            version: 1,
            secureDelete: true,
            schema: { _ in
                """
                CREATE TABLE IF NOT EXISTS request (
                    id TEXT PRIMARY KEY NOT NULL,
                    kind TEXT NOT NULL,
                    digest BLOB NOT NULL,
                    info BLOB NOT NULL,
                    espak BLOB NOT NULL,
                    created REAL NOT NULL,
                    modified REAL NOT NULL,
                    expires REAL NOT NULL,
                    lease TEXT,
                    lease_until REAL,
                    leases INTEGER NOT NULL DEFAULT 0,
                    completed REAL,
                    response BLOB,
                    failure TEXT);
                CREATE INDEX IF NOT EXISTS request_pending ON request (completed, created);
                CREATE INDEX IF NOT EXISTS request_digest ON request (digest);
                """
            }
        )
        // The file waiters watch exists from the start (a waiter could not watch a missing one).
        try? Syscalls.createFileIfMissing(commitSignal, mode: 0o600)
    }

    private func key() throws(AppexError) -> SymmetricKey {
        guard let keyBytes else {
            throw AppexError(
                .keyUnavailable,
                "the auxiliary data requests of app group \(group.identifier) were opened without their key: they can be listed and purged only",
                context: AppexError.Context(path: path, group: group.identifier)
            )
        }
        return SymmetricKey(data: keyBytes)
    }

    /// What identifies a request's content: an HMAC of its kind and info.
    func digest(kind: String, info: Data) throws(AppexError) -> Data {
        var message = Data(kind.utf8)
        message.append(0)
        message.append(info)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: try key()))
    }

    /// `plaintext` sealed for the request `id` (`what`: "info" or "response").
    func seal(_ plaintext: Data, id: String, _ what: String) throws(AppexError) -> Data {
        let key = try key()
        do {
            guard
                let combined = try AES.GCM.seal(plaintext, using: key, authenticating: Data("\(what):\(id)".utf8))
                    .combined
            else {
                throw CryptoKitError.incorrectParameterSize
            }
            return combined
        } catch {
            throw AppexError(.storage, "cannot seal a data request's \(what)", underlyingError: error)
        }
    }

    /// What ``seal(_:id:_:)`` sealed.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `corruptValue` when the key is not the one it was sealed with
    ///   (the host published a new one) or the bytes were changed.
    func open(_ sealed: Data, id: String, _ what: String) throws(AppexError) -> Data {
        let key = try key()
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let plaintext = try? AES.GCM.open(box, using: key, authenticating: Data("\(what):\(id)".utf8))
        else {
            throw AppexError(
                .corruptValue,
                "the \(what) of data request \(id) in \(path) does not open with this auxiliary data encryption key",
                context: AppexError.Context(path: path, group: group.identifier)
            )
        }
        return plaintext
    }

    /// Runs `body` in an IMMEDIATE transaction. `synced`: the commit survives a power cut
    /// (else it survives the crash of any process, and the next synced commit makes it survive
    /// a power cut too). `signals`: when the transaction changed a row, waiters are woken (a
    /// transaction that changed nothing wakes nobody: a serving host would otherwise wake
    /// itself forever).
    func write<T>(
        _ what: String,
        synced: Bool = true,
        signals: Bool = true,
        _ body: (Database) throws -> T
    ) throws(AppexError) -> T {
        var changed = false
        let result = try SharedDatabase.write(database, what, path: path, context: errorContext, synced: synced) { db in
            let before = db.totalChangesCount
            defer { changed = db.totalChangesCount != before }
            return try body(db)
        }
        if changed && signals { touchFile(commitSignal) }
        return result
    }

    /// Wakes its waiter after each commit that changed the queue, from any process (and every
    /// 100 ms). Made before the waiter first looks at the queue, so no commit is missed.
    func commitWakeups() -> CommitWakeups {
        CommitWakeups(signal: commitSignal, fallbackDirectory: (path as NSString).deletingLastPathComponent)
    }

    /// Runs `body` in a read transaction.
    func read<T>(_ what: String, _ body: (Database) throws -> T) throws(AppexError) -> T {
        try SharedDatabase.read(database, what, path: path, context: errorContext, body)
    }

    private var errorContext: AppexError.Context { AppexError.Context(path: path, group: group.identifier) }
}
