package import AppexSystem
import Crypto
import Foundation
import Synchronization

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
package struct BundleWalk {
    package struct Entry {
        package var relativePath: String
        package var status: FileStatus
    }

    let root: String
    let kind: AppexBundle.Kind
    package private(set) var entries: [Entry] = []
    /// Entries the seal cannot vouch for, by relative path, with why.
    package private(set) var unsupported: [(path: String, reason: String)] = []
    /// The root's status (followed, as given) and the seal's, if there is one.
    private var rootStatus: FileStatus
    private var sealStatus: FileStatus?

    package init(root: String, kind: AppexBundle.Kind) throws(SystemError) {
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
