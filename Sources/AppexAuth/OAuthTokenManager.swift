package import AppexCore
public import AppexStore
public import Foundation
import Synchronization

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Uses, refreshes and revokes the tokens the host obtained — everything an extension may do
/// with a session, and nothing that starts one.
///
/// ```swift
/// let manager = try AccessorBuilder(configuration: configuration, context: .current()).option(.oauth).build().tokenManager
/// let (data, response) = try await manager.data(for: URLRequest(url: contacts))   // refreshed when needed
/// ```
///
/// At most one refresh is in flight across every process that shares the storage (a `flock`
/// in the app group's container). A process that waited re-reads the storage and uses the token
/// a sibling already rotated instead of refreshing again; a refresh answered `invalid_grant`
/// checks the storage for a newer token before giving up. Only then is the session cleared, the
/// login status set to logged out, and `reauthenticationRequired` returned: only the host can
/// log in again. Failures that may pass are returned as `retryable`, never retried in a loop.
public final class OAuthTokenManager: Sendable {
    /// The configuration.
    public let configuration: OAuthConfiguration
    /// Where the session is kept.
    public let storage: any TokenStorage
    /// The login status the session's end is published to.
    public let loginStatus: LoginStatus
    /// How close to its expiry an access token is refreshed before use (at most half its lifetime).
    public let leeway: TimeInterval
    /// The time tokens expire by: the group's environment's clock.
    package let clock: AppexClock
    private let lock: RefreshLock
    private let clientIDOverride: String?
    /// The last token set decoded, with the bytes it came from: a fresh-token request decodes
    /// JSON only when the stored bytes changed (JSON decoding costs ~100 µs on Linux).
    private let decoded = Mutex<(bytes: Data, tokens: TokenSet)?>(nil)

    /// The storage key of the session's token set.
    public var storageKey: String { "tokens:" + clientID }
    /// The client the tokens belong to: a registered one (RFC 7591) when the host stored one,
    /// else the configuration's.
    public var clientID: String { registeredClient?.clientID ?? clientIDOverride ?? configuration.clientID }

    /// The client the host registered, when it stored one.
    public var registeredClient: RegisteredClient? {
        guard let data = try? storage.read(key: RegisteredClient.storageKey) else { return nil }
        return try? JSONDecoder().decode(RegisteredClient.self, from: data)
    }

    /// The client's credentials for a token-endpoint form: its id, and its secret if it has one.
    package var clientCredentials: [(String, String)] {
        let registered = registeredClient
        var form = [("client_id", registered?.clientID ?? clientIDOverride ?? configuration.clientID)]
        if let secret = registered?.clientSecret { form.append(("client_secret", secret)) }
        return form
    }

    /// A manager for the session in `storage`, shared through `group`.
    public init(
        configuration: OAuthConfiguration,
        storage: any TokenStorage,
        group: AppGroup,
        leeway: TimeInterval = 5,
        clientID: String? = nil
    ) throws(AppexError) {
        self.configuration = configuration
        self.storage = storage
        self.leeway = leeway
        self.clientIDOverride = clientID
        self.clock = group.environment.clock
        do {
            loginStatus = try LoginStatus(
                group: group,
                configuration: LoginStatus.Configuration(userLoggedInKey: configuration.userLoggedInKey)
            )
        } catch {
            throw AppexError(
                .storage,
                "cannot open the login status of \(group.identifier)",
                context: AppexError.Context(group: group.identifier),
                underlyingError: error
            )
        }
        let directory = group.containerPath + "/Library/Auth"
        do { try group.environment.makePrivateDirectory(directory) } catch {
            throw AppexError(
                .storage,
                "cannot make \(directory)",
                context: AppexError.Context(path: directory, group: group.identifier),
                underlyingError: error
            )
        }
        lock = RefreshLock(path: directory + "/refresh.lock")
    }

    // MARK: - The stored session

    /// The stored token set, or `nil` when no one is logged in.
    public func storedTokens() throws(AppexError) -> TokenSet? {
        guard let data = try storage.read(key: storageKey) else { return nil }
        if let last = decoded.withLock({ $0 }), last.bytes == data { return last.tokens }
        let tokens = try TokenSet.decoded(from: data, key: storageKey)
        decoded.withLock { $0 = (data, tokens) }
        return tokens
    }

    /// Stores a token set (the host after login; the manager after each refresh).
    package func store(_ tokens: TokenSet) throws(AppexError) {
        try storage.write(key: storageKey, data: tokens.encoded())
    }

    /// Clears the session and publishes "logged out" (any process may end a session).
    public func clearSession() throws(AppexError) {
        try storage.delete(key: storageKey)
        do { try loginStatus.publish(nil) } catch {
            throw AppexError(
                .storage,
                "cannot publish the logout",
                context: AppexError.Context(group: configuration.appGroup),
                underlyingError: error
            )
        }
    }

    // MARK: - Refresh

