import AppexSystem
import Crypto
import Foundation
import Synchronization

/// A host app (`.app`) or app extension (`.appex`) bundle as found on disk, fully validated.
///
/// Loading never throws: every problem (Info.plist keys, entitlements, executable, extension
/// point declarations, seal) is collected in ``problems`` at once, each naming its file and key.
/// Whether an extension's point is declared by its host is checked by discovery, which knows
/// the host.
public struct AppexBundle: Sendable {
    /// Whether a bundle is a host app or an extension.
    public enum Kind: String, Sendable, Codable {
        /// A `.app` bundle: declares extension points, may ship extensions in `Extensions/`.
        case hostApp = "host-app"
        /// An `.appex` bundle: one extension, bound to one extension point.
        case appExtension = "app-extension"
    }

    /// Where the bundle is (absolute path, no trailing slash).
    public let path: String
    /// Host app or extension.
    public let kind: Kind
    /// The `Info.plist`.
    public let info: BundleInfo
    /// The `Entitlements.plist`, or ``Entitlements/none`` when the bundle has none.
    public let entitlements: Entitlements
    /// The team whose signature on the seal verifies, even if files were changed since; `nil`
    /// when unsigned or the signature is bad.
    public let team: TeamIdentifier?
    /// The extension points a host declares in `ExtensionPoints/`; empty for extensions.
    public let extensionPoints: [ExtensionPointDeclaration]
    /// Everything wrong with the bundle; empty when it is valid.
    public let problems: [BundleProblem]
    /// The number of files the bundle holds (what its seal covers or should cover).
    public let fileCount: Int

    /// A digest of every file's identity and timestamps: equal fingerprints mean the bundle
    /// has not changed on disk, so a cached load can be reused.
    package let observation: BundleObservation

    /// The bundle's directories (absolute; the root first): what a watcher must watch to see
    /// any file of the bundle change.
    package let directories: [String]

    /// Whether the bundle has no problems.
    public var isValid: Bool { problems.isEmpty }

    /// `Info.plist`'s bundle identifier.
    public var bundleIdentifier: String? { info.bundleIdentifier }

    /// The file names Appex reads inside every bundle.
    public enum File {
        public static let info = "Info.plist"
        public static let entitlements = "Entitlements.plist"
        public static let seal = "_CodeSignature/CodeResources"
        public static let extensionPoints = "ExtensionPoints"
        public static let extensions = "Extensions"
    }

    /// The kind a path's name implies: `.app` is a host, `.appex` an extension.
    public static func kind(ofPath path: String) -> Kind? {
        if path.hasSuffix(".appex") || path.hasSuffix(".appex/") { return .appExtension }
        if path.hasSuffix(".app") || path.hasSuffix(".app/") { return .hostApp }
        return nil
    }

    /// Reads and validates the bundle at `path`.
    ///
    /// - Parameters:
    ///   - path: the bundle directory.
    ///   - kind: host or extension; inferred from the name's extension when `nil`
    ///     (`.appex` is an extension, anything else a host).
    public static func load(at path: String, as kind: Kind? = nil) -> AppexBundle {
        let root = normalized(path)
        let kind = kind ?? Self.kind(ofPath: root) ?? .hostApp
        var loader = BundleLoader(root: root, kind: kind)
        return loader.load()
    }

    /// Cheaply tells whether the bundle on disk still matches this load (same files, same
    /// inodes, sizes and timestamps); `false` means it must be loaded again.
    public func isUpToDate() -> Bool {
        observation.isCurrent()
    }

    package static func normalized(_ path: String) -> String {
        var path = path
        if !path.hasPrefix("/") {
            path = FileManager.default.currentDirectoryPath + "/" + path
        }
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }
}

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

    static func sha256(ofFile path: String) throws(SystemError) -> [UInt8] {
        var hasher = SHA256()
        try Syscalls.readChunks(path) { hasher.update(bufferPointer: $0) }
        return Array(hasher.finalize())
    }
}

