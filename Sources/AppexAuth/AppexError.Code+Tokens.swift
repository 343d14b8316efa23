public import AppexVocabulary

// The codes of tokens and login.
//
// What to do: `notLoggedIn` and `reauthenticationRequired` need the host (only it can log in);
// `retryable` may succeed later and is never retried in a loop inside an extension; `rejected` is
// the server's final answer to this request; `configuration` and `storage` are bugs or broken
// setups.
extension AppexError.Code {
    /// The session can no longer be refreshed (`invalid_grant` after checking for a newer
    /// token): it was cleared, the login status says logged out, and only the host can log in.
    public static var reauthenticationRequired: Self { .init("reauthentication-required") }
    /// The server answered this request with an OAuth error (``/AppexVocabulary/AppexError/Context/oauthError``
    /// says which) or refused it.
    public static var rejected: Self { .init("rejected") }
    /// A failure that may pass: the network, a 5xx answer, a refresh lock held too long.
    public static var retryable: Self { .init("retryable") }
    /// The OAuth configuration or the server's metadata is unusable.
    public static var configuration: Self { .init("configuration") }
}
