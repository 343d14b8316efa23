public import AppexStore

// The store's ties to its extensions' data requests, which AppexStore owns whole (the request,
// the queue, its key, serving by kind): what this store published for them, and the queue of
// an app group that it serves.
extension SecureStore {
    /// What this store published for the host's extensions (its auxiliary share and the key
    /// answers are sealed with), read as the host.
    public func auxiliarySecurity() throws(AppexError) -> AuxiliarySecurityManager {
        try AuxiliarySecurityManager(
            hostBundleIdentifier: hostBundleIdentifier,
            storeName: configuration.name,
            accessGroup: configuration.sharedAccessGroup,
            context: context,
            environment: configuration.environment
        )
    }

    /// The data requests of app group `group`, as this store's host serves them: sealed under
    /// the auxiliary data encryption key this store published.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `notOnboarded` before the store is set up (no key is published);
    ///   what opening the group throws (`missingEntitlement`, …).
    public func dataRequests(inGroup group: String) throws(AppexError) -> AuxiliaryDataRequestManager {
        try AuxiliaryDataRequestManager(
            group: AppGroup(group, context: context, environment: configuration.environment),
            security: auxiliarySecurity()
        )
    }
}
