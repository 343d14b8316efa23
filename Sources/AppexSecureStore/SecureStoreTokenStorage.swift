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
    /// The store.
    public let store: SecureStore
    /// What the store's keys begin with.
    public static let keyPrefix = "oauth."

    /// Tokens in `store`.
    public init(store: SecureStore) { self.store = store }

    /// The bytes stored under `key`, or `nil`.
    public func read(key: String) throws(AppexError) -> Data? {
        try store.get(Self.keyPrefix + key, as: Data.self)
    }

    /// Stores `data` under `key`.
    public func write(key: String, data: Data) throws(AppexError) {
        try store.put(data, forKey: Self.keyPrefix + key)
    }

    /// Removes `key`.
    public func delete(key: String) throws(AppexError) {
        try store.remove(Self.keyPrefix + key)
    }
}
