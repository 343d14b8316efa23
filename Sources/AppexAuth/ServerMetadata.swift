import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension OAuthConfiguration {
    /// The endpoints: those given, the rest from the issuer's metadata (RFC 8414 §3:
    /// `/.well-known/oauth-authorization-server` inserted before the issuer's path).
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `retryable` when the metadata cannot be fetched, `configuration`
    ///   when it is not valid or names another issuer.
    public func resolvedEndpoints() async throws(AppexError) -> Endpoints {
        if let endpoints { return endpoints }
        guard var components = URLComponents(url: issuer, resolvingAgainstBaseURL: false) else {
            throw AppexError(.configuration, "the issuer \(issuer) is not a URL")
        }
        let path = components.path == "/" ? "" : components.path
        components.path = "/.well-known/oauth-authorization-server" + path
        guard let url = components.url else {
            throw AppexError(.configuration, "cannot make the metadata URL of \(issuer)")
        }
        let (data, status) = try await HTTP.get(url)
        guard status == 200 else {
            throw AppexError(
                status >= 500 ? .retryable : .configuration,
                "the metadata at \(url) answered HTTP \(status)",
                context: AppexError.Context(httpStatus: status)
            )
        }
        struct Metadata: Decodable {
            var issuer: String
            var authorization_endpoint: URL?
            var token_endpoint: URL
            var revocation_endpoint: URL?
            var registration_endpoint: URL?
        }
        let metadata: Metadata
        do { metadata = try JSONDecoder().decode(Metadata.self, from: data) } catch {
            throw AppexError(.configuration, "the metadata at \(url) is not RFC 8414 metadata", underlyingError: error)
        }
        // RFC 8414 §3.3: the issuer in the document must be the one asked for.
        guard metadata.issuer.trimmingSuffix("/") == issuer.absoluteString.trimmingSuffix("/") else {
            throw AppexError(.configuration, "the metadata at \(url) names issuer \(metadata.issuer), not \(issuer)")
        }
        return Endpoints(
            authorization: metadata.authorization_endpoint,
            token: metadata.token_endpoint,
            revocation: metadata.revocation_endpoint,
            registration: metadata.registration_endpoint
        )
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
