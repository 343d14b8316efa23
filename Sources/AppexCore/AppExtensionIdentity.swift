/// An extension that may run: what discovery hands out and what launching takes.
///
/// Mirrors ExtensionKit's `AppExtensionIdentity`.
public struct AppExtensionIdentity: Hashable, Sendable, Codable, CustomStringConvertible {
    /// `CFBundleIdentifier` of the extension.
    public let bundleIdentifier: String
    /// The name people see (`CFBundleDisplayName`, else `CFBundleName`).
    public let localizedName: String
    /// The point the extension binds to.
    public let extensionPointIdentifier: ExtensionPointIdentifier
    /// Where the `.appex` bundle is.
    public let bundlePath: String
    /// The team that signed the extension.
    public let teamIdentifier: TeamIdentifier

    /// The bundle identifier of the host app that declares the point.
    public var hostBundleIdentifier: String { extensionPointIdentifier.hostBundleIdentifier }

    /// Makes an identity.
    public init(
        bundleIdentifier: String,
        localizedName: String,
        extensionPointIdentifier: ExtensionPointIdentifier,
        bundlePath: String,
        teamIdentifier: TeamIdentifier
    ) {
        self.bundleIdentifier = bundleIdentifier
        self.localizedName = localizedName
        self.extensionPointIdentifier = extensionPointIdentifier
        self.bundlePath = bundlePath
        self.teamIdentifier = teamIdentifier
    }

    /// `bundle identifier (point)`.
    public var description: String { "\(bundleIdentifier) (\(extensionPointIdentifier))" }
}
