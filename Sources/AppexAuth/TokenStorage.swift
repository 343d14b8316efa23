public import AppexStore
public import Foundation

/// Where a session's tokens are kept: bytes under a key. Host and extensions that share the
/// storage share the session.
public protocol TokenStorage: Sendable {
    /// The bytes stored under `key`, or `nil`.
    func read(key: String) throws(AppexError) -> Data?
    /// Stores `data` under `key`, durably, replacing what was there.
    func write(key: String, data: Data) throws(AppexError)
    /// Removes `key` (nothing when absent).
    func delete(key: String) throws(AppexError)
}

/// Tokens in the shared keychain, encrypted at rest (the default): one generic-password item
/// per key, service `appex.oauth`, in the given access group (default: the process's first).
public struct KeychainTokenStorage: TokenStorage {
    /// The keychain.
    public let keychain: SharedKeychain
    /// The access group (`nil`: the keychain's default).
    public let accessGroup: String?
    /// The items' service.
    public static let service = "appex.oauth"

    /// Storage in `keychain`'s `accessGroup`.
    public init(keychain: SharedKeychain, accessGroup: String? = nil) {
        self.keychain = keychain
        self.accessGroup = accessGroup
    }

    public func read(key: String) throws(AppexError) -> Data? {
        do { return try keychain.item(service: Self.service, account: key, accessGroup: accessGroup)?.data } catch {
            throw AppexError(
                .storage,
                "cannot read \(key) from the keychain",
                context: AppexError.Context(key: key, group: accessGroup),
                underlyingError: error
            )
        }
    }

    public func write(key: String, data: Data) throws(AppexError) {
        do {
            try keychain.set(data, service: Self.service, account: key, label: "OAuth tokens", accessGroup: accessGroup)
        } catch {
            throw AppexError(
                .storage,
                "cannot write \(key) to the keychain",
                context: AppexError.Context(key: key, group: accessGroup),
                underlyingError: error
            )
        }
    }

    public func delete(key: String) throws(AppexError) {
        do { try keychain.delete(service: Self.service, account: key, accessGroup: accessGroup) } catch
            where error.code == .itemNotFound
        {
            return
        } catch {
            throw AppexError(
                .storage,
                "cannot delete \(key) from the keychain",
                context: AppexError.Context(key: key, group: accessGroup),
                underlyingError: error
            )
        }
    }
}

/// Tokens in an app group's shared defaults (suite `appex.oauth`): simple, not encrypted.
public struct DefaultsTokenStorage: TokenStorage {
    /// The suite.
    public let defaults: SharedDefaults

    /// Storage in the suite `appex.oauth` of `group`.
    public init(group: AppGroup) throws(AppexError) {
        do { defaults = try SharedDefaults(suiteName: "appex.oauth", group: group) } catch {
            throw AppexError(
                .storage,
                "cannot open the token defaults of \(group.identifier)",
                context: AppexError.Context(group: group.identifier),
                underlyingError: error
            )
        }
    }

    public func read(key: String) throws(AppexError) -> Data? { defaults.data(forKey: key) }

    public func write(key: String, data: Data) throws(AppexError) {
        do { try defaults.set(data, forKey: key) } catch {
            throw AppexError(
                .storage,
                "cannot write \(key) to \(defaults.path)",
                context: AppexError.Context(path: defaults.path, key: key),
                underlyingError: error
            )
        }
    }

    public func delete(key: String) throws(AppexError) {
        do { try defaults.removeObject(forKey: key) } catch {
            throw AppexError(
                .storage,
                "cannot delete \(key) from \(defaults.path)",
                context: AppexError.Context(path: defaults.path, key: key),
                underlyingError: error
            )
        }
    }
}
