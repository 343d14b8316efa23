public import AppexAuth

/// The HAAPI SDK's configuration, shared by the host app and its extensions: AppexAuth's
/// `OAuthConfiguration` (issuer, client, scopes, app group), and dynamic registration when the
/// app registers its client.
///
/// The SDK's own initializer names many more settings for the attested HAAPI flow, which runs
/// only in the host app; an extension needs the server and the client.
public struct HaapiConfiguration: Sendable {
    /// The server, the client and the app group.
    public var oauth: OAuthConfiguration
    /// Dynamic client registration, when the host registers its client.
    public var dcrConfiguration: DCRConfiguration?

    /// A configuration.
    public init(oauth: OAuthConfiguration, dcrConfiguration: DCRConfiguration? = nil) {
        self.oauth = oauth
        self.dcrConfiguration = dcrConfiguration
    }
}
