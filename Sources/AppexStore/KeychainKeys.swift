import AppexCore
import AppexSystem
import AppexVocabulary
import Crypto
import Foundation
import Synchronization

/// The shared keychain's key hierarchy (docs/threat-model.md):
///
/// - the **root key**, 256 random bits in `<keysDirectory>/keychain.key` (0600, in a 0700
///   directory outside `APPEX_HOME`): the one key that is stored, never beside the database;
/// - an **access-group key** per keychain access group, derived with HKDF-SHA256 from the root
///   key, the keychain's random salt (stored in the database) and the group's name — never stored;
/// - an **item key** per item, random, stored only sealed (AES-GCM) under its group's key.
///
/// Item data and labels are sealed with AES-256-GCM under the item key; every seal
/// authenticates the item's group, service and account, so a sealed value moved to another row
/// fails to open instead of reading as that row's secret.
final class KeychainKeys: Sendable {
    // Kept as bytes: swift-crypto's SymmetricKey is not Sendable on Linux.
    private let root: Data
    private let salt: Data
    private let groupKeys = Mutex<[String: Data]>([:])

    private init(root: Data, salt: Data) {
        self.root = root
        self.salt = salt
    }

    /// The keys for the keychain whose salt is `salt` and whose check value (if any) is `check`.
    ///
    /// Reads the root key, or makes it when none exists and the keychain holds nothing sealed
    /// yet (`check == nil`). Returns the keys and, for a new keychain, the check value to store.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `keyUnavailable` when the root key is missing or does not open
    ///   this keychain (naming the key file and the database), `storage` when it cannot be read.
    static func load(
        directory: String,
        environment: AppexEnvironment,
        salt: Data,
        check: Data?,
        database: String
    ) throws(AppexError) -> (keys: KeychainKeys, newCheck: Data?) {
        let path = directory + "/keychain.key"
        let rootBytes: Data
        if let existing = FileManager.default.contents(atPath: path) {
            rootBytes = existing
        } else if check != nil {
            throw AppexError(
                .keyUnavailable,
                "the keychain \(database) holds items sealed under the root key \(path), which is missing: restore that file (APPEX_KEYS_DIR says where it is looked for); without it the items cannot be decrypted",
                context: AppexError.Context(path: path)
            )
        } else {
            rootBytes = try makeRootKey(at: path, environment: environment)
        }
        guard rootBytes.count == 32 else {
            throw AppexError(
                .keyUnavailable,
                "the root key \(path) is \(rootBytes.count) bytes, not 32: it was damaged or replaced",
                context: AppexError.Context(path: path)
            )
        }
        let keys = KeychainKeys(root: rootBytes, salt: salt)
        let checkKey = keys.derive("appex.keychain.check")
        if let check {
            let opened = try? AES.GCM.open(AES.GCM.SealedBox(combined: check), using: checkKey, authenticating: salt)
            guard opened == Data(checkText.utf8) else {
                throw AppexError(
                    .keyUnavailable,
                    "the root key \(path) does not open the keychain \(database): it was replaced, or the keychain belongs to another key; its items cannot be decrypted",
                    context: AppexError.Context(path: path)
                )
            }
            return (keys, nil)
        }
        do {
            let sealed = try AES.GCM.seal(Data(checkText.utf8), using: checkKey, authenticating: salt)
            guard let combined = sealed.combined else { throw AppexError(.storage, "AES-GCM gave no combined form") }
            return (keys, combined)
        } catch {
            throw AppexError(
                .storage,
                "cannot seal the check value of \(database)",
                context: AppexError.Context(path: database),
                underlyingError: error
            )
        }
    }

    private static let checkText = "appex keychain root key check"

    /// Writes 32 random bytes to `path` whole (temporary file, then `link`, so processes that
    /// make it at the same moment agree on one) and returns the bytes that won.
    private static func makeRootKey(at path: String, environment: AppexEnvironment) throws(AppexError) -> Data {
        let directory = (path as NSString).deletingLastPathComponent
        do { try environment.makePrivateDirectory(directory) } catch {
            throw AppexError(
                .storage,
                "cannot make the keys directory \(directory)",
                context: AppexError.Context(path: directory),
                underlyingError: error
            )
        }
        let key = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        do { _ = try Syscalls.createFileAtomically(path, bytes: key, mode: 0o600) } catch {
            throw AppexError(
                .storage,
                "cannot put the root key at \(path)",
                context: AppexError.Context(path: path),
                underlyingError: error
            )
        }
        guard let winner = FileManager.default.contents(atPath: path) else {
            throw AppexError(.storage, "cannot read the root key \(path)", context: AppexError.Context(path: path))
        }
        return winner
    }

