public import AppexAuth
public import Foundation

/// The SDK's answer to a token request.
public enum TokenResponse: Sendable {
    /// New tokens.
    case successfulToken(SuccessfulTokenResponse)
    /// The server's refusal.
    case errorToken(ErrorTokenResponse)
    /// No usable answer: the network, or a 5xx.
    case error(any Error)
}

/// New tokens, as the SDK's `SuccessfulTokenResponse`: AppexAuth's `TokenSet`.
public struct SuccessfulTokenResponse: Sendable, Hashable {
    /// The tokens.
    public let tokens: TokenSet
    /// The access token.
    public var accessToken: String { tokens.accessToken }
    /// The refresh token, when the server issued one (or kept the previous one).
    public var refreshToken: String? { tokens.refreshToken }
    /// The granted scope.
    public var scope: String? { tokens.scope }

    init(_ tokens: TokenSet) { self.tokens = tokens }

    /// The tokens read back from ``encodedData()``'s bytes.
    ///
    /// - Throws: `DecodingError` when `data` is not such bytes.
    public init(data: Data) throws { tokens = try JSONDecoder().decode(TokenSet.self, from: data) }

    /// The tokens as bytes to store (JSON), which ``init(data:)`` reads back.
    ///
    /// - Throws: `EncodingError` (not for tokens the server sent).
    public func encodedData() throws -> Data { try JSONEncoder().encode(tokens) }
}

/// The server's refusal of a token request (RFC 6749 §5.2).
public struct ErrorTokenResponse: Sendable, Hashable {
    /// The error code (`invalid_grant`, …).
    public let error: String
    /// The server's description, if any.
    public let errorDescription: String?
}