// MARK: - Walking a bundle

/// What a load saw of a bundle's files: every file and directory with its `lstat` (inode,
/// size, mode, timestamps), taken before anything was read.
///
/// The bundle is unchanged while each of those still stats the same: a modified, replaced or
/// re-moded file changes its own status, and a file added, removed or renamed changes its
/// directory's modification time (the approach of git's index).
package struct BundleObservation: Sendable {
    var entries: [(path: String, status: FileStatus)]
    /// Distinct for every load in this process: equal identifiers mean the same load.
    package let loadIdentifier: UInt64
    /// When the statuses were taken (wall clock, ns).
    let takenAt: Int64
    /// Timestamps this close to the observation cannot vouch for the file: a same-size rewrite
    /// within one timestamp tick would leave its status unchanged (git's "racy clean" case).
    static let racyWindow: Int64 = 20_000_000

    private static let counter = Atomic<UInt64>(0)

    init(entries: [(path: String, status: FileStatus)]) {
        self.entries = entries
        self.loadIdentifier = Self.counter.add(1, ordering: .relaxed).newValue
        self.takenAt = Syscalls.wallClockNanoseconds()
    }

    /// Whether every observed entry still stats the same (one `lstat` each).
    func isCurrent() -> Bool {
        guard !entries.isEmpty else { return false }
        let trustedBefore = takenAt - Self.racyWindow
        for entry in entries {
            if entry.status.modificationNanoseconds >= trustedBefore || entry.status.changeNanoseconds >= trustedBefore
            {
                return false
            }
            guard let now = try? Syscalls.lstat(entry.path), now == entry.status else { return false }
        }
        return true
    }
}

/// Every entry of a bundle's tree, except its seal and the bundles nested in `Extensions/`.
struct BundleWalk {
    struct Entry {
        var relativePath: String
        var status: FileStatus
    }

    let root: String
    let kind: AppexBundle.Kind
    private(set) var entries: [Entry] = []
    /// Entries the seal cannot vouch for, by relative path, with why.
    private(set) var unsupported: [(path: String, reason: String)] = []
    /// The root's status (followed, as given) and the seal's, if there is one.
    private var rootStatus: FileStatus
    private var sealStatus: FileStatus?

    init(root: String, kind: AppexBundle.Kind) throws(SystemError) {
        self.root = root
        self.kind = kind
        rootStatus = try Syscalls.lstat(root)
        if rootStatus.kind == .symbolicLink { rootStatus = try Syscalls.stat(root) }
        guard rootStatus.kind == .directory else { throw SystemError("opendir", .notDirectory) }
        try visit(relative: "")
        entries.sort { $0.relativePath.utf8.lexicographicallyPrecedes($1.relativePath.utf8) }
    }

    /// Why the link at `relative` cannot be sealed, if it cannot: its target is absolute or
    /// climbs out of the bundle (the seal would vouch for a file it does not cover).
    static func linkProblem(root: String, relative: String) -> String? {
        let target: String
        do { target = try Syscalls.readLink(root + "/" + relative) } catch {
            return "the link cannot be read (\(error))"
        }
        if target.hasPrefix("/") { return "it is a link to \(target), outside the bundle" }
        var depth = relative.split(separator: "/").count - 1
        for component in target.split(separator: "/", omittingEmptySubsequences: true) {
            if component == ".." {
                depth -= 1
                if depth < 0 { return "it is a link to \(target), which leads out of the bundle" }
            } else if component != "." {
                depth += 1
            }
        }
        return nil
    }

    /// Everything this walk stat'ed, for telling later whether the bundle changed.
    var observation: BundleObservation {
        var observed = [(path: root, status: rootStatus)]
        observed += entries.map { (path: root + "/" + $0.relativePath, status: $0.status) }
        if let sealStatus { observed.append((path: root + "/" + AppexBundle.File.seal, status: sealStatus)) }
        return BundleObservation(entries: observed)
    }

