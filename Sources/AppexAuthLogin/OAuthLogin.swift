public import AppexAuth
public import AppexCore
public import AppexStore
import Foundation
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
    public init(configuration: OAuthConfiguration, context: ProcessContext, environment: AppexEnvironment = .current()) {
        builder = AccessorBuilder(configuration: configuration, context: context, environment: environment)
    }

    /// Adds an option.
    public func option(_ option: AccessorBuilder.Option) -> HostAccessorBuilder {
        var copy = self
        copy.builder = builder.option(option)
        return copy
    }

    /// The host's accessor.
    ///
    /// - Throws: ``AuthError`` `configuration` when the context is an app extension's (only a
    ///   host logs in), or what ``AccessorBuilder/build()`` throws.
    public func build() throws(AuthError) -> HostAccessor {
        guard builder.context.kind == .hostApp else {
            throw AuthError(.configuration, "\(builder.context.bundleIdentifier ?? "?") is an app extension: only the host app logs in")
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
    /// - Throws: ``AuthError`` `rejected` (wrong password: `invalid_grant`), `retryable`,
    ///   `configuration`, `storage`.
    @discardableResult
    public func password(user: String, password: String) async throws(AuthError) -> UserAccount {
        var form = [("grant_type", "password"), ("username", user), ("password", password), ("client_id", tokenManager.clientID)]
        let scopes = tokenManager.configuration.scopes
        if !scopes.isEmpty { form.append(("scope", scopes.joined(separator: " "))) }
        let tokens = try await requestTokens(form)
        return try await finish(tokens, fallbackUser: user)
    }

    /// Logs out: revokes the refresh token (best effort), clears the session, publishes logged out.
    public func logout() async throws(AuthError) {
        if let tokens = try tokenManager.storedTokens(), let refresh = tokens.refreshToken {
            try? await tokenManager.revoke(refreshToken: refresh)
        }
        try tokenManager.clearSession()
    }

    /// Posts a token request; returns the token set or the server's refusal.
    func requestTokens(_ form: [(String, String)]) async throws(AuthError) -> TokenSet {
        let endpoints = try await tokenManager.configuration.resolvedEndpoints()
        let (data, response) = try await HTTP.postForm(endpoints.token, form)
        if response.statusCode == 200, let tokens = try? JSONDecoder().decode(TokenResponse.self, from: data) {
            return TokenSet(response: tokens)
        }
        struct Refusal: Decodable { var error: String; var error_description: String? }
        if let refusal = try? JSONDecoder().decode(Refusal.self, from: data) {
            throw AuthError(response.statusCode >= 500 ? .retryable : .rejected,
                            "the token endpoint \(endpoints.token) refused the login: \(refusal.error)\(refusal.error_description.map { " (\($0))" } ?? "")",
                            oauthError: refusal.error, status: response.statusCode)
        }
        throw AuthError(.retryable, "the token endpoint \(endpoints.token) answered HTTP \(response.statusCode)", status: response.statusCode)
    }

    /// Stores the tokens, learns who logged in, publishes it.
    func finish(_ tokens: TokenSet, fallbackUser: String?) async throws(AuthError) -> UserAccount {
        try tokenManager.store(tokens)
        let account = try await identify(tokens, fallback: fallbackUser)
        do { try tokenManager.loginStatus.publish(account) } catch {
            throw AuthError(.storage, "cannot publish the login: \(error)")
        }
        return account
    }

    /// The user the tokens belong to: from the user-info endpoint when configured, else the
    /// name the user logged in with.
    private func identify(_ tokens: TokenSet, fallback: String?) async throws(AuthError) -> UserAccount {
        let configuration = tokenManager.configuration
        guard let endpoint = configuration.userInfoEndpoint else {
            let name = fallback ?? "user"
            return UserAccount(identifier: name, name: name, instanceURL: configuration.issuer)
        }
        var request = URLRequest(url: endpoint)
        request.setValue("Bearer \(tokens.accessToken)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await HTTP.send(request)
        struct Info: Decodable { var sub: String?; var id: String?; var name: String?; var username: String? }
        guard response.statusCode == 200, let info = try? JSONDecoder().decode(Info.self, from: data),
              let identifier = info.sub ?? info.id else {
            throw AuthError(.configuration, "the user-info endpoint \(endpoint) answered HTTP \(response.statusCode) without sub or id")
        }
        return UserAccount(identifier: identifier, name: info.name ?? info.username ?? identifier, instanceURL: configuration.issuer)
    }
}
