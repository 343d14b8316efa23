import Crypto
import Foundation
import _CryptoExtras

/// How a passcode becomes the key that wraps a ``SecureStore``'s data key: scrypt (RFC 7914),
/// memory-hard, so that guessing costs memory as well as time on any hardware.
///
/// ``standard`` (N = 2^16, r = 8, p = 1: 64 MiB and about 125 ms a try on the development
/// machines, see `securestore.unlock`; N = 2^15 took 62 ms) makes one attempt deliberately slow. The parameters are
/// stored with each store, so a store keeps opening when the standard changes.
public struct PasscodeKeyDerivation: Sendable, Hashable {
    /// scrypt's cost N, a power of two.
    public var rounds: Int
    /// scrypt's block size r.
    public var blockSize: Int
    /// scrypt's parallelism p.
    public var parallelism: Int

    /// scrypt with N = 2^16, r = 8, p = 1.
    public static let standard = PasscodeKeyDerivation(rounds: 1 << 16, blockSize: 8, parallelism: 1)

    /// scrypt with the given parameters. Fewer than 2^10 rounds is refused when a store is made.
    public init(rounds: Int, blockSize: Int, parallelism: Int) {
        self.rounds = rounds
        self.blockSize = blockSize
        self.parallelism = parallelism
    }

    /// Whether the parameters are ones scrypt takes and that cost a guess something.
    var isUsable: Bool {
        rounds >= 1 << 10 && rounds.nonzeroBitCount == 1 && rounds <= 1 << 22 && (1...32).contains(blockSize)
            && (1...16).contains(parallelism)
    }

    /// The 256-bit key `passcode` (its UTF-8, Unicode-normalized to NFC) gives with `salt`.
    func key(for passcode: String, salt: Data) throws(AppexError) -> SymmetricKey {
        let normalized = passcode.precomposedStringWithCanonicalMapping
        do {
            return try KDF.Scrypt.deriveKey(
                from: Array(normalized.utf8),
                salt: salt,
                outputByteCount: 32,
                rounds: rounds,
                blockSize: blockSize,
                parallelism: parallelism
            )
        } catch {
            throw AppexError(
                .configuration,
                "scrypt refused its parameters (N \(rounds), r \(blockSize), p \(parallelism))",
                underlyingError: error
            )
        }
    }
}
