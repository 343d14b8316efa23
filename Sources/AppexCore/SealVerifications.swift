import AppexSystem
import Crypto
import Synchronization

/// Seals whose Ed25519 signature has been checked and held, remembered by the SHA-256 of the
/// seal's whole file: the team, the team's public key, every file's digest and the signature
/// are all in those bytes, so a seal changed in any byte (another key, another file digest) is a
/// different entry and is checked again. Only the signature check is skipped: every file of a
/// bundle is still hashed and compared with its seal at every load.
///
/// Verifying a signature costs about 165 µs in this VM; a discovery of 1,000 bundles spent most of its cold
/// snapshot on it (docs/decisions/0008-discovery-caching.md). Kept in
/// `$APPEX_HOME/Caches/seal-verifications`, a file of 32-byte records appended in one
/// `O_APPEND` write per snapshot, so a new process (a new host, `appex doctor`) starts warm.
/// The file is the host user's, like the registry: whoever can write it can already approve
/// extensions. A torn tail is ignored, and the file starts over past ``capacity`` records.
package final class SealVerifications: Sendable {
    /// Where the records are kept; `nil`: in this process only.
    package let file: String?
    private let state = Mutex<State>(State())

    private struct State {
        var loaded = false
        var known: Set<Key> = []
        var unsaved: [Key] = []
    }

    /// The most records the file holds before it starts over (3.2 MB).
    package static let capacity = 100_000

    /// Remembers verifications in `file` (created when first saved), or only in memory.
    package init(file: String?) {
        self.file = file
    }

    /// The cache of `environment`: `$APPEX_HOME/Caches/seal-verifications`.
    package convenience init(environment: AppexEnvironment) {
        self.init(file: environment.home + "/Caches/seal-verifications")
    }

    /// Whether `seal`, read from `bytes`, is signed by its key and its team is that key's:
    /// remembered when it is, so the same bytes are not verified again.
    func isAuthentic(_ seal: CodeSeal, bytes: [UInt8]) -> Bool {
        let digest = Self.record(ofSeal: bytes)
        let known = state.withLock { state in
            loadIfNeeded(&state)
            return state.known.contains(digest)
        }
        if known { return true }
        guard seal.isAuthentic else { return false }
        state.withLock { state in
            if state.known.insert(digest).inserted { state.unsaved.append(digest) }
        }
        return true
    }

    /// The record of a seal whose bytes are `bytes`: the SHA-256 of a versioned prefix and the
    /// bytes, so a later format or a stricter check starts from nothing.
    package static func record(ofSeal bytes: [UInt8]) -> Key {
        var hasher = SHA256()
        hasher.update(data: Array("appex-seal-verified-1\0".utf8))
        hasher.update(data: bytes)
        return Key(hasher.finalize())
    }

    /// Appends what was verified since the last save to the file. A failure to write is not an
    /// error of the caller's: the seals are verified again next time.
    package func save() {
        guard let file else { return }
        let records: [UInt8] = state.withLock { state in
            defer { state.unsaved.removeAll() }
            return state.unsaved.flatMap(\.bytes)
        }
        guard !records.isEmpty else { return }
        let directory = String(file[..<(file.lastIndex(of: "/") ?? file.startIndex)])
        try? Syscalls.makeDirectories(directory, mode: 0o700)
        // After a torn record (a write cut short), zeros up to the next record's boundary: no
        // record is all zeros, and the records after stay aligned.
        let torn = ((try? Syscalls.stat(file))?.size).map { Int($0) % Key.size } ?? 0
        let padding = torn == 0 ? [] : [UInt8](repeating: 0, count: Key.size - torn)
        try? Syscalls.append(padding + records, toFile: file, mode: 0o600)
    }

    /// Reads the file once: whole records only (a torn last record, a write cut short, is
    /// ignored; ``save()`` pads past it). A file past capacity starts over.
    private func loadIfNeeded(_ state: inout State) {
        guard !state.loaded else { return }
        state.loaded = true
        guard let file else { return }
        let bytes: [UInt8]
        do {
            bytes = try Syscalls.readFile(file, limit: Self.capacity * Key.size)
        } catch {
            if error.errno == .fileTooLarge { try? Syscalls.writeFileAtomically(file, bytes: [], mode: 0o600) }
            return
        }
        let whole = bytes.count - bytes.count % Key.size
        state.known.reserveCapacity(whole / Key.size)
        for offset in stride(from: 0, to: whole, by: Key.size) {
            state.known.insert(Key(bytes[offset..<offset + Key.size]))
        }
    }

    /// A SHA-256, as four words: hashed and compared without an allocation.
    package struct Key: Hashable, Sendable {
        static let size = 32
        var words: (UInt64, UInt64, UInt64, UInt64)

        init(_ bytes: some Sequence<UInt8>) {
            var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            for (index, byte) in bytes.prefix(Self.size).enumerated() {
                switch index / 8 {
                case 0: words.0 = words.0 << 8 | UInt64(byte)
                case 1: words.1 = words.1 << 8 | UInt64(byte)
                case 2: words.2 = words.2 << 8 | UInt64(byte)
                default: words.3 = words.3 << 8 | UInt64(byte)
                }
            }
            self.words = words
        }

        /// The 32 bytes, big-endian words in order.
        package var bytes: [UInt8] {
            [words.0, words.1, words.2, words.3].flatMap { word in
                (0..<8).map { UInt8(truncatingIfNeeded: word >> (56 - 8 * $0)) }
            }
        }

        package static func == (a: Key, b: Key) -> Bool { a.words == b.words }
        package func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }
}
