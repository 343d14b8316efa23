public import AppexCore

/// An extension point a host offers, as the host's code names it.
///
/// Mirrors ExtensionKit's `AppExtensionPoint`: a host makes a ``Monitor`` for one or more
/// points to learn which extensions are available.
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
