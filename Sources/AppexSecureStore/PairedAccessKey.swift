import Crypto
import Foundation

/// A symmetric paired access key (SPAK, seed 002): a 256-bit key that opens a ``SecureStore``
/// beside the passcode, split 2-of-2 between the host (the primary share) and its extensions
/// (the auxiliary share), so that neither alone opens anything.
///
/// The auxiliary share is random; the primary share is the key XOR the auxiliary share. Each is
/// uniformly random on its own. Every passcode change makes a new key, of the next generation.
struct PairedAccessKey: Sendable {
    /// The generation: 1 for the first key of a store, one more at each change.
    let generation: UInt64
    /// The key itself (never stored; bytes, as `SymmetricKey` is not `Sendable` on Linux).
    private let keyBytes: [UInt8]
    /// The key itself.
    var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    /// The host's share, kept in the host's private keychain group.
    let primary: [UInt8]
    /// The extensions' share, published encrypted as ``ESPAKAuxiliary``.
    let auxiliary: [UInt8]

    /// A new key of `generation`, and its shares.
    static func make(generation: UInt64) -> PairedAccessKey {
        let key = SymmetricKey(size: .bits256)
        let auxiliary = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        let primary = key.withUnsafeBytes { bytes in zip(bytes, auxiliary).map { $0 ^ $1 } }
        return PairedAccessKey(
            generation: generation,
            keyBytes: key.withUnsafeBytes { Array($0) },
            primary: primary,
            auxiliary: auxiliary
        )
    }

    /// The key two shares make (any two 32-byte values make some key; only the right pair makes
    /// the one that unwraps the data key).
    static func combine(primary: [UInt8], auxiliary: [UInt8]) -> SymmetricKey {
        SymmetricKey(data: zip(primary, auxiliary).map { $0 ^ $1 })
    }
}

/// The auxiliary share as extensions hold it and send it (SAP's `eSPAKAuxiliary`): its
/// generation in the clear, the share sealed (AES-256-GCM) under a key derived from the
/// primary share, so the bytes are useless without the host's share.
///
/// Layout: `ESPK`, a version byte (1), the generation (8 bytes, big-endian), then the sealed
/// share (12-byte nonce, 32 bytes, 16-byte tag): 73 bytes. The store's identifier and the header
/// are authenticated with it, so a share of another store, or with its generation edited, fails.
struct ESPAKAuxiliary: Sendable, Equatable {
    static let magic = Array("ESPK".utf8)
    static let version: UInt8 = 1
    static let byteCount = 4 + 1 + 8 + 12 + 32 + 16

    /// The generation of the key it is a share of.
    let generation: UInt64
    /// The sealed share.
    let sealed: Data

    /// The bytes extensions hold.
    var bytes: Data { Self.header(generation) + sealed }

    /// The share of `key`, sealed for the store `storeIdentifier`.
    init(sealing key: PairedAccessKey, storeIdentifier: String) throws(AppexError) {
        generation = key.generation
        do {
            let box = try AES.GCM.seal(
                key.auxiliary,
                using: Self.sealingKey(primary: key.primary, storeIdentifier: storeIdentifier),
                authenticating: Self.header(key.generation) + Data(storeIdentifier.utf8)
            )
            guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
            sealed = combined
        } catch {
            throw AppexError(.storage, "cannot seal the auxiliary share", underlyingError: error)
        }
    }

    /// Reads the bytes an extension sent; `nil` when they are not an auxiliary share at all.
    init?(bytes: Data) {
        let bytes = Array(bytes)
        guard bytes.count == Self.byteCount, Array(bytes[0..<4]) == Self.magic, bytes[4] == Self.version else {
            return nil
        }
        generation = bytes[5..<13].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        sealed = Data(bytes[13...])
    }

    /// The auxiliary share, opened with the primary share of the same generation; `nil` when
    /// that primary share does not open it.
    func auxiliaryShare(primary: [UInt8], storeIdentifier: String) -> [UInt8]? {
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let share = try? AES.GCM.open(
                box,
                using: Self.sealingKey(primary: primary, storeIdentifier: storeIdentifier),
                authenticating: Self.header(generation) + Data(storeIdentifier.utf8)
            ),
            share.count == 32
        else { return nil }
        return Array(share)
    }

    private static func header(_ generation: UInt64) -> Data {
        var header = Data(magic)
        header.append(version)
        for shift in stride(from: 56, through: 0, by: -8) {
            header.append(UInt8(truncatingIfNeeded: generation >> UInt64(shift)))
        }
        return header
    }

    private static func sealingKey(primary: [UInt8], storeIdentifier: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: primary),
            salt: Data(storeIdentifier.utf8),
            info: Data("appex.securestore.eSPAKAuxiliary".utf8),
            outputByteCount: 32
        )
    }
}
