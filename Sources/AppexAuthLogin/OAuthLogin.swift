public import AppexAuth
public import AppexCore
public import AppexStore
import Crypto
public import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds the host's accessor: the token manager plus the login flows. Only a host links this
/// module; an extension's accessor (`AccessorBuilder`, module `AppexAuth`) has no login.
///
/// ```swift
/// let host = try HostAccessorBuilder(configuration: configuration, context: hostContext).option(.oauth).build()
/// let user = try await host.login.password(user: "ada", password: secret)
/// ```
public struct HostAccessorBuilder: Sendable {
    private var builder: AccessorBuilder

    /// A builder for the host app's `context`.
    public init(configuration: OAuthConfiguration, context: ProcessContext, environment: AppexEnvironment = .current())
    {
        builder = AccessorBuilder(configuration: configuration, context: context, environment: environment)
    }

    /// Adds an option.
    public func option(_ option: AccessorBuilder.Option) -> HostAccessorBuilder {
        var copy = self
        copy.builder = builder.option(option)
        return copy
    }

    /// Keeps the session's tokens in `storage` (see ``/AppexAuth/AccessorBuilder/tokenStorage(_:)``).
    public func tokenStorage(_ storage: any TokenStorage) -> HostAccessorBuilder {
        var copy = self
        copy.builder = builder.tokenStorage(storage)
        return copy
    }

    /// The host's accessor.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `configuration` when the context is an app extension's (only a
    ///   host logs in), or what ``/AppexAuth/AccessorBuilder/build()`` throws.
    public func build() throws(AppexError) -> HostAccessor {
        guard builder.context.kind == .hostApp else {
            throw AppexError(
                .configuration,
                "\(builder.context.bundleIdentifier ?? "?") is an app extension: only the host app logs in",
                context: AppexError.Context(bundleIdentifier: builder.context.bundleIdentifier)
            )
        }
        let manager = try builder.build().tokenManager
        return HostAccessor(tokenManager: manager, login: OAuthLogin(tokenManager: manager))
    }
}

/// What the host may do: everything an extension may, and log in and out.
public struct HostAccessor: Sendable {
    /// The token manager (shared with the extensions through the storage).
    public let tokenManager: OAuthTokenManager
    /// The login flows.
    public let login: OAuthLogin
}

/// The host's login flows. On success the token set is stored where the extensions find it and
/// the login status is published.
public struct OAuthLogin: Sendable {
    /// The manager whose storage and login status a login fills.
    public let tokenManager: OAuthTokenManager

    /// The resource owner password grant (RFC 6749 §4.3), for tests and tools.
    ///
    /// - Returns: the user now logged in.
    /// - Throws: ``/AppexVocabulary/AppexError`` `rejected` (wrong password: `invalid_grant`), `retryable`,
    ///   `configuration`, `storage`.
    @discardableResult
    public func password(user: String, password: String) async throws(AppexError) -> UserAccount {
        var form =
            [("grant_type", "password"), ("username", user), ("password", password)] + tokenManager.clientCredentials
        let scopes = tokenManager.configuration.scopes
        if !scopes.isEmpty { form.append(("scope", scopes.joined(separator: " "))) }
        let tokens = try await requestTokens(form)
        return try await finish(tokens, fallbackUser: user)
    }

    /// Logs out: revokes the refresh token (best effort), clears the session, publishes logged out.
    public func logout() async throws(AppexError) {
        if let tokens = try tokenManager.storedTokens(), let refresh = tokens.refreshToken {
            try? await tokenManager.revoke(refreshToken: refresh)
        }
        try tokenManager.clearSession()
    }

    /// Posts a token request; returns the token set or the server's refusal.
    func requestTokens(_ form: [(String, String)]) async throws(AppexError) -> TokenSet {
        let endpoints = try await tokenManager.configuration.resolvedEndpoints()
        let (data, response) = try await HTTP.postForm(endpoints.token, form)
        if response.statusCode == 200, let tokens = try? JSONDecoder().decode(TokenResponse.self, from: data) {
            return TokenSet(response: tokens, now: tokenManager.clock.now)
        }
        struct Refusal: Decodable {
            var error: String
            var error_description: String?
        }
        if let refusal = try? JSONDecoder().decode(Refusal.self, from: data) {
            throw AppexError(
                response.statusCode >= 500 ? .retryable : .rejected,
                "the token endpoint \(endpoints.token) refused the login: \(refusal.error)\(refusal.error_description.map { " (\($0))" } ?? "")",
                context: AppexError.Context(oauthError: refusal.error, httpStatus: response.statusCode)
            )
        }
        throw AppexError(
            .retryable,
            "the token endpoint \(endpoints.token) answered HTTP \(response.statusCode)",
            context: AppexError.Context(httpStatus: response.statusCode)
        )
    }

