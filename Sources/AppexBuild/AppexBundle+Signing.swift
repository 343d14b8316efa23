public import AppexCore
import AppexSystem
import AppexVocabulary
import Crypto
import Foundation
import Synchronization

// MARK: - Signing

extension AppexBundle {
    /// Seals the bundle at `path` for `key`'s team: writes `_CodeSignature/CodeResources`
    /// with a SHA-256 of every file (Info.plist and entitlements included) and the team's
    /// Ed25519 signature. Bundles nested in a host's `Extensions/` are not covered: each
    /// carries its own seal.
    ///
    /// - Returns: the number of files sealed.
    @discardableResult
    public static func sign(at path: String, with key: SigningKey) throws(AppexError) -> Int {
        let root = normalized(path)
        let walk: BundleWalk
        do { walk = try BundleWalk(root: root, kind: kind(ofPath: root) ?? .hostApp) } catch {
            throw .fileSystem("read bundle", root, error)
        }
        if let first = walk.unsupported.first {
            throw AppexError(
                .invalidBundle,
                "cannot sign \(root): \(first.path) cannot be sealed: \(first.reason)",
                context: AppexError.Context(path: root),
                problems: walk.unsupported.map {
                    BundleProblem(
                        .unsupportedFile,
                        file: root + "/" + $0.path,
                        message: "\($0.path) cannot be sealed: \($0.reason)"
                    )
                }
            )
        }
        var entries: [String: CodeSeal.Entry] = [:]
        for entry in walk.entries {
            if entry.relativePath.contains("\n") {
                throw AppexError(
                    .invalidBundle,
                    "cannot sign \(root): the file name \(entry.relativePath.debugDescription) contains a newline",
                    context: AppexError.Context(path: root)
                )
            }
            switch entry.status.kind {
            case .regular:
                do {
                    entries[entry.relativePath] = .file(
                        sha256: try sha256(ofFile: root + "/" + entry.relativePath),
                        executable: entry.status.isExecutable
                    )
                } catch {
                    throw .fileSystem("read", root + "/" + entry.relativePath, error)
                }
            case .symbolicLink:
                do {
                    entries[entry.relativePath] = .symbolicLink(
                        target: try Syscalls.readLink(root + "/" + entry.relativePath)
                    )
                } catch {
                    throw .fileSystem("read link", root + "/" + entry.relativePath, error)
                }
            case .directory:
                break
            case .other:
                throw AppexError(
                    .invalidBundle,
                    "cannot sign \(root): \(entry.relativePath) is neither a file, a directory nor a symbolic link",
                    context: AppexError.Context(path: root)
                )
            }
        }
        let team = key.teamIdentifier
        let message = CodeSeal.signedMessage(team: team, publicKey: key.publicKey, entries: entries)
        let signature: Data
        do { signature = try key.signature(for: message) } catch {
            throw AppexError(
                .invalidKey,
                "signing \(root) failed",
                context: AppexError.Context(path: root),
                underlyingError: error
            )
        }
        let sealBytes = CodeSeal.encode(message: message, signature: Array(signature))
        do {
            try Syscalls.makeDirectories(root + "/_CodeSignature", mode: 0o755)
            try Syscalls.writeFileAtomically(root + "/" + File.seal, bytes: sealBytes, mode: 0o644)
        } catch {
            throw .fileSystem("write the seal of", root, error)
        }
        return entries.count
    }
}