    private mutating func visit(relative: String) throws(SystemError) {
        let directory = relative.isEmpty ? root : root + "/" + relative
        for (validName, printable, status) in try Syscalls.directoryEntriesWithStatus(directory) {
            guard let name = validName else {
                let shown = relative.isEmpty ? printable : relative + "/" + printable
                unsupported.append((shown, "its name is not valid UTF-8"))
                continue
            }
            let child = relative.isEmpty ? name : relative + "/" + name
            if child == AppexBundle.File.seal {
                sealStatus = status
                continue
            }
            switch status.kind {
            case .directory:
                // A host's nested extensions carry their own seals.
                if kind == .hostApp && relative == AppexBundle.File.extensions && name.hasSuffix(".appex") { continue }
                entries.append(Entry(relativePath: child, status: status))
                do {
                    try visit(relative: child)
                } catch {
                    unsupported.append((child, "the directory cannot be read: \(error)"))
                }
            case .symbolicLink:
                entries.append(Entry(relativePath: child, status: status))
                if let reason = Self.linkProblem(root: root, relative: child) { unsupported.append((child, reason)) }
            case .regular:
                entries.append(Entry(relativePath: child, status: status))
            case .other:
                entries.append(Entry(relativePath: child, status: status))
                unsupported.append((child, "it is a device, socket or pipe"))
            }
        }
    }
}

// MARK: - Loading

private struct BundleLoader {
    let root: String
    let kind: AppexBundle.Kind
    var problems: [BundleProblem] = []

    init(root: String, kind: AppexBundle.Kind) {
        self.root = root
        self.kind = kind
    }

