public import AppexCore
import Foundation
import Synchronization

/// Who is asking, for the shared stores: a bundle identifier, the signing team, and the
/// entitlements its signed bundle grants.
///
/// A process's context comes from its own signed bundle (``init(bundleAt:)``; an extension
/// finds its bundle in `APPEX_BUNDLE_PATH`, see ``current()``). Tests and tools may construct one
/// explicitly (``init(bundleIdentifier:team:entitlements:kind:)``); ``owner`` is the user's own
/// authority, used by the `appex` tool unless told to act as a bundle.
public struct ProcessContext: Sendable, Hashable {
    /// The bundle the process runs as; `nil` for the owner.
    public let bundleIdentifier: String?
    /// The team that signed the bundle; `nil` for the owner.
    public let team: TeamIdentifier?
    /// What the bundle's signed `Entitlements.plist` grants.
    public let entitlements: Entitlements
    /// Whether this is the owner's authority (every group, every team).
    public let isOwner: Bool
    /// Whether the bundle is a host app or an app extension (the owner counts as a host).
    public let kind: AppexBundle.Kind

    /// A context stated explicitly (tests, tools).
    public init(
        bundleIdentifier: String,
        team: TeamIdentifier,
        entitlements: Entitlements,
        kind: AppexBundle.Kind = .hostApp
    ) {
        self.bundleIdentifier = bundleIdentifier
        self.team = team
        self.entitlements = entitlements
        self.isOwner = false
        self.kind = kind
    }

    /// The owner of the machine's Appex state: may open any group (the `appex` tool's default).
    public static let owner = ProcessContext()

    private init() {
        bundleIdentifier = nil
        team = nil
        entitlements = .none
        isOwner = true
        kind = .hostApp
    }

    /// The context a signed bundle vouches for: its identifier, its team, its entitlements.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `untrustedProcess` when the bundle is not valid or not signed
    ///   (its problems are named): entitlements count only under a valid seal.
    public init(bundleAt path: String) throws(AppexError) {
        try self.init(bundle: AppexBundle.load(at: path), path: path)
    }

    /// The context of `bundle`, loaded from `path`, when it can vouch for a process.
    private init(bundle: AppexBundle, path: String) throws(AppexError) {
        guard bundle.isValid else {
            let reasons = bundle.problems.map(\.description).joined(separator: "; ")
            throw AppexError(
                .untrustedProcess,
                "the bundle at \(path) cannot vouch for this process: \(reasons)",
                context: AppexError.Context(bundleIdentifier: bundle.info.bundleIdentifier, path: path)
            )
        }
        guard let team = bundle.team, let identifier = bundle.info.bundleIdentifier else {
            throw AppexError(
                .untrustedProcess,
                "the bundle at \(path) is not signed, so its entitlements do not count",
                context: AppexError.Context(bundleIdentifier: bundle.info.bundleIdentifier, path: path)
            )
        }
        self.init(bundleIdentifier: identifier, team: team, entitlements: bundle.entitlements, kind: bundle.kind)
    }

    /// The running process's context: an extension's from the bundle its host launched it from
    /// (`APPEX_BUNDLE_PATH`), an app's from the `.app` that holds its executable, as Apple's
    /// platforms know `Bundle.main` (``/AppexCore/AppexBundle/mainBundlePath()``, which
    /// `APPEX_MAIN_BUNDLE` overrides).
    ///
    /// The bundle is read and its seal checked at the first call (an extension's with
    /// ``/AppexCore/AppexBundle/loadRunning(at:)``: its executable must be this process's image, which its
    /// launcher hashed; an app's in full); later calls in the process answer the same context.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `untrustedProcess` when the process was neither launched by a
    ///   host nor runs from an app bundle, or its bundle cannot vouch for it (checked again at
    ///   the next call).
    public static func current() throws(AppexError) -> ProcessContext {
        guard let path = ProcessInfo.processInfo.environment["APPEX_BUNDLE_PATH"], !path.isEmpty else {
            guard let app = try? AppexBundle.mainBundlePath() else {
                throw AppexError(
                    .untrustedProcess,
                    "APPEX_BUNDLE_PATH is not set and the executable is in no .app: neither launched by an Appex host nor run from an app bundle; make a context with ProcessContext(bundleAt:)"
                )
            }
            if let known = checked.withLock({ $0 }), known.path == app { return known.context }
            let context = try ProcessContext(bundleAt: app)
            checked.withLock { $0 = (app, context) }
            return context
        }
        if let known = checked.withLock({ $0 }), known.path == path { return known.context }
        // The bundle's executable is this process's image, hashed by its launcher: not again.
        let context = try ProcessContext(bundle: AppexBundle.loadRunning(at: path), path: path)
        checked.withLock { $0 = (path, context) }
        return context
    }

    /// The context ``current()`` checked, and the bundle path it came from.
    private static let checked = Mutex<(path: String, context: ProcessContext)?>(nil)

    /// What an error about this process is about: its bundle, and whichever of the rest apply.
    package func errorContext(
        path: String? = nil,
        key: String? = nil,
        entitlement: String? = nil,
        group: String? = nil
    ) -> AppexError.Context {
        AppexError.Context(
            bundleIdentifier: bundleIdentifier,
            path: path,
            key: key,
            entitlement: entitlement,
            group: group
        )
    }

    /// Who this is, for messages.
    package var name: String {
        if isOwner { return "the owner" }
        return "\(bundleIdentifier ?? "?") (team \(team?.description ?? "?"))"
    }
}
