public import Foundation

/// The tokens of one session, as stored: versioned, so a newer Appex still reads what an older
/// one wrote (unknown fields are ignored, missing optional ones are `nil`).
public struct TokenSet: Codable, Sendable, Hashable {
    /// The format version this Appex writes.
    public static let currentVersion = 1

    /// The format version the value was written in.
    public var version: Int
    /// The access token.
    public var accessToken: String
    /// The refresh token, when the server gave one.
    public var refreshToken: String?
    /// The token type (`Bearer`).
    public var tokenType: String
    /// When the access token expires, when the server said (`expires_in`).
    public var expiresAt: Date?
    /// The scopes granted.
    public var scope: String?
    /// When the tokens were obtained.
    public var obtainedAt: Date

    /// A token set in the current format.
    public init(
        accessToken: String,
        refreshToken: String?,
        tokenType: String = "Bearer",
        expiresAt: Date?,
        scope: String?,
        obtainedAt: Date = Date()
    ) {
        version = Self.currentVersion
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.scope = scope
        self.obtainedAt = obtainedAt
    }

    /// Whether the access token expires within `leeway` from `now` (a token without an expiry
    /// never does).
    public func expires(within leeway: TimeInterval, from now: Date = Date()) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt.timeIntervalSince(now) <= leeway
    }

    /// Whether the access token should be refreshed before use: it expires within `leeway`, or
    /// within half its lifetime when that is shorter (a 2-second token is not stale at birth).
    public func needsRefresh(leeway: TimeInterval, now: Date = Date()) -> Bool {
        guard let expiresAt else { return false }
        let lifetime = expiresAt.timeIntervalSince(obtainedAt)
        return expires(within: min(leeway, max(lifetime / 2, 0)), from: now)
    }

    /// The token set a token endpoint's success answer makes; a refresh answer without a
    /// refresh token keeps `previous`'s (RFC 6749 §6).
    package init(response: TokenResponse, previous: TokenSet? = nil, now: Date = Date()) {
        self.init(
            accessToken: response.access_token,
            refreshToken: response.refresh_token ?? previous?.refreshToken,
            tokenType: response.token_type ?? "Bearer",
            expiresAt: response.expires_in.map { now.addingTimeInterval(TimeInterval($0)) },
            scope: response.scope ?? previous?.scope,
            obtainedAt: now
        )
    }

    /// Encodes for storage.
    ///
    /// `@_spi(Fuzzing)`, with ``decoded(from:key:)``: the fuzz target `token-response` (`Fuzz/`)
    /// checks that what it reads survives storage; not part of the supported API.
    @_spi(Fuzzing) public func encoded() throws(AppexError) -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        do { return try encoder.encode(self) } catch {
            throw AppexError(.storage, "cannot encode the token set", underlyingError: error)
        }
    }

    /// Decodes a stored token set of this or an older version.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `storage` when the bytes are not a token set, or are of a newer
    ///   format this Appex cannot read (naming both versions).
    @_spi(Fuzzing) public static func decoded(from data: Data, key: String) throws(AppexError) -> TokenSet {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        struct Version: Decodable { var version: Int }
        guard let version = try? decoder.decode(Version.self, from: data).version else {
            throw AppexError(
                .storage,
                "the stored token set \(key) is not a token set",
                context: AppexError.Context(key: key)
            )
        }
        guard version <= currentVersion else {
            throw AppexError(
                .storage,
                "the stored token set \(key) is of format \(version); this Appex reads up to \(currentVersion): update it",
                context: AppexError.Context(key: key)
            )
        }
        do { return try decoder.decode(TokenSet.self, from: data) } catch {
            throw AppexError(
                .storage,
                "the stored token set \(key) (format \(version)) cannot be read",
                context: AppexError.Context(key: key),
                underlyingError: error
            )
        }
    }
}

/// A token endpoint's success answer (RFC 6749 §5.1).
package struct TokenResponse: Decodable, Sendable {
    package var access_token: String
    package var token_type: String?
    package var expires_in: Int?
    package var refresh_token: String?
    package var scope: String?
}

/// A token endpoint's error answer (RFC 6749 §5.2).
package struct ErrorResponse: Decodable, Sendable {
    package var error: String
    package var error_description: String?
}
