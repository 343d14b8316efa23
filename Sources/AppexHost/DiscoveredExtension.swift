public import AppexCore

/// One extension bundle found for a host, with what the host may do with it and why.
public struct DiscoveredExtension: Sendable, Hashable {
    /// Whether an extension may run. A small frozen set, in the order `appex list` shows.
    public enum State: String, Sendable, Codable, CaseIterable {
        /// Valid and allowed to run.
        case enabled
        /// Valid, but the owner disabled it.
        case disabled
        /// Valid, found outside the host, and not (or no longer) approved by the owner.
        case unapproved
        /// Has problems (see ``DiscoveredExtension/problems``); never runs.
        case invalid
    }

    /// Where an extension was found.
    public enum Origin: String, Sendable, Codable {
        /// Inside the host's own `Extensions/` folder: ships with the host, enabled by default.
        case host
        /// On `APPEX_EXTENSIONS_PATH`: unapproved until the owner enables it.
        case searchPath = "search-path"
        /// For a system host (the widget host): inside an app on the apps path
        /// (`APPEX_APPS_PATH`); ships with that app, enabled by default when its team signed both.
        case app
    }

    /// `CFBundleIdentifier`, when the Info.plist could be read.
    public let bundleIdentifier: String?
    /// The extension point the bundle names, as written.
    public let extensionPoint: String?
    /// Whether it may run.
    public let state: State
    /// Where the bundle is.
    public let path: String
    /// Where it was found.
    public let origin: Origin
    /// The team whose signature verifies, if any.
    public let team: TeamIdentifier?
    /// Why it is invalid; empty unless ``state`` is ``State/invalid``.
    public let problems: [BundleProblem]
    /// Why it is unapproved when the owner once approved it (for example a new team signed it).
    public let note: String?
    /// The identity to launch it with, when it is valid (whatever its state).
    public let identity: AppExtensionIdentity?
    /// The name people see.
    public let localizedName: String
}

/// Every extension a host can see, at one moment.
public struct DiscoverySnapshot: Sendable, Hashable {
    /// The host's bundle identifier.
    public let hostBundleIdentifier: String
    /// The points the host declares.
    public let extensionPoints: [ExtensionPointIdentifier]
    /// Every extension found for the host, valid or not, sorted by bundle identifier and path.
    public let extensions: [DiscoveredExtension]

    /// The extensions in `state`.
    public func extensions(in state: DiscoveredExtension.State) -> [DiscoveredExtension] {
        extensions.filter { $0.state == state }
    }
}