    /// A key derived from the root key for `purpose`.
    private func derive(_ purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: root),
            salt: salt,
            info: Data(purpose.utf8),
            outputByteCount: 32
        )
    }

    /// The key of an access group (derived once per process).
    private func groupKey(_ group: String) -> SymmetricKey {
        let bytes = groupKeys.withLock { keys in
            if let key = keys[group] { return key }
            let key = derive("appex.keychain.access-group:" + group).withUnsafeBytes { Data($0) }
            keys[group] = key
            return key
        }
        return SymmetricKey(data: bytes)
    }

    /// What every seal of an item authenticates: where the item is.
    /// Each part is prefixed with its length, so no two different places bind alike (names may
    /// hold any character).
    private static func binding(_ what: String, group: String, service: String, account: String) -> Data {
        var data = Data()
        for part in [what, group, service, account] {
            var length = UInt32(part.utf8.count).bigEndian
            withUnsafeBytes(of: &length) { data.append(contentsOf: $0) }
            data.append(contentsOf: part.utf8)
        }
        return data
    }

    /// A sealed item: its wrapped item key and its sealed data and label.
    struct Sealed {
        var wrappedKey: Data
        var data: Data
        var label: Data?
    }

    /// Seals `data` and `label` under a new item key, wrapped under the group's key.
    func seal(_ data: Data, label: String?, group: String, service: String, account: String) throws -> Sealed {
        let itemKey = SymmetricKey(size: .bits256)
        let wrapped = try combined(
            AES.GCM.seal(
                itemKey.withUnsafeBytes { Data($0) },
                using: groupKey(group),
                authenticating: Self.binding("key", group: group, service: service, account: account)
            )
        )
        let sealedData = try combined(
            AES.GCM.seal(
                data,
                using: itemKey,
                authenticating: Self.binding("data", group: group, service: service, account: account)
            )
        )
        let sealedLabel = try label.map {
            try combined(
                AES.GCM.seal(
                    Data($0.utf8),
                    using: itemKey,
                    authenticating: Self.binding("label", group: group, service: service, account: account)
                )
            )
        }
        return Sealed(wrappedKey: wrapped, data: sealedData, label: sealedLabel)
    }

    /// Opens a sealed item. - Throws: `corruptItem` when any seal fails authentication.
    func unseal(
        _ sealed: Sealed,
        group: String,
        service: String,
        account: String
    ) throws(AppexError) -> (data: Data, label: String?) {
        do {
            let itemKey = SymmetricKey(
                data: try AES.GCM.open(
                    AES.GCM.SealedBox(combined: sealed.wrappedKey),
                    using: groupKey(group),
                    authenticating: Self.binding("key", group: group, service: service, account: account)
                )
            )
            let data = try AES.GCM.open(
                AES.GCM.SealedBox(combined: sealed.data),
                using: itemKey,
                authenticating: Self.binding("data", group: group, service: service, account: account)
            )
            let label = try sealed.label.map {
                String(
                    decoding: try AES.GCM.open(
                        AES.GCM.SealedBox(combined: $0),
                        using: itemKey,
                        authenticating: Self.binding("label", group: group, service: service, account: account)
                    ),
                    as: UTF8.self
                )
            }
            return (data, label)
        } catch {
            throw AppexError(
                .corruptItem,
                "the item (service \(service), account \(account)) in access group \(group) fails authentication: the keychain was edited or damaged outside Appex",
                context: AppexError.Context(group: group),
                underlyingError: error
            )
        }
    }

    private func combined(_ box: AES.GCM.SealedBox) throws -> Data {
        guard let combined = box.combined else { throw AppexError(.storage, "AES-GCM gave no combined form") }
        return combined
    }
}
