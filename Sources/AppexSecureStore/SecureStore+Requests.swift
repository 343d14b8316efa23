public import AppexStore

// The host's side of its extensions' data requests, made from the store: the shares and key it
// published, and the queue of an app group it serves.
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
        AuxiliaryDataRequestManager(
            dataStore: try AuxiliaryDataStore(
                group: AppGroup(group, context: context, environment: configuration.environment),
                encryptionKey: auxiliarySecurity().getAuxiliaryDataEncryptionKey()
            )
        )
    }
}
