import AppexAuth
public import Foundation

/// The HAAPI SDK's storage of tokens and registered clients, with its plain-`throws` methods, so
/// that a conformance written for the SDK (seed 003's `SharedTokenStorage`) compiles as written.
///
/// A storage is read and written by several processes of one app group; make it from
/// AppexStore's shared stores (`SharedDefaults(suiteName:)`, ``SharedKeychainStorage``).
public protocol Storage: Sendable {
    /// The data under `key`, or `nil`.
    func read(key: String) throws -> Data?
    /// Stores `data` under `key`.
    func write(key: String, data: Data) throws
    /// Removes what is under `key`.
    func delete(key: String) throws
}

/// A ``Storage`` as AppexAuth's `TokenStorage`: its errors become `AppexError`s that name the key.
struct StorageAsTokenStorage: TokenStorage {
    let storage: any Storage

    func read(key: String) throws(AppexError) -> Data? {
        do { return try storage.read(key: key) } catch { throw Self.failure("read", key, error) }
    }

    func write(key: String, data: Data) throws(AppexError) {
        do { try storage.write(key: key, data: data) } catch { throw Self.failure("write", key, error) }
    }

    func delete(key: String) throws(AppexError) {
        do { try storage.delete(key: key) } catch { throw Self.failure("delete", key, error) }
    }

    private static func failure(_ verb: String, _ key: String, _ error: any Error) -> AppexError {
        if let error = error as? AppexError { return error }
        return AppexError(
            .storage,
            "cannot \(verb) \(key) in the storage",
            context: .init(key: key),
            underlyingError: error
        )
    }
}
