public import Foundation

/// A client the host registered with the server (RFC 7591), kept in the token storage so that
/// extensions refresh with it. While one is stored, it is the client the session belongs to.
public struct RegisteredClient: Codable, Sendable, Hashable {
    /// The client identifier the server issued.
    public var clientID: String
    /// The client secret, for a confidential client.
    public var clientSecret: String?
    /// The token that manages the registration (RFC 7592).
    public var registrationAccessToken: String?
    /// Where the registration is managed (RFC 7592).
    public var registrationClientURI: URL?

    /// A registered client.
    public init(
        clientID: String,
        clientSecret: String? = nil,
        registrationAccessToken: String? = nil,
        registrationClientURI: URL? = nil
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.registrationAccessToken = registrationAccessToken
        self.registrationClientURI = registrationClientURI
    }

    /// The storage key of the registered client.
    public static let storageKey = "registered-client"
}