    /// Stores the tokens, learns who logged in, publishes it.
    func finish(_ tokens: TokenSet, fallbackUser: String?) async throws(AppexError) -> UserAccount {
        try tokenManager.store(tokens)
        let account = try await identify(tokens, fallback: fallbackUser)
        do { try tokenManager.loginStatus.publish(account) } catch {
            throw AppexError(
                .storage,
                "cannot publish the login",
                context: AppexError.Context(group: tokenManager.configuration.appGroup),
                underlyingError: error
            )
        }
        return account
    }

    /// The user the tokens belong to: from the user-info endpoint when configured, else the
    /// name the user logged in with.
    private func identify(_ tokens: TokenSet, fallback: String?) async throws(AppexError) -> UserAccount {
        let configuration = tokenManager.configuration
        guard let endpoint = configuration.userInfoEndpoint else {
            let name = fallback ?? "user"
            return UserAccount(identifier: name, name: name, instanceURL: configuration.issuer)
        }
        var request = URLRequest(url: endpoint)
        request.setValue("Bearer \(tokens.accessToken)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await HTTP.send(request)
        struct Info: Decodable {
            var sub: String?
            var id: String?
            var name: String?
            var username: String?
        }
        guard response.statusCode == 200, let info = try? JSONDecoder().decode(Info.self, from: data),
            let identifier = info.sub ?? info.id
        else {
            throw AppexError(
                .configuration,
                "the user-info endpoint \(endpoint) answered HTTP \(response.statusCode) without sub or id"
            )
        }
        return UserAccount(
            identifier: identifier,
            name: info.name ?? info.username ?? identifier,
            instanceURL: configuration.issuer
        )
    }
}

extension OAuthLogin {
    /// The authorization code flow with PKCE (RFC 7636, `S256`) and a loopback redirect
    /// (RFC 8252): `open` shows the authorization URL to the user (a browser); the server
    /// redirects to a listener on 127.0.0.1, and the code is exchanged for tokens.
    ///
    /// - Parameters:
    ///   - open: opens the URL (a browser, or a test driving the server's login form).
    ///   - timeout: how long to wait for the user.
    /// - Returns: the user now logged in.
    /// - Throws: ``/AppexVocabulary/AppexError`` `rejected` (the user or server refused: `access_denied`, a wrong
    ///   state, `invalid_grant`), `retryable` (no callback in time), `configuration`.
    @discardableResult
    public func authorizationCode(
        timeout: Duration = .seconds(300),
        open: @Sendable (URL) async throws -> Void
    ) async throws(AppexError) -> UserAccount {
        let configuration = tokenManager.configuration
        let endpoints = try await configuration.resolvedEndpoints()
        guard let authorization = endpoints.authorization else {
            throw AppexError(.configuration, "the server of \(configuration.issuer) names no authorization endpoint")
        }
        let redirect = try LoopbackRedirect()
        let verifier = Self.randomURLSafe(bytes: 32)
        let challenge = Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded
        let state = Self.randomURLSafe(bytes: 16)
        guard var components = URLComponents(url: authorization, resolvingAgainstBaseURL: false) else {
            throw AppexError(.configuration, "the authorization endpoint \(authorization) is not a URL")
        }
        components.queryItems =
            (components.queryItems ?? []) + [
                URLQueryItem(name: "response_type", value: "code"),
                URLQueryItem(name: "client_id", value: tokenManager.clientID),
                URLQueryItem(name: "redirect_uri", value: redirect.redirectURI.absoluteString),
                URLQueryItem(name: "scope", value: configuration.scopes.joined(separator: " ")),
                URLQueryItem(name: "state", value: state),
                URLQueryItem(name: "code_challenge", value: challenge),
                URLQueryItem(name: "code_challenge_method", value: "S256"),
            ]
        guard let url = components.url else {
            throw AppexError(.configuration, "cannot make the authorization URL from \(authorization)")
        }
        async let answer = redirect.callback(timeout: timeout)
        do { try await open(url) } catch {
            redirect.cancel()
            _ = await answer
            throw AppexError(.retryable, "cannot open the authorization URL", underlyingError: error)
        }
        let query = try await answer.get()
        if let error = query["error"] {
            throw AppexError(
                .rejected,
                "the authorization was refused: \(error)\(query["error_description"].map { " (\($0))" } ?? "")",
                context: AppexError.Context(oauthError: error)
            )
        }
        guard query["state"] == state else {
            throw AppexError(
                .rejected,
                "the callback's state does not match the request's: a forged or stale redirect was ignored"
            )
        }
        guard let code = query["code"] else { throw AppexError(.rejected, "the callback carries no code") }
        let tokens = try await requestTokens(
            [
                ("grant_type", "authorization_code"), ("code", code),
                ("redirect_uri", redirect.redirectURI.absoluteString),
                ("code_verifier", verifier),
            ] + tokenManager.clientCredentials
        )
        return try await finish(tokens, fallbackUser: nil)
    }

    static func randomURLSafe(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64URLEncoded
    }
}

extension Data {
    /// Base64url without padding (RFC 4648 §5), as PKCE wants it.
    var base64URLEncoded: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