    mutating func load() -> AppexBundle {
        let infoPath = root + "/" + AppexBundle.File.info
        let walk: BundleWalk
        do {
            walk = try BundleWalk(root: root, kind: kind)
        } catch {
            let problem = BundleProblem(
                .unreadableFile,
                file: root,
                message: "cannot read the bundle directory: \(error)"
            )
            return AppexBundle(
                path: root,
                kind: kind,
                info: BundleInfo(data: [], file: infoPath, role: .hostApp).replacingProblems([problem]),
                entitlements: .none,
                team: nil,
                extensionPoints: [],
                problems: [problem],
                fileCount: 0,
                observation: BundleObservation(entries: []),
                directories: [root]
            )
        }
        let statuses = Dictionary(walk.entries.map { ($0.relativePath, $0.status) }, uniquingKeysWith: { a, _ in a })
        for entry in walk.unsupported {
            problems.append(
                BundleProblem(
                    .unsupportedFile,
                    file: root + "/" + entry.path,
                    message: "\(entry.path) cannot be sealed: \(entry.reason)"
                )
            )
        }

        // Hash every file once; keep the bytes of the plists we parse.
        var digests: [String: [UInt8]] = [:]
        var infoBytes: [UInt8]?
        var entitlementsBytes: [UInt8]?
        var pointFiles: [(String, [UInt8])] = []
        for entry in walk.entries where entry.status.kind == .regular {
            let path = root + "/" + entry.relativePath
            let wanted =
                entry.relativePath == AppexBundle.File.info
                || entry.relativePath == AppexBundle.File.entitlements
                || (kind == .hostApp && entry.relativePath.hasPrefix(AppexBundle.File.extensionPoints + "/")
                    && entry.relativePath.hasSuffix("." + ExtensionPointDeclaration.fileExtension))
            do {
                if wanted {
                    let bytes = try Syscalls.readFile(path, limit: 4 * 1024 * 1024)
                    digests[entry.relativePath] = Array(SHA256.hash(data: bytes))
                    switch entry.relativePath {
                    case AppexBundle.File.info: infoBytes = bytes
                    case AppexBundle.File.entitlements: entitlementsBytes = bytes
                    default: pointFiles.append((entry.relativePath, bytes))
                    }
                } else {
                    digests[entry.relativePath] = try AppexBundle.sha256(ofFile: path)
                }
            } catch {
                problems.append(BundleProblem(.unreadableFile, file: path, message: "cannot read: \(error)"))
            }
        }

        // Info.plist
        let info: BundleInfo
        if let infoBytes {
            info = BundleInfo(data: infoBytes, file: infoPath, role: kind == .appExtension ? .appExtension : .hostApp)
        } else {
            info = BundleInfo(data: [], file: infoPath, role: .hostApp)
                .replacingProblems([
                    BundleProblem(.unreadableFile, file: infoPath, message: "the bundle has no Info.plist")
                ])
        }
        problems += info.problems

        // Entitlements
        var entitlements = Entitlements.none
        if let entitlementsBytes {
            entitlements = Entitlements(data: entitlementsBytes, file: root + "/" + AppexBundle.File.entitlements)
            problems += entitlements.problems
        }

        // Executable
        if let executable = info.executableName, !executable.isEmpty, !executable.contains("/"),
            BuildSettings.unexpandedNames(in: executable).isEmpty
        {
            let executablePath = root + "/" + executable
            switch statuses[executable] {
            case nil:
                problems.append(
                    BundleProblem(
                        .missingExecutable,
                        file: executablePath,
                        key: BundleInfo.Key.executable,
                        message: "the executable named by CFBundleExecutable is missing"
                    )
                )
            case let status? where status.kind == .symbolicLink:
                if let target = try? Syscalls.stat(executablePath), target.kind == .regular, target.isExecutable {
                    break
                }
                problems.append(
                    BundleProblem(
                        .notExecutable,
                        file: executablePath,
                        key: BundleInfo.Key.executable,
                        message: "the executable named by CFBundleExecutable is a link to nothing executable"
                    )
                )
            case let status? where status.kind != .regular:
                problems.append(
                    BundleProblem(
                        .notExecutable,
                        file: executablePath,
                        key: BundleInfo.Key.executable,
                        message: "the executable named by CFBundleExecutable is not a regular file"
                    )
                )
            case let status? where !status.isExecutable:
                problems.append(
                    BundleProblem(
                        .notExecutable,
                        file: executablePath,
                        key: BundleInfo.Key.executable,
                        message: "the executable named by CFBundleExecutable is not executable (mode lacks x)"
                    )
                )
            default:
                break
            }
        }

        // Extension point declarations (hosts)
        var declarations: [ExtensionPointDeclaration] = []
        if kind == .hostApp {
            for (relative, bytes) in pointFiles.sorted(by: { $0.0 < $1.0 }) {
                switch ExtensionPointDeclaration.read(
                    data: bytes,
                    file: root + "/" + relative,
                    hostBundleIdentifier: info.bundleIdentifier
                ) {
                case .success(let declaration): declarations.append(declaration)
                case .failure(let list): problems += list.problems
                }
            }
        }

        // Seal
        let team = verifySeal(walk: walk, digests: digests)

        return AppexBundle(
            path: root,
            kind: kind,
            info: info,
            entitlements: entitlements,
            team: team,
            extensionPoints: declarations,
            problems: problems,
            fileCount: walk.entries.count { $0.status.kind != .directory },
            observation: walk.observation,
            directories: [root]
                + walk.entries.filter { $0.status.kind == .directory }.map { root + "/" + $0.relativePath }
        )
    }

