public import AppexCore
import AppexSystem
public import AppexVocabulary
import Crypto
import Foundation

/// A team's signing key: an Ed25519 private key. Keep its file private (mode 0600).
public struct SigningKey: Sendable {
    /// The raw 32-byte private key; the Crypto key type is made from it on use.
    private let rawKey: [UInt8]
    var privateKey: Curve25519.Signing.PrivateKey {
        // `rawKey` was produced by, or validated as, an Ed25519 private key (32 bytes), for
        // which this initializer cannot fail.
        try! Curve25519.Signing.PrivateKey(rawRepresentation: rawKey)
    }

    private static let header = "-----BEGIN APPEX TEAM PRIVATE KEY-----"
    private static let footer = "-----END APPEX TEAM PRIVATE KEY-----"

    /// Makes a new random key.
    public static func generate() -> SigningKey {
        SigningKey(privateKey: Curve25519.Signing.PrivateKey())
    }

    init(privateKey: Curve25519.Signing.PrivateKey) { rawKey = Array(privateKey.rawRepresentation) }

    /// The team this key signs for.
    public var teamIdentifier: TeamIdentifier {
        TeamIdentifier(publicKey: Array(privateKey.publicKey.rawRepresentation))
    }

    /// The raw 32-byte public key.
    public var publicKey: [UInt8] { Array(privateKey.publicKey.rawRepresentation) }

    /// Reads a key file written by ``write(to:)`` (`appex keygen`).
    public init(contentsOf path: String) throws(AppexError) {
        let bytes: [UInt8]
        do { bytes = try Syscalls.readFile(path, limit: 64 * 1024) } catch {
            throw .fileSystem("read key file", path, error)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let start = lines.firstIndex(of: Self.header), let end = lines.firstIndex(of: Self.footer), start < end,
            let raw = Data(base64Encoded: lines[(start + 1)..<end].joined()), raw.count == 32,
            let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw)
        else {
            throw AppexError(
                .invalidKey,
                "\(path) is not an Appex team key (expected \(Self.header) with a base64 Ed25519 key; make one with `appex keygen --output FILE`)",
                context: AppexError.Context(path: path)
            )
        }
        rawKey = Array(key.rawRepresentation)
    }

    /// Writes the key to a new file with mode 0600; refuses to replace an existing file.
    public func write(to path: String) throws(AppexError) {
        if (try? Syscalls.lstat(path)) != nil {
            throw AppexError(
                .refused,
                "\(path) already exists; not replacing a key file",
                context: AppexError.Context(path: path)
            )
        }
        let text =
            "\(Self.header)\n\(privateKey.rawRepresentation.base64EncodedString())\n\(Self.footer)\n# team \(teamIdentifier)\n"
        do { try Syscalls.writeFileAtomically(path, bytes: Array(text.utf8), mode: 0o600) } catch {
            throw .fileSystem("write key file", path, error)
        }
    }

    func signature(for message: [UInt8]) throws -> Data {
        try privateKey.signature(for: message)
    }
}