    /// The outcome of one refresh request, as the server gave it.
    public enum RefreshResult: Sendable {
        /// New tokens (not yet stored).
        case success(TokenSet)
        /// The server's error answer: `error` (`invalid_grant`, ...), its description, the status.
        case errorResponse(error: String, description: String?, status: Int)
        /// No usable answer: the network, or a 5xx.
        case transportError(AppexError)
    }

    /// One refresh request with `refreshToken` (RFC 6749 §6), exactly as the server answers it:
    /// nothing is stored and nothing is retried. Most callers want ``withFreshAccessToken(_:)``.
    public func refreshAccessToken(refreshToken: String) async -> RefreshResult {
        do {
            let endpoints = try await configuration.resolvedEndpoints()
            let (data, response) = try await HTTP.postForm(
                endpoints.token,
                [
                    ("grant_type", "refresh_token"), ("refresh_token", refreshToken),
                ] + clientCredentials
            )
            return Self.refreshResult(
                status: response.statusCode,
                body: data,
                endpoint: endpoints.token,
                previous: try? storedTokens(),
                now: clock.now
            )
        } catch {
            return .transportError(error)
        }
    }

    /// What a token endpoint's answer to a refresh request says: tokens (HTTP 200 with a token
    /// response, RFC 6749 §5.1), the server's refusal (a 4xx with an error response, §5.2), or
    /// `retryable` for anything else. `previous` is read only for tokens, whose answer may omit
    /// the refresh token and scope.
    ///
    /// `@_spi(Fuzzing)`: the fuzz target `token-response` (`Fuzz/`) feeds it any bytes; not part of
    /// the supported API.
    @_spi(Fuzzing) public static func refreshResult(
        status: Int,
        body: Data,
        endpoint: URL,
        previous: @autoclosure () -> TokenSet?,
        now: Date = Date()
    ) -> RefreshResult {
        if status == 200, let tokens = try? JSONDecoder().decode(TokenResponse.self, from: body) {
            return .success(TokenSet(response: tokens, previous: previous(), now: now))
        }
        if (400..<500).contains(status), let error = try? JSONDecoder().decode(ErrorResponse.self, from: body) {
            return .errorResponse(error: error.error, description: error.error_description, status: status)
        }
        return .transportError(
            AppexError(
                .retryable,
                "the token endpoint \(endpoint) answered HTTP \(status)",
                context: AppexError.Context(httpStatus: status)
            )
        )
    }

    /// A token set whose access token is not about to expire: the stored one, or one refreshed
    /// under the cross-process lock.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError``: `notLoggedIn`, `reauthenticationRequired`, `retryable`, `storage`.
    public func freshTokens() async throws(AppexError) -> TokenSet {
        guard let current = try storedTokens() else { throw notLoggedIn() }
        if !current.needsRefresh(leeway: leeway, now: clock.now) { return current }
        return try await refresh(replacing: current)
    }

    /// Refreshes `stale` unless a sibling already did: at most one refresh in flight across all
    /// processes sharing the storage.
    ///
    /// Not cancelled with its caller: once the request is sent, the server may have rotated the
    /// refresh token, and an answer dropped then would lose the session (`invalid_grant` at the
    /// next refresh). The caller's cancellation is seen when the refresh has been stored.
    package func refresh(replacing stale: TokenSet) async throws(AppexError) -> TokenSet {
        let refreshing = Task { () async -> Result<TokenSet, AppexError> in
            do throws(AppexError) {
                return .success(try await self.refreshUnderLock(replacing: stale))
            } catch {
                return .failure(error)
            }
        }
        return try await refreshing.value.get()
    }

    private func refreshUnderLock(replacing stale: TokenSet) async throws(AppexError) -> TokenSet {
        try await lock.withLock { () async throws(AppexError) -> TokenSet in
            // Under the lock: what is stored now? A sibling may have rotated the tokens while we waited.
            guard let latest = try storedTokens() else { throw notLoggedIn() }
            // Rotated by a sibling while we waited: use it while it lives, do not refresh again.
            if latest.accessToken != stale.accessToken && !latest.expires(within: 0, from: clock.now) { return latest }
            guard let refreshToken = latest.refreshToken else {
                try clearSession()
                throw AppexError(
                    .reauthenticationRequired,
                    "the session of client \(clientID) has no refresh token and its access token expired: log in again in the host app",
                    context: AppexError.Context(group: configuration.appGroup)
                )
            }
            switch await refreshAccessToken(refreshToken: refreshToken) {
            case .success(let tokens):
                try store(tokens)
                return tokens
            case .transportError(let error):
                throw error
            case .errorResponse(let error, let description, let status):
                if error == "invalid_grant" {
                    // A newer session may have been stored meanwhile (the host logged in again).
                    if let again = try storedTokens(), again.refreshToken != refreshToken { return again }
                    try clearSession()
                    throw AppexError(
                        .reauthenticationRequired,
                        "the server refused the refresh token of client \(clientID) (invalid_grant\(description.map { ": \($0)" } ?? "")): the session was cleared and the login status says logged out; log in again in the host app",
                        context: AppexError.Context(
                            group: configuration.appGroup,
                            oauthError: error,
                            httpStatus: status
                        )
                    )
                }
                throw AppexError(
                    .rejected,
                    "the server refused the refresh of client \(clientID): \(error)\(description.map { " (\($0))" } ?? "")",
                    context: AppexError.Context(group: configuration.appGroup, oauthError: error, httpStatus: status)
                )
            }
        }
    }

