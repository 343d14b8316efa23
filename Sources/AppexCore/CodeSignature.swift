package import AppexSystem
import AppexVocabulary
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

// MARK: - The seal

/// The seal of a bundle, stored in `_CodeSignature/CodeResources`: the team's public key, a
/// SHA-256 of every file, and an Ed25519 signature over all of it.
///
/// The file is UTF-8 text, one record a line, so it reads and diffs plainly:
///
///     appex-seal-1
///     team HLV3MSPTSB
///     key <64 hex digits: the Ed25519 public key>
///     file <64 hex digits: SHA-256> <x or -: executable> <path>
///     link <hex of the link's target> <path>
///     signature <128 hex digits>
///
/// Entries are sorted by the UTF-8 bytes of their paths. The signature covers every byte before
/// the `signature` line, exactly as stored, so nothing that is not signed is ever read.
package struct CodeSeal: Sendable {
    package enum Entry: Hashable, Sendable {
        case file(sha256: [UInt8], executable: Bool)
        case symbolicLink(target: String)
    }

    static let format = "appex-seal-1"

    var teamIdentifier: TeamIdentifier
    var publicKey: [UInt8]
    var entries: [String: Entry]
    /// The signed bytes, as stored.
    var message: [UInt8]
    var signature: [UInt8]

    /// The signed part of a seal: header and sorted entries.
    package static func signedMessage(team: TeamIdentifier, publicKey: [UInt8], entries: [String: Entry]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128 + entries.count * 96)
        out += Array("\(format)\nteam \(team.rawValue)\nkey ".utf8)
        appendHex(publicKey, to: &out)
        out.append(0x0a)
        for path in entries.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            switch entries[path]! {
            case .file(let digest, let executable):
                out += Array("file ".utf8)
                appendHex(digest, to: &out)
                out += executable ? Array(" x ".utf8) : Array(" - ".utf8)
            case .symbolicLink(let target):
                out += Array("link ".utf8)
                appendHex(Array(target.utf8), to: &out)
                out.append(0x20)
            }
            out += Array(path.utf8)
            out.append(0x0a)
        }
        return out
    }

    /// The whole file: the signed message and its signature line.
    package static func encode(message: [UInt8], signature: [UInt8]) -> [UInt8] {
        var out = message
        out += Array("signature ".utf8)
        appendHex(signature, to: &out)
        out.append(0x0a)
        return out
    }

    /// The largest seal read: about 40,000 files. Anything bigger is refused before parsing.
    static let maximumSize = 4 << 20

    /// Parses a seal line by line; the error says what is malformed. Does not check the
    /// signature. Nothing is allocated in proportion to a count the file claims.
    init(bytes: [UInt8]) throws(PropertyListReadError) {
        func fail(_ reason: String) -> PropertyListReadError { PropertyListReadError(reason: reason) }
        guard bytes.count <= Self.maximumSize else { throw fail("larger than \(Self.maximumSize) bytes") }
        guard bytes.last == 0x0a else { throw fail("the last line is not terminated") }
        // The signature line is the last one.
        let bodyEnd = bytes.count - 1
        let signatureStart = (bytes[..<bodyEnd].lastIndex(of: 0x0a) ?? -1) + 1
        let signatureLine = bytes[signatureStart..<bodyEnd]
        guard signatureLine.starts(with: "signature ".utf8),
            let signature = Self.unhex(signatureLine.dropFirst(10)), signature.count == 64
        else { throw fail("the last line is not `signature` and 128 hex digits") }

        var position = 0
        var number = 0
        func nextLine() -> ArraySlice<UInt8>? {
            guard position < signatureStart else { return nil }
            let end = bytes[position..<signatureStart].firstIndex(of: 0x0a) ?? signatureStart
            defer { position = end + 1 }
            number += 1
            return bytes[position..<end]
        }
        guard let format = nextLine(), format.elementsEqual(Self.format.utf8) else {
            throw fail("the first line is not \(Self.format)")
        }
        guard let team = nextLine(), team.starts(with: "team ".utf8), team.count == 15 else {
            throw fail("the second line is not `team` and a team ID")
        }
        guard let keyLine = nextLine(), keyLine.starts(with: "key ".utf8), let key = Self.unhex(keyLine.dropFirst(4)),
            key.count == 32
        else { throw fail("the third line is not `key` and 64 hex digits") }
        var entries: [String: Entry] = [:]
        var previous: String?
        while let line = nextLine() {
            let path: String
            let entry: Entry
            if line.starts(with: "file ".utf8), line.count > 5 + 64 + 3 {
                let body = line.dropFirst(5)
                guard let digest = Self.unhex(body.prefix(64)), body.dropFirst(64).first == 0x20,
                    let flag = body.dropFirst(65).first, flag == UInt8(ascii: "x") || flag == UInt8(ascii: "-"),
                    body.dropFirst(66).first == 0x20
                else { throw fail("line \(number) is not `file`, a SHA-256, x or -, and a path") }
                guard let name = String(validating: body.dropFirst(67), as: UTF8.self) else {
                    throw fail("line \(number): the path is not UTF-8")
                }
                path = name
                entry = .file(sha256: digest, executable: flag == UInt8(ascii: "x"))
            } else if line.starts(with: "link ".utf8), let space = line.dropFirst(5).firstIndex(of: 0x20),
                let target = Self.unhex(line[(line.startIndex + 5)..<space]),
                let targetText = String(validating: target, as: UTF8.self),
                let name = String(validating: line[(space + 1)...], as: UTF8.self)
            {
                path = name
                entry = .symbolicLink(target: targetText)
            } else {
                throw fail("line \(number) is neither a `file` nor a `link` record")
            }
            if path.isEmpty { throw fail("line \(number) names no path") }
            if let previous, !previous.utf8.lexicographicallyPrecedes(path.utf8) {
                throw fail("line \(number): paths are not sorted or repeat (\(path))")
            }
            previous = path
            entries[path] = entry
        }
        self.teamIdentifier = TeamIdentifier(rawValue: String(decoding: team.dropFirst(5), as: UTF8.self))
        self.publicKey = key
        self.entries = entries
        self.message = Array(bytes[..<signatureStart])
        self.signature = signature
    }

    /// Whether the signature is the key's over the stored message, and the team is the key's.
    var isAuthentic: Bool {
        guard TeamIdentifier(publicKey: publicKey) == teamIdentifier,
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey)
        else { return false }
        return key.isValidSignature(signature, for: message)
    }

    private static func unhex(_ digits: some Collection<UInt8>) -> [UInt8]? {
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var high: UInt8?
        for digit in digits {
            let value: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = digit - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let h = high {
                out.append(h << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return out
    }
}

private let hexDigits = Array("0123456789abcdef".utf8)

func appendHex(_ bytes: some Sequence<UInt8>, to out: inout [UInt8]) {
    for byte in bytes {
        out.append(hexDigits[Int(byte >> 4)])
        out.append(hexDigits[Int(byte & 0x0f)])
    }
}

extension AppexBundle {
    /// The SHA-256 of the file at `path`, read in chunks: what a seal records and checks.
    package static func sha256(ofFile path: String) throws(SystemError) -> [UInt8] {
        var hasher = SHA256()
        try Syscalls.readChunks(path) { hasher.update(bufferPointer: $0) }
        return Array(hasher.finalize())
    }
}
