public import AppexCore
import AppexSystem
import AppexVocabulary
public import Foundation

/// An app group: a container shared by the host and extensions entitled to it.
///
/// ```swift
/// let group = try AppGroup("group.com.example.app", context: try .current())
/// let url = group.containerURL   // $APPEX_HOME/AppGroups/group.com.example.app/
/// ```
///
/// Opening checks the process's signed entitlements (`com.apple.security.application-groups`)
/// and that the group belongs to the process's signing team: the first entitled process to open
/// a group records its team, and processes of any other team are refused, saying so.
public struct AppGroup: Sendable, Hashable {
    /// The group's identifier, as entitlements name it.
    public let identifier: String
    /// Who opened it.
    public let context: ProcessContext
    /// The group's private directory (mode 0700).
    public let containerPath: String
    /// Where the group's state lives.
    public let environment: AppexEnvironment

    /// The group's container directory, created on first open. Mirrors
    /// `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`.
    public var containerURL: URL { URL(fileURLWithPath: containerPath, isDirectory: true) }

    /// Opens the group for `context`.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError``: `invalidName` (nothing is created), `missingEntitlement` (names
    ///   the group and the entitlement key), `teamMismatch` (names both teams), `storage`.
    public init(
        _ identifier: String,
        context: ProcessContext,
        environment: AppexEnvironment = .current()
    ) throws(AppexError) {
        try Self.checkName(identifier)
        if !context.isOwner && !context.entitlements.applicationGroups.contains(identifier) {
            throw AppexError(
                .missingEntitlement,
                "\(context.name) is not entitled to app group \(identifier): add it to \(Entitlements.Key.applicationGroups) in the bundle's Entitlements.plist and sign the bundle again",
                context: context.errorContext(entitlement: Entitlements.Key.applicationGroups, group: identifier)
            )
        }
        self.identifier = identifier
        self.context = context
        self.environment = environment
        self.containerPath = environment.home + "/AppGroups/" + identifier
        do {
            try environment.makePrivateDirectory(environment.home + "/AppGroups")
            try environment.makePrivateDirectory(containerPath)
        } catch {
            throw AppexError(
                .storage,
                "cannot make the container of app group \(identifier) at \(containerPath)",
                context: context.errorContext(path: containerPath, group: identifier),
                underlyingError: error
            )
        }
        if let team = context.team {
            let owner = try Self.claim(containerPath + "/.team", for: team, group: identifier)
            if owner != team {
                throw AppexError(
                    .teamMismatch,
                    "app group \(identifier) belongs to team \(owner); \(context.name) is signed by team \(team): a host and its extensions must be signed by the same team to share a group",
                    context: context.errorContext(group: identifier)
                )
            }
        }
    }

    /// A group identifier names a directory: one path component, printable, not hidden.
    static func checkName(_ identifier: String, naming what: String = "an app group") throws(AppexError) {
        let valid =
            !identifier.isEmpty && identifier.utf8.count <= 200 && !identifier.hasPrefix(".")
            && identifier.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || "0123456789.-_".unicodeScalars.contains($0))
            }
        guard valid else {
            throw AppexError(
                .invalidName,
                "\"\(identifier)\" cannot name \(what): use letters, digits, '.', '-' and '_' (for example group.com.example.app)",
                context: AppexError.Context(group: identifier)
            )
        }
    }

    /// Records `team` as the owner of a container (`group` names it in messages) unless one is
    /// recorded; returns the owner. Atomic
    /// across processes: the record is written whole to a temporary file, then linked into
    /// place (`link` fails if another process was first).
    static func claim(_ path: String, for team: TeamIdentifier, group: String) throws(AppexError) -> TeamIdentifier {
        if let recorded = try? String(contentsOfFile: path, encoding: .utf8) {
            return TeamIdentifier(rawValue: recorded.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        do { _ = try Syscalls.createFileAtomically(path, bytes: Array((team.rawValue + "\n").utf8), mode: 0o600) } catch
        {
            throw AppexError(
                .storage,
                "cannot record the team of app group \(group) at \(path)",
                context: AppexError.Context(path: path, group: group),
                underlyingError: error
            )
        }
        guard let recorded = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw AppexError(
                .storage,
                "cannot read the team of app group \(group) at \(path)",
                context: AppexError.Context(path: path, group: group)
            )
        }
        return TeamIdentifier(rawValue: recorded.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
