import AppexAuth
import AppexStore

/// The SDK's `OAuthTokenManager` for an extension: one refresh or revocation request with the
/// tokens the host obtained, answered as the SDK answers (``TokenResponse``). It stores
/// nothing: the caller keeps the new tokens where its host reads them.
///
/// It is AppexAuth's `OAuthTokenManager` underneath, for `ProcessContext.current()`; with
/// dynamic registration it acts as the client the host registered.
public struct HaapiOAuthTokenManager: Sendable {
    let configuration: HaapiConfiguration
    let options: Set<HaapiAccessorOption>

    /// One refresh request (RFC 6749 §6) with `refreshToken`.
    ///
    /// - Returns: `.successfulToken` with the new tokens, `.errorToken` with the server's
    ///   refusal (`invalid_grant`: the host must sign in again), `.error` when no usable answer
    ///   came (the network, a 5xx).
    /// - Throws: `AppexError` when the accessor cannot act for this process: `configuration`
    ///   without `.oauth`, `storage` or `untrusted-process` for its group or context.
    public func refreshAccessToken(refreshToken: String) async throws -> TokenResponse {
        switch try await manager().refreshAccessToken(refreshToken: refreshToken) {
        case .success(let tokens): return .successfulToken(SuccessfulTokenResponse(tokens))
        case .errorResponse(let error, let description, _):
            return .errorToken(ErrorTokenResponse(error: error, errorDescription: description))
        case .transportError(let error): return .error(error)
        }
    }

    /// Revokes `refreshToken` (RFC 7009).
    ///
    /// - Throws: `AppexError`, as AppexAuth's `revoke(refreshToken:)`.
    public func revokeRefreshToken(refreshToken: String) async throws {
        try await manager().revoke(refreshToken: refreshToken)
    }

    private func manager() throws(AppexError) -> OAuthTokenManager {
        guard options.contains(.oauth) else {
            throw AppexError(.configuration, "the accessor has no option: add .setHaapiAccessorOption(.oauth)")
        }
        var builder = AccessorBuilder(configuration: configuration.oauth, context: try .current()).option(.oauth)
        if let dcr = configuration.dcrConfiguration {
            // The registered client is read from the DCR storage, as the host stored it there.
            builder = builder.tokenStorage(StorageAsTokenStorage(storage: dcr.storage))
        }
        return try builder.build().tokenManager
    }
}
