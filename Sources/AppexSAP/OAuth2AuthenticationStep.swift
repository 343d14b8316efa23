public import AppexAuth
import AppexAuthLogin
public import Foundation

/// Shows the server's sign-in page to the user (SAPFioriFlows' authentication presenter).
public protocol OAuth2AuthenticationPresenter: Sendable {
    /// Shows `url`, where the user signs in; the server then redirects to the step's loopback
    /// listener.
    func present(_ url: URL) async throws
}

/// The Linux counterpart of SAP's `FioriASWebAuthenticationSessionPresenter`: there is no web
/// view to host, so it asks the user to open the sign-in address in the system browser (on
/// standard error, as `appex auth login --pkce` does) and hands it to `xdg-open` where there is
/// one; the server redirects to a listener on 127.0.0.1 (RFC 8252).
public struct FioriASWebAuthenticationSessionPresenter: OAuth2AuthenticationPresenter {
    /// A presenter.
    public init() {}

    /// Prints `url` for the user and opens it with `xdg-open` when present.
    public func present(_ url: URL) async throws {
        FileHandle.standardError.write(Data("Open this address to sign in: \(url.absoluteString)\n".utf8))
        await SystemBrowser.open(url)
    }
}

/// Signs the user in with OAuth 2 (SAPFioriFlows' `OAuth2AuthenticationStep`): the
/// authorization code flow with PKCE and a loopback redirect (AppexAuthLogin), the page shown
/// by ``presenter``; the session's tokens are kept where the app's extensions use them. In a
/// background run it signs nobody in: it checks that the session it left is there.
public final class OAuth2AuthenticationStep: OnboardingStep, @unchecked Sendable {  // configured once, then read
    /// Shows the sign-in page.
    public let presenter: any OAuth2AuthenticationPresenter
    /// The server, the client and the app group; `nil`: the context's
    /// (``OnboardingContext/authenticationConfiguration``). SAP reads them from its mobile
    /// services' configuration; on Linux the app sets them.
    public var configuration: OAuthConfiguration?

    /// A step that shows the sign-in page with `presenter`.
    public init(presenter: any OAuth2AuthenticationPresenter) { self.presenter = presenter }

    /// Signs the user in.
    public func onboard(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void) {
        let (configuration, presenter) = (self.configuration ?? context.authenticationConfiguration, self.presenter)
        context.run(completionHandler) { context in
            let login = try HostAccessorBuilder(
                configuration: try Self.required(configuration),
                context: context.host,
                environment: context.environment
            ).option(.oauth).build().login
            try await login.authorizationCode { url in try await presenter.present(url) }
        }
    }

    /// Signs the user in again when the session is gone; otherwise goes on with it.
    public func restore(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void) {
        if (try? hasSession(context)) == true { return completionHandler(.success(context)) }
        onboard(context: context, completionHandler: completionHandler)
    }

    /// Goes on when the session is there; fails with `not-logged-in` when it is not.
    public func background(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void) {
        do {
            guard try hasSession(context) else {
                throw AppexError(.notLoggedIn, "no session: the app's user must sign in before a background run")
            }
            completionHandler(.success(context))
        } catch {
            completionHandler(.failed(error))
        }
    }

    private func hasSession(_ context: OnboardingContext) throws -> Bool {
        let manager = try AccessorBuilder(
            configuration: try Self.required(configuration ?? context.authenticationConfiguration),
            context: context.appex.host,
            environment: context.appex.environment
        ).option(.oauth).build().tokenManager
        return try manager.storedTokens() != nil
    }

    private static func required(_ configuration: OAuthConfiguration?) throws(AppexError) -> OAuthConfiguration {
        guard let configuration else {
            throw AppexError(.configuration, "OAuth2AuthenticationStep has no configuration: set its configuration")
        }
        return configuration
    }
}
