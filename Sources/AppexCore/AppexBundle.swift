import AppexSystem
import AppexVocabulary
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
        /// `Info.plist`: the bundle's identity, executable and, for an extension, its point.
        public static let info = "Info.plist"
        /// `Entitlements.plist`: what the bundle may touch.
        public static let entitlements = "Entitlements.plist"
        /// `_CodeSignature/CodeResources`: the seal (team, key, a hash of every file, signature).
        public static let seal = "_CodeSignature/CodeResources"
        /// `ExtensionPoints`: a host's folder of `.appextensionpoint` declarations.
        public static let extensionPoints = "ExtensionPoints"
        /// `Extensions`: a host's folder of the `.appex` bundles it ships.
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
        load(at: path, as: kind, verifications: nil)
    }

    /// ``load(at:as:)``, with the seals already in `verifications` not verified again (every
    /// file is still hashed) and the seals verified now added to it.
    package static func load(at path: String, as kind: Kind?, verifications: SealVerifications?) -> AppexBundle {
        let root = normalized(path)
        let kind = kind ?? Self.kind(ofPath: root) ?? .hostApp
        var loader = BundleLoader(root: root, kind: kind)
        loader.verifications = verifications
        return loader.load()
    }

    /// Reads and validates the bundle the running process was launched from: as
    /// ``load(at:as:)``, except that the bundle's executable is not hashed but must be this
    /// process's own image (`/proc/self/exe`: the same file, by device and inode). Its launcher
    /// hashed it against the seal before exec (AppexHost's `AppExtensionProcess` refuses a bundle whose
    /// seal does not hold), and a running executable cannot be written; every other file is
    /// hashed as usual. A widget or extension asking who it is so no longer reads its whole
    /// executable at each launch.
    ///
    /// A bundle whose executable is not this process's image gets a `file-modified` problem: a
    /// process cannot take the identity of a bundle it does not run from.
    public static func loadRunning(at path: String) -> AppexBundle {
        let root = normalized(path)
        var loader = BundleLoader(root: root, kind: Self.kind(ofPath: root) ?? .hostApp)
        loader.runningImageRequired = true
        // Unreadable: every file is hashed, and the bundle cannot vouch for this process.
        loader.runningImage = try? Syscalls.stat("/proc/self/exe")
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

// MARK: - Against a host

extension AppexBundle {
    /// The problem of this extension's binding against `host`: the point it names must be one
    /// the host declares. Empty when it is, when it is a system point (`com.apple.…`), or when
    /// the point is missing or unexpanded (those are already among ``problems``).
    public func bindingProblems(against host: AppexBundle) -> [BundleProblem] {
        guard kind == .appExtension, let point = info.extensionPointIdentifier,
            BuildSettings.unexpandedNames(in: point).isEmpty
        else { return [] }
        // A system point is the system's, not the app's: any app ships extensions of it (its
        // widgets) without declaring it.
        if info.extensionPoint?.isSystemPoint == true { return [] }
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
