import AppexStore
public import Foundation

/// The HAAPI SDK's shared-keychain storage: items in the keychain access group `accessGroup`,
/// which the host app and its extensions share (AppexStore's `SharedKeychain`, served to a
/// sandboxed extension by its host's broker).
///
/// The process's keychain is opened at the first call, for `ProcessContext.current()`: a call
/// fails, naming the group, where the process is entitled to no such group.
public struct SharedKeychainStorage: Storage {
    /// The keychain access group.
    public let accessGroup: String

    /// A storage in `accessGroup`.
    public init(accessGroup: String) { self.accessGroup = accessGroup }

    /// The data under `key`, or `nil`.
    public func read(key: String) throws -> Data? { try storage().read(key: key) }

    /// Stores `data` under `key`.
    public func write(key: String, data: Data) throws { try storage().write(key: key, data: data) }

    /// Removes what is under `key`.
    public func delete(key: String) throws { try storage().delete(key: key) }

    private func storage() throws(AppexError) -> KeychainTokenStorage {
        KeychainTokenStorage(keychain: try SharedKeychain(context: ProcessContext.current()), accessGroup: accessGroup)
    }
}
