public import AppexAuth
public import Foundation

/// A session's tokens kept in a host's secure store, behind the app passcode, where SAP's apps
/// keep them (instead of the shared keychain every entitled extension reads).
///
/// ```swift
/// let store = try SecureStore(context: host)
/// try store.open(passcode: passcode)
/// let session = try HostAccessorBuilder(configuration: configuration, context: host)
///     .option(.oauth).tokenStorage(SecureStoreTokenStorage(store: store)).build()
/// ```
///
/// The store must be open when the tokens are read or written (`store-locked` otherwise); an
/// extension never reads them: it asks the host with an auxiliary data request.
public struct SecureStoreTokenStorage: TokenStorage {
    private enum Opened: Sendable {
        case store(SecureStore)
        case access(SecureStore.Access)
    }

    private let opened: Opened
    /// What the store's keys begin with.
    public static let keyPrefix = "oauth."

    /// Tokens in `store` (open when they are used).
    public init(store: SecureStore) { opened = .store(store) }

    /// Tokens in the store opened for one data request (``SecureStore/withAccess(eSPAKAuxiliary:isolation:_:)``):
    /// how a host answering a widget in the background uses and refreshes the session.
    public init(access: SecureStore.Access) { opened = .access(access) }

    /// The bytes stored under `key`, or `nil`.
    public func read(key: String) throws(AppexError) -> Data? {
        switch opened {
        case .store(let store): try store.get(Self.keyPrefix + key, as: Data.self)
        case .access(let access): try access.get(Self.keyPrefix + key, as: Data.self)
        }
    }

    /// Stores `data` under `key`.
    public func write(key: String, data: Data) throws(AppexError) {
        switch opened {
        case .store(let store): try store.put(data, forKey: Self.keyPrefix + key)
        case .access(let access): try access.put(data, forKey: Self.keyPrefix + key)
        }
    }

    /// Removes `key`.
    public func delete(key: String) throws(AppexError) {
        switch opened {
        case .store(let store): try store.remove(Self.keyPrefix + key)
        case .access(let access): try access.remove(Self.keyPrefix + key)
        }
    }
}
