import Crypto
import Foundation

/// A secure store's data key, and the keys derived from it: one seals values, one names items
/// (an HMAC of the key, so item keys are not stored readable), one seals the names themselves.
///
/// Kept as bytes: swift-crypto's `SymmetricKey` is not `Sendable` on Linux.
struct DataKey: Sendable {
    private let keyBytes: [UInt8]
    private let valueBytes: [UInt8]
    private let identifierBytes: [UInt8]
    private let nameBytes: [UInt8]

    /// The data key (random, 256 bits; stored only wrapped).
    var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    /// Seals each value (AES-256-GCM).
    var values: SymmetricKey { SymmetricKey(data: valueBytes) }
    /// Makes an item's identifier from its key (HMAC-SHA256).
    var identifiers: SymmetricKey { SymmetricKey(data: identifierBytes) }
    /// Seals item keys, so ``SecureStore/keys()`` can list them.
    var names: SymmetricKey { SymmetricKey(data: nameBytes) }

    init(_ key: SymmetricKey) {
        keyBytes = key.withUnsafeBytes { Array($0) }
        valueBytes = Self.derive(key, "values").withUnsafeBytes { Array($0) }
        identifierBytes = Self.derive(key, "identifiers").withUnsafeBytes { Array($0) }
        nameBytes = Self.derive(key, "names").withUnsafeBytes { Array($0) }
    }

    /// A new random data key.
    static func random() -> DataKey { DataKey(SymmetricKey(size: .bits256)) }

    private static func derive(_ key: SymmetricKey, _ purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: key,
            info: Data("appex.securestore.\(purpose)".utf8),
            outputByteCount: 32
        )
    }

    /// The item identifier of `name`.
    func identifier(of name: String) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data(name.utf8), using: identifiers))
    }

    /// The data key sealed under `wrappingKey`, bound to `purpose` (which wrap this is).
    func wrapped(under wrappingKey: SymmetricKey, purpose: String) throws(AppexError) -> Data {
        try Self.seal(Data(keyBytes), under: wrappingKey, binding: Data("wrap:\(purpose)".utf8))
    }

    /// The data key `wrapped` holds, if `wrappingKey` opens it.
    static func unwrap(_ wrapped: Data, under wrappingKey: SymmetricKey, purpose: String) -> DataKey? {
        guard let bytes = open(wrapped, under: wrappingKey, binding: Data("wrap:\(purpose)".utf8)), bytes.count == 32
        else {
            return nil
        }
        return DataKey(SymmetricKey(data: bytes))
    }

    /// AES-256-GCM: nonce, ciphertext and tag, authenticating `binding`.
    static func seal(_ plaintext: Data, under key: SymmetricKey, binding: Data) throws(AppexError) -> Data {
        do {
            guard let combined = try AES.GCM.seal(plaintext, using: key, authenticating: binding).combined else {
                throw CryptoKitError.incorrectParameterSize
            }
            return combined
        } catch {
            throw AppexError(.storage, "cannot seal a value of the secure store", underlyingError: error)
        }
    }

    /// What ``seal(_:under:binding:)`` sealed; `nil` when the key or the binding is not the one.
    static func open(_ sealed: Data, under key: SymmetricKey, binding: Data) -> Data? {
        guard let box = try? AES.GCM.SealedBox(combined: sealed) else { return nil }
        return try? AES.GCM.open(box, using: key, authenticating: binding)
    }
}
