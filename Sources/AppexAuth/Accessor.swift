public import AppexCore
public import AppexStore

/// Builds what a process may do with the shared session, for its context.
///
/// ```swift
/// let accessor = try AccessorBuilder(configuration: configuration, context: try .current())
///     .option(.oauth)
///     .build()
/// let token = try await accessor.tokenManager.withFreshAccessToken { $0 }
/// ```
///
/// This module has no way to log in: an extension imports `AppexAuth`, and the login flows live
/// in `AppexAuthLogin`, which only a host links (`HostAccessorBuilder`). Calling them from
/// extension code does not compile.
public struct AccessorBuilder: Sendable {
    /// What an accessor offers.
    public enum Option: Sendable, Hashable {
        /// The OAuth token manager.
        case oauth
    }

    /// The configuration.
    public let configuration: OAuthConfiguration
    /// Who is asking.
    public let context: ProcessContext
    /// Where state lives.
    public let environment: AppexEnvironment
    private var options: Set<Option> = []
    private var storage: (any TokenStorage)?

    /// A builder for `context` (an extension: `ProcessContext.current()`).
    public init(configuration: OAuthConfiguration, context: ProcessContext, environment: AppexEnvironment = .current())
    {
        self.configuration = configuration
        self.context = context
        self.environment = environment
    }

    /// Adds an option.
    public func option(_ option: Option) -> AccessorBuilder {
        var copy = self
        copy.options.insert(option)
        return copy
    }

    /// Keeps the session's tokens in `storage` instead of the one the configuration names (a host
    /// whose tokens live behind its passcode: `SecureStoreTokenStorage`).
    public func tokenStorage(_ storage: any TokenStorage) -> AccessorBuilder {
        var copy = self
        copy.storage = storage
        return copy
    }

    /// The accessor.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `configuration` without `.oauth`, `storage` when the app group
    ///   or the storage cannot be opened (a missing entitlement is named).
    public func build() throws(AppexError) -> Accessor {
        guard options.contains(.oauth) else {
            throw AppexError(.configuration, "the accessor has no option: add .option(.oauth)")
        }
        return Accessor(tokenManager: try makeTokenManager())
    }

    /// The token manager for this builder's context (the host's builder uses it too).
    public func makeTokenManager() throws(AppexError) -> OAuthTokenManager {
        let group: AppGroup
        do { group = try AppGroup(configuration.appGroup, context: context, environment: environment) } catch {
            throw AppexError(
                .storage,
                "cannot open app group \(configuration.appGroup)",
                context: AppexError.Context(group: configuration.appGroup),
                underlyingError: error
            )
        }
        if let storage { return try OAuthTokenManager(configuration: configuration, storage: storage, group: group) }
        let storage: any TokenStorage
        switch configuration.storage {
        case .keychain:
            do {
                storage = KeychainTokenStorage(
                    keychain: try SharedKeychain(context: context, environment: environment),
                    accessGroup: configuration.tokenAccessGroup(entitledTo: context.entitlements.keychainAccessGroups)
                )
            } catch {
                throw AppexError(.storage, "cannot open the shared keychain", underlyingError: error)
            }
        case .defaults:
            storage = try DefaultsTokenStorage(group: group)
        }
        return try OAuthTokenManager(configuration: configuration, storage: storage, group: group)
    }
}

/// What an extension may do with the shared session: use, refresh and revoke its tokens.
public struct Accessor: Sendable {
    /// The token manager.
    public let tokenManager: OAuthTokenManager
}