    /// Runs `body` with an access token that is not about to expire.
    public func withFreshAccessToken<Result: Sendable>(_ body: (String) async throws -> Result) async throws -> Result {
        try await body(freshTokens().accessToken)
    }

    // MARK: - Authorized requests

    /// `request` with `Authorization: Bearer <fresh access token>`.
    public func authorizedRequest(_ request: URLRequest) async throws(AppexError) -> URLRequest {
        let tokens = try await freshTokens()
        var authorized = request
        authorized.setValue(
            "\(tokens.tokenType.lowercased() == "bearer" ? "Bearer" : tokens.tokenType) \(tokens.accessToken)",
            forHTTPHeaderField: "Authorization"
        )
        return authorized
    }

    /// Sends `request` authorized with a fresh access token; on a 401 whose `WWW-Authenticate`
    /// says `error="invalid_token"`, refreshes (under the lock) and sends it once more.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` from getting a token, or `retryable` when the request got no answer.
    public func data(for request: URLRequest) async throws(AppexError) -> (Data, HTTPURLResponse) {
        let tokens = try await freshTokens()
        let first = try await send(request, with: tokens)
        guard first.1.statusCode == 401, Self.saysInvalidToken(first.1) else { return first }
        let refreshed = try await refresh(replacing: tokens)
        return try await send(request, with: refreshed)
    }

    private func send(_ request: URLRequest, with tokens: TokenSet) async throws(AppexError) -> (Data, HTTPURLResponse)
    {
        var authorized = request
        authorized.setValue("Bearer \(tokens.accessToken)", forHTTPHeaderField: "Authorization")
        return try await HTTP.send(authorized)
    }

    /// Whether a 401 is RFC 6750's `invalid_token` (expired, revoked): worth one refresh.
    static func saysInvalidToken(_ response: HTTPURLResponse) -> Bool {
        guard let challenge = response.value(forHTTPHeaderField: "WWW-Authenticate") else { return false }
        return challenge.range(of: "error=\"invalid_token\"", options: .caseInsensitive) != nil
    }

    // MARK: - Revocation

    /// Revokes a refresh token (RFC 7009; the server also ends the access tokens of its grant).
    /// When it is the stored session's, the session is cleared and "logged out" published at
    /// once: no process is handed an access token the server already refuses.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError``: `configuration` (no revocation endpoint), `rejected` or
    ///   `retryable` (the server's answer), `storage`. Nothing stored changes when it throws.
    public func revoke(refreshToken: String) async throws(AppexError) {
        try await revoke(refreshToken, hint: "refresh_token")
        try await lock.withLock { () async throws(AppexError) -> Void in
            if try storedTokens()?.refreshToken == refreshToken { try clearSession() }
        }
    }

    /// Revokes an access token (RFC 7009). When it is the stored one, it is stored as expired:
    /// the next use refreshes it (or learns that the session ended) instead of sending it.
    public func revoke(accessToken: String) async throws(AppexError) {
        try await revoke(accessToken, hint: "access_token")
        // Under the refresh lock: a sibling's refresh between the read and the write must not be
        // overwritten by the tokens it replaced.
        try await lock.withLock { () async throws(AppexError) -> Void in
            if var stored = try storedTokens(), stored.accessToken == accessToken {
                stored.expiresAt = .distantPast
                try store(stored)
            }
        }
    }

    private func revoke(_ token: String, hint: String) async throws(AppexError) {
        let endpoints = try await configuration.resolvedEndpoints()
        guard let endpoint = endpoints.revocation else {
            throw AppexError(.configuration, "the server of \(configuration.issuer) names no revocation endpoint")
        }
        let (data, response) = try await HTTP.postForm(
            endpoint,
            [("token", token), ("token_type_hint", hint)] + clientCredentials
        )
        guard response.statusCode == 200 else {
            let error = try? JSONDecoder().decode(ErrorResponse.self, from: data)
            throw AppexError(
                response.statusCode >= 500 ? .retryable : .rejected,
                "the revocation endpoint \(endpoint) answered HTTP \(response.statusCode)\(error.map { ": \($0.error)" } ?? "")",
                context: AppexError.Context(oauthError: error?.error, httpStatus: response.statusCode)
            )
        }
    }

    private func notLoggedIn() -> AppexError {
        AppexError(
            .notLoggedIn,
            "no session of client \(clientID) is stored for app group \(configuration.appGroup): log in in the host app first",
            context: AppexError.Context(group: configuration.appGroup)
        )
    }
}
