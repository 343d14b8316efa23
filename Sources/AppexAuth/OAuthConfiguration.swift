public import Foundation

/// What host and extension agree on to use the same tokens: the authorization server, the
/// client, the scopes, and where the tokens are kept. `Codable`, so both targets load one value
/// (the `--config` file of `appex auth` is its JSON form):
///
/// ```json
/// {"issuer": "http://127.0.0.1:8765", "clientID": "swift-public", "scopes": ["read", "write"],
///  "appGroup": "group.com.example.app", "storage": "keychain"}
/// ```
///
/// Endpoints not given are discovered from the issuer's RFC 8414 metadata.
public struct OAuthConfiguration: Codable, Sendable, Hashable {
    /// Where the tokens are kept.
    public enum Storage: String, Codable, Sendable, Hashable {
        /// The shared keychain, encrypted at rest (the default).
        case keychain
        /// The app group's shared defaults (not encrypted: for tests and low-value tokens).
        case defaults
    }

    /// The authorization server's issuer identifier (RFC 8414).
    public var issuer: URL
    /// The client identifier.
    public var clientID: String
    /// The scopes to ask for.
    public var scopes: [String]
    /// The app group host and extensions share (login status, the refresh lock, defaults storage).
    public var appGroup: String
    /// Where the tokens are kept.
    public var storage: Storage
    /// The keychain access group for `keychain` storage. Default: the process's first keychain
    /// access group (see ``tokenAccessGroup(entitledTo:)``).
    public var keychainAccessGroup: String?

    /// The access group the tokens are kept in, for a process entitled to the keychain access
    /// `groups`: ``keychainAccessGroup`` when set; else the first of `groups`, the default access
    /// group of Apple's keychain — the group host and extension share when both list it first, as
    /// seed 000's `com.myapp.MyApp` pair does; else, for a process with no keychain group, the app
    /// group's name (which it must then be entitled to). One name for every process (host,
    /// extensions, the `appex` tool), so that all find the same item.
    public func tokenAccessGroup(entitledTo groups: [String]) -> String {
        keychainAccessGroup ?? groups.first ?? appGroup
    }
    /// Endpoints given explicitly; the others come from the issuer's metadata.
    public var endpoints: Endpoints?
    /// An endpoint that answers a bearer `GET` with the user (`sub` or `id`, and `name` or
    /// `username`): how the host learns who logged in.
    public var userInfoEndpoint: URL?
    /// The key of the Boolean login status in the app group's own suite, which login and
    /// logout set (``/AppexStore/LoginStatus/Configuration/userLoggedInKey``). Default: `"userLoggedIn"`,
    /// seed 000's.
    public var userLoggedInKey: String

    /// A configuration.
    public init(
        issuer: URL,
        clientID: String,
        scopes: [String] = [],
        appGroup: String,
        storage: Storage = .keychain,
        keychainAccessGroup: String? = nil,
        endpoints: Endpoints? = nil,
        userInfoEndpoint: URL? = nil,
        userLoggedInKey: String = "userLoggedIn"
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.scopes = scopes
        self.appGroup = appGroup
        self.storage = storage
        self.keychainAccessGroup = keychainAccessGroup
        self.endpoints = endpoints
        self.userInfoEndpoint = userInfoEndpoint
        self.userLoggedInKey = userLoggedInKey
    }

    private enum CodingKeys: String, CodingKey {
        case issuer, clientID, scopes, appGroup, storage, keychainAccessGroup, endpoints, userInfoEndpoint
        case userLoggedInKey
    }

    /// Decodes a configuration; `scopes`, `storage` and `userLoggedInKey` may be left out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try container.decode(URL.self, forKey: .issuer)
        clientID = try container.decode(String.self, forKey: .clientID)
        scopes = try container.decodeIfPresent([String].self, forKey: .scopes) ?? []
        appGroup = try container.decode(String.self, forKey: .appGroup)
        storage = try container.decodeIfPresent(Storage.self, forKey: .storage) ?? .keychain
        keychainAccessGroup = try container.decodeIfPresent(String.self, forKey: .keychainAccessGroup)
        endpoints = try container.decodeIfPresent(Endpoints.self, forKey: .endpoints)
        userInfoEndpoint = try container.decodeIfPresent(URL.self, forKey: .userInfoEndpoint)
        userLoggedInKey = try container.decodeIfPresent(String.self, forKey: .userLoggedInKey) ?? "userLoggedIn"
    }

    /// Reads the JSON form from `path`.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `configuration`, naming the file and what is wrong in it.
    public static func load(from path: String) throws(AppexError) -> OAuthConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AppexError(
                .configuration,
                "cannot read the OAuth configuration \(path)",
                context: AppexError.Context(path: path)
            )
        }
        do { return try JSONDecoder().decode(OAuthConfiguration.self, from: data) } catch {
            throw AppexError(
                .configuration,
                "the OAuth configuration \(path) is not valid",
                context: AppexError.Context(path: path),
                underlyingError: error
            )
        }
    }
}

/// An authorization server's endpoints (the RFC 8414 names, camel-cased).
public struct Endpoints: Codable, Sendable, Hashable {
    /// Where the user authorizes (authorization code flow).
    public var authorization: URL?
    /// Where tokens are obtained and refreshed.
    public var token: URL
    /// Where tokens are revoked (RFC 7009).
    public var revocation: URL?
    /// Where clients register (RFC 7591).
    public var registration: URL?

    /// Endpoints.
    public init(authorization: URL? = nil, token: URL, revocation: URL? = nil, registration: URL? = nil) {
        self.authorization = authorization
        self.token = token
        self.revocation = revocation
        self.registration = registration
    }
}
