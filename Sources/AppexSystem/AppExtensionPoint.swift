/// An extension point, as host and extension code name it.
///
/// Mirrors ExtensionKit's `AppExtensionPoint`: an extension binds to one
/// (``AppExtensionPoint/Bind``), and a host makes a `Monitor` (AppexHost) for one or more points
/// to learn which extensions are available.
public struct AppExtensionPoint: Hashable, Sendable, CustomStringConvertible {
    /// The point's identifier (`com.example.hostapp.HostAppFeature`).
    public let identifier: ExtensionPointIdentifier

    /// The point with this identifier.
    public init(identifier: ExtensionPointIdentifier) {
        self.identifier = identifier
    }

    /// The point `name` of the host `hostBundleIdentifier`.
    public init(host hostBundleIdentifier: String, name: String) {
        self.identifier = ExtensionPointIdentifier(host: hostBundleIdentifier, name: name)
    }

    /// The identifier's string form.
    public var description: String { identifier.description }
}

extension AppExtensionPoint {
    /// ExtensionKit's name for a point's identifier: `AppExtensionPoint.Identifier(host:name:)`.
    public typealias Identifier = ExtensionPointIdentifier

    /// Binds an extension to its point, as ExtensionKit's `@AppExtensionPoint.Bind` does:
    ///
    /// ```swift
    /// @AppExtensionPoint.Bind
    /// var boundAppExtensionPoint: AppExtensionPoint {
    ///     AppExtensionPoint.Identifier("com.example.hostapp", name: "HostAppFeature")
    /// }
    /// ```
    ///
    /// A result builder: the property's body names the point, by its identifier or as a point.
    /// `appex bundle` writes the bundle's `EXAppExtensionAttributes` from it.
    @resultBuilder
    public enum Bind {
        /// The point named by its identifier.
        public static func buildExpression(_ identifier: Identifier) -> AppExtensionPoint {
            AppExtensionPoint(identifier: identifier)
        }

        /// The point itself.
        public static func buildExpression(_ point: AppExtensionPoint) -> AppExtensionPoint { point }

        /// The one point the body names.
        public static func buildBlock(_ point: AppExtensionPoint) -> AppExtensionPoint { point }
    }
}
