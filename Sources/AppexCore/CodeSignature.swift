import Crypto
import Foundation

/// A team: who signed a bundle. Derived from the team's Ed25519 public key, in the shape of an
/// Apple team ID (ten characters of `A`–`Z` and `2`–`7`).
public struct TeamIdentifier: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The ten-character identifier.
    public let rawValue: String
    /// Wraps an identifier as printed by `appex keygen`.
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The team whose public key is `publicKey`: the first 50 bits of its SHA-256 in base32.
    public init(publicKey: [UInt8]) {
        let digest = Array(SHA256.hash(data: publicKey))
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bits: UInt64 = 0
        for byte in digest[0..<8] { bits = bits << 8 | UInt64(byte) }
        var characters: [Character] = []
        for index in 0..<10 {
            characters.append(alphabet[Int((bits >> UInt64(59 - 5 * index)) & 0x1f)])
        }
        rawValue = String(characters)
    }
}

/// A team's signing key: an Ed25519 private key. Keep its file private (mode 0600).
public struct SigningKey: Sendable {
    /// The raw 32-byte private key; the Crypto key type is made from it on use.
    private let rawKey: [UInt8]
    var privateKey: Curve25519.Signing.PrivateKey {
        // `rawKey` was produced by, or validated as, an Ed25519 private key.
        // swiftlint:disable:next force_try
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
    public var teamIdentifier: TeamIdentifier { TeamIdentifier(publicKey: Array(privateKey.publicKey.rawRepresentation)) }

    /// The raw 32-byte public key.
    public var publicKey: [UInt8] { Array(privateKey.publicKey.rawRepresentation) }

    /// Reads a key file written by ``write(to:)`` (`appex keygen`).
    public init(contentsOf path: String) throws(AppexError) {
        let bytes: [UInt8]
        do { bytes = try Syscalls.readFile(path, limit: 64 * 1024) } catch { throw .fileSystem("read key file", path, error) }
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let start = lines.firstIndex(of: Self.header), let end = lines.firstIndex(of: Self.footer), start < end,
              let raw = Data(base64Encoded: lines[(start + 1)..<end].joined()), raw.count == 32,
              let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw)
        else {
            throw AppexError(.invalidKey, "\(path) is not an Appex team key (expected \(Self.header) with a base64 Ed25519 key; make one with `appex keygen --output FILE`)")
        }
        rawKey = Array(key.rawRepresentation)
    }

    /// Writes the key to a new file with mode 0600; refuses to replace an existing file.
    public func write(to path: String) throws(AppexError) {
        if (try? Syscalls.lstat(path)) != nil {
            throw AppexError(.refused, "\(path) already exists; not replacing a key file")
        }
        let text = "\(Self.header)\n\(privateKey.rawRepresentation.base64EncodedString())\n\(Self.footer)\n# team \(teamIdentifier)\n"
        do { try Syscalls.writeFileAtomically(path, bytes: Array(text.utf8), mode: 0o600) } catch { throw .fileSystem("write key file", path, error) }
    }

    func signature(for message: [UInt8]) throws -> Data {
        try privateKey.signature(for: message)
    }
}

// MARK: - The seal

/// The seal of a bundle, stored in `_CodeSignature/CodeResources`: the team's public key, a
/// SHA-256 of every file, and an Ed25519 signature over both.
struct CodeSeal: Sendable {
    enum Entry: Hashable, Sendable {
        case file(sha256: [UInt8], executable: Bool)
        case symbolicLink(target: String)
    }

    static let format = "appex-seal-1"
    static let relativePath = "_CodeSignature/CodeResources"

    var teamIdentifier: TeamIdentifier
    var publicKey: [UInt8]
    var entries: [String: Entry]
    var signature: [UInt8]

    /// The bytes the signature covers: the format, the team, the key and every entry, sorted.
    static func signedMessage(team: TeamIdentifier, publicKey: [UInt8], entries: [String: Entry]) -> [UInt8] {
        var text = "\(format)\nteam:\(team.rawValue)\nkey:\(hex(publicKey))\n"
        for path in entries.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            switch entries[path]! {
            case .file(let digest, let executable):
                text += "file:\(hex(digest)):\(executable ? "x" : "-"):\(path)\n"
            case .symbolicLink(let target):
                text += "link:\(hex(Array(SHA256.hash(data: Array(target.utf8))))):\(path)\n"
            }
        }
        return Array(text.utf8)
    }

    var propertyList: [String: PropertyListValue] {
        var files: [String: PropertyListValue] = [:]
        for (path, entry) in entries {
            switch entry {
            case .file(let digest, let executable):
                files[path] = .dictionary(["sha256": .data(Data(digest)), "executable": .boolean(executable)])
            case .symbolicLink(let target):
                files[path] = .dictionary(["symlink": .string(target)])
            }
        }
        return [
            "format": .string(Self.format),
            "teamIdentifier": .string(teamIdentifier.rawValue),
            "publicKey": .data(Data(publicKey)),
            "files": .dictionary(files),
            "signature": .data(Data(signature)),
        ]
    }

    /// Parses a seal; the error says what is malformed.
    init(bytes: [UInt8]) throws(PropertyListReadError) {
        let dictionary = try PropertyListValue.readDictionary(from: Data(bytes))
        guard dictionary["format"]?.stringValue == Self.format else {
            throw PropertyListReadError(reason: "format is not \(Self.format)")
        }
        guard let team = dictionary["teamIdentifier"]?.stringValue else { throw PropertyListReadError(reason: "teamIdentifier is missing") }
        guard case .data(let key)? = dictionary["publicKey"], key.count == 32 else { throw PropertyListReadError(reason: "publicKey is not 32 bytes of data") }
        guard case .data(let signature)? = dictionary["signature"], signature.count == 64 else { throw PropertyListReadError(reason: "signature is not 64 bytes of data") }
        guard let files = dictionary["files"]?.dictionaryValue else { throw PropertyListReadError(reason: "files is not a dictionary") }
        var entries: [String: Entry] = [:]
        for (path, value) in files {
            guard let fields = value.dictionaryValue else { throw PropertyListReadError(reason: "files.\(path) is not a dictionary") }
            if case .data(let digest)? = fields["sha256"], digest.count == 32, let executable = fields["executable"]?.boolValue {
                entries[path] = .file(sha256: Array(digest), executable: executable)
            } else if let target = fields["symlink"]?.stringValue {
                entries[path] = .symbolicLink(target: target)
            } else {
                throw PropertyListReadError(reason: "files.\(path) has neither sha256+executable nor symlink")
            }
        }
        self.teamIdentifier = TeamIdentifier(rawValue: team)
        self.publicKey = Array(key)
        self.entries = entries
        self.signature = Array(signature)
    }

    init(teamIdentifier: TeamIdentifier, publicKey: [UInt8], entries: [String: Entry], signature: [UInt8]) {
        self.teamIdentifier = teamIdentifier
        self.publicKey = publicKey
        self.entries = entries
        self.signature = signature
    }

    /// Whether the signature is the key's over these entries, and the team is the key's.
    var isAuthentic: Bool {
        guard TeamIdentifier(publicKey: publicKey) == teamIdentifier,
              let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        let message = Self.signedMessage(team: teamIdentifier, publicKey: publicKey, entries: entries)
        return key.isValidSignature(signature, for: message)
    }
}

func hex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
}
