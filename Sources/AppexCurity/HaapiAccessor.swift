import AppexAuth

/// What an accessor offers (the SDK's `HaapiAccessorOption`): an extension takes `.oauth`, the
/// token manager alone, since the attested flow runs only in the host app.
public enum HaapiAccessorOption: Sendable, Hashable {
    /// The OAuth token manager.
    case oauth
}

/// Builds a ``HaapiAccessor``, as the SDK's builder does:
///
/// ```swift
/// let haapiAccessor = HaapiAccessorBuilder(haapiConfiguration: sharedConfiguration)
///     .setHaapiAccessorOption(.oauth)
///     .buildForHaapi()
/// ```
public struct HaapiAccessorBuilder: Sendable {
    /// The configuration.
    public let haapiConfiguration: HaapiConfiguration
    private var options: Set<HaapiAccessorOption> = []

    /// A builder for `haapiConfiguration`.
    public init(haapiConfiguration: HaapiConfiguration) { self.haapiConfiguration = haapiConfiguration }

    /// Adds `option`.
    public func setHaapiAccessorOption(_ option: HaapiAccessorOption) -> HaapiAccessorBuilder {
        var copy = self
        copy.options.insert(option)
        return copy
    }

    /// The accessor. As the SDK's, building does not throw: what the process lacks (an app
    /// group, a keychain group, the `.oauth` option) is thrown, named, by the first call.
    public func buildForHaapi() -> HaapiAccessor {
        HaapiAccessor(oAuthTokenManager: HaapiOAuthTokenManager(configuration: haapiConfiguration, options: options))
    }
}

/// The SDK's accessor: for an extension, its token manager.
public struct HaapiAccessor: Sendable {
    /// Refreshes, revokes and uses the host's tokens.
    public let oAuthTokenManager: HaapiOAuthTokenManager
}
