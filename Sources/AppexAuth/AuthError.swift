/// Why a token operation failed: typed, and saying what the server or the store said.
///
/// The cases tell the caller what to do: `notLoggedIn` and `reauthenticationRequired` need the
/// host (only it can log in); `retryable` may succeed later (network, 5xx, a busy lock) and is
/// never retried in a loop inside an extension; `rejected` is the server's final answer to this
/// request; `configuration` and `storage` are bugs or broken setups.
public struct AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure.
    public enum Code: String, Sendable, Equatable {
        /// No session is stored: the host has not logged in (or logged out).
        case notLoggedIn = "not-logged-in"
        /// The session can no longer be refreshed (`invalid_grant` after checking for a newer
        /// token): it was cleared, the login status says logged out, and only the host can log in.
        case reauthenticationRequired = "reauthentication-required"
        /// The server answered with an OAuth error for this request (`oauthError` says which).
        case rejected
        /// A failure that may pass: the network, a 5xx answer, a refresh lock held too long.
        case retryable
        /// The configuration or the server's metadata is unusable.
        case configuration
        /// The token storage failed.
        case storage
    }

    /// What kind of failure.
    public let code: Code
    /// What happened, naming the endpoint, the client and what the server said.
    public let message: String
    /// The server's OAuth `error` code (`invalid_grant`, `invalid_client`, ...), when it sent one.
    public let oauthError: String?
    /// The HTTP status, when there was an answer.
    public let status: Int?

    /// Makes an error.
    public init(_ code: Code, _ message: String, oauthError: String? = nil, status: Int? = nil) {
        self.code = code
        self.message = message
        self.oauthError = oauthError
        self.status = status
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
