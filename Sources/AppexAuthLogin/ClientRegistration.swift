public import AppexAuth
public import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension OAuthLogin {
    /// Registers a client with the server (RFC 7591) and stores its identity where the
    /// extensions find it (the token storage: the shared keychain by default). From then on the
    /// session — login, refresh, revocation — uses the registered client.
    ///
    /// - Parameters:
    ///   - name: the client's name.
    ///   - grantTypes: what it will use (besides `refresh_token`, some servers allow one).
    ///   - redirectURIs: its redirect URIs (loopback ones for code + PKCE).
    ///   - template: a template client the server copies the new client's settings from (RFC
    ///     7591's `software_id`, as Curity's templatized registration names it); the request then
    ///     names no grant types, redirect URIs or authentication method of its own.
    /// - Throws: ``/AppexVocabulary/AppexError`` `configuration` when the server has no registration endpoint,
    ///   `rejected` with the server's error (a template it does not know), `retryable`, `storage`.
    @discardableResult
    public func registerClient(
        name: String,
        grantTypes: [String] = ["password", "refresh_token"],
        redirectURIs: [URL] = [],
        template: String? = nil
    ) async throws(AppexError) -> RegisteredClient {
        let configuration = tokenManager.configuration
        let endpoints = try await configuration.resolvedEndpoints()
        guard let endpoint = endpoints.registration else {
            throw AppexError(
                .configuration,
                "the server of \(configuration.issuer) names no registration endpoint (RFC 7591)"
            )
        }
        struct Metadata: Encodable {
            var client_name: String
            var grant_types: [String]?
            var redirect_uris: [String]?
            var token_endpoint_auth_method: String?
            var scope: String
            var software_id: String?
        }
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        do {
            request.httpBody = try JSONEncoder().encode(
                Metadata(
                    client_name: name,
                    grant_types: template == nil ? grantTypes : nil,
                    redirect_uris: template == nil ? redirectURIs.map(\.absoluteString) : nil,
                    token_endpoint_auth_method: template == nil ? "none" : nil,
                    scope: configuration.scopes.joined(separator: " "),
                    software_id: template
                )
            )
        } catch {
            throw AppexError(.configuration, "cannot encode the registration of \(name)", underlyingError: error)
        }
        let (data, response) = try await HTTP.send(request)
        // The server may echo fields it does not send back (client_id_issued_at, ...): only these are read.
        struct Answer: Decodable {
            var client_id: String
            var client_secret: String?
            var registration_access_token: String?
            var registration_client_uri: URL?
        }
        guard response.statusCode == 201 || response.statusCode == 200,
            let answer = try? JSONDecoder().decode(Answer.self, from: data)
        else {
            struct Refusal: Decodable {
                var error: String
                var error_description: String?
            }
            let refusal = try? JSONDecoder().decode(Refusal.self, from: data)
            throw AppexError(
                response.statusCode >= 500 ? .retryable : .rejected,
                "the registration endpoint \(endpoint) answered HTTP \(response.statusCode)\(refusal.map { ": \($0.error)" } ?? "")",
                context: AppexError.Context(oauthError: refusal?.error, httpStatus: response.statusCode)
            )
        }
        let client = RegisteredClient(
            clientID: answer.client_id,
            clientSecret: answer.client_secret,
            registrationAccessToken: answer.registration_access_token,
            registrationClientURI: answer.registration_client_uri
        )
        let encoded: Data
        do { encoded = try JSONEncoder().encode(client) } catch {
            throw AppexError(.storage, "cannot encode the registered client", underlyingError: error)
        }
        try tokenManager.storage.write(key: RegisteredClient.storageKey, data: encoded)
        return client
    }

    /// Deletes the stored client's registration at the server (RFC 7592). The identity stays
    /// stored: its next use fails with the server's `invalid_client`.
    public func deleteRegistration() async throws(AppexError) {
        guard let client = tokenManager.registeredClient, let uri = client.registrationClientURI,
            let token = client.registrationAccessToken
        else {
            throw AppexError(.configuration, "no registered client with a registration URI and token is stored")
        }
        var request = URLRequest(url: uri)
        request.httpMethod = "DELETE"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await HTTP.send(request)
        guard response.statusCode == 204 || response.statusCode == 200 else {
            throw AppexError(
                response.statusCode >= 500 ? .retryable : .rejected,
                "deleting the registration at \(uri) answered HTTP \(response.statusCode)",
                context: AppexError.Context(httpStatus: response.statusCode)
            )
        }
    }
}