    private mutating func verifySeal(walk: BundleWalk, digests: [String: [UInt8]]) -> TeamIdentifier? {
        let sealPath = root + "/" + AppexBundle.File.seal
        let bytes: [UInt8]
        do {
            bytes = try Syscalls.readFile(sealPath, limit: CodeSeal.maximumSize)
        } catch  where error.errno == .noSuchFileOrDirectory {
            problems.append(
                BundleProblem(
                    .unsigned,
                    file: sealPath,
                    message:
                        "the bundle is not signed (no _CodeSignature/CodeResources); sign it with `appex sign \(root) --key TEAM.key`"
                )
            )
            return nil
        } catch  where error.errno == .fileTooLarge {
            problems.append(
                BundleProblem(
                    .badSignature,
                    file: sealPath,
                    message: "the seal is larger than \(CodeSeal.maximumSize) bytes, the most a seal may be"
                )
            )
            return nil
        } catch {
            problems.append(BundleProblem(.badSignature, file: sealPath, message: "cannot read the seal: \(error)"))
            return nil
        }
        let seal: CodeSeal
        do {
            seal = try CodeSeal(bytes: bytes)
        } catch {
            problems.append(
                BundleProblem(.badSignature, file: sealPath, message: "the seal is malformed: \(error.reason)")
            )
            return nil
        }
        guard seal.isAuthentic else {
            problems.append(
                BundleProblem(
                    .badSignature,
                    file: sealPath,
                    message:
                        "the seal's signature does not verify for team \(seal.teamIdentifier): the seal was altered or not made with that team's key"
                )
            )
            return nil
        }
        var present: Set<String> = []
        for entry in walk.entries where entry.status.kind != .directory {
            let path = entry.relativePath
            present.insert(path)
            let full = root + "/" + path
            guard let sealed = seal.entries[path] else {
                problems.append(
                    BundleProblem(.fileAdded, file: full, message: "\(path) was added after the bundle was signed")
                )
                continue
            }
            switch (sealed, entry.status.kind) {
            case (.file(let digest, let executable), .regular):
                if let actual = digests[path], actual != digest {
                    problems.append(
                        BundleProblem(
                            .fileModified,
                            file: full,
                            message: "\(path) was modified after the bundle was signed"
                        )
                    )
                } else if executable != entry.status.isExecutable {
                    problems.append(
                        BundleProblem(
                            .fileModified,
                            file: full,
                            message: "\(path) changed its executable permission after the bundle was signed"
                        )
                    )
                }
            case (.symbolicLink(let target), .symbolicLink):
                if (try? Syscalls.readLink(full)) != target {
                    problems.append(
                        BundleProblem(
                            .fileModified,
                            file: full,
                            message: "\(path) points elsewhere than when the bundle was signed"
                        )
                    )
                }
            default:
                problems.append(
                    BundleProblem(
                        .fileModified,
                        file: full,
                        message: "\(path) changed type after the bundle was signed"
                    )
                )
            }
        }
        for path in seal.entries.keys.sorted() where !present.contains(path) {
            problems.append(
                BundleProblem(
                    .fileRemoved,
                    file: root + "/" + path,
                    message: "\(path) was removed after the bundle was signed"
                )
            )
        }
        return seal.teamIdentifier
    }
}

extension BundleInfo {
    func replacingProblems(_ problems: [BundleProblem]) -> BundleInfo {
        var copy = self
        copy.problems = problems
        return copy
    }
}

// MARK: - Against a host

extension AppexBundle {
    /// The problem of this extension's binding against `host`: the point it names must be one
    /// the host declares. Empty when it is, or when the point is missing or unexpanded (those
    /// are already among ``problems``).
    public func bindingProblems(against host: AppexBundle) -> [BundleProblem] {
        guard kind == .appExtension, let point = info.extensionPointIdentifier,
            BuildSettings.unexpandedNames(in: point).isEmpty
        else { return [] }
        if let identifier = info.extensionPoint, host.extensionPoints.contains(where: { $0.identifier == identifier }) {
            return []
        }
        let declared = host.extensionPoints.map(\.identifier)
        let list = declared.sorted().map(\.description).joined(separator: ", ")
        return [
            BundleProblem(
                .undeclaredExtensionPoint,
                file: path + "/" + File.info,
                key: BundleInfo.Key.extensionAttributes + "." + BundleInfo.Key.extensionPointIdentifier,
                message:
                    "extension point \(point) is not declared by host \(host.bundleIdentifier ?? "?") (it declares: \(list.isEmpty ? "none" : list))"
            )
        ]
    }
}
