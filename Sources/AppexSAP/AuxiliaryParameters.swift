public import Foundation

/// What a ``StoreManagerStep`` sets up for the app's extensions (SAP's `AuxiliaryParameters`):
/// the store the extensions reach through data requests, and the keychain group its paired key's
/// shares are published in.
///
/// Where Appex differs: it seals the primary share under its own device key, and publishes a new
/// auxiliary share at every passcode change, so `obfuscatedPrimaryKey` and `eSPAKAuxiliary` are
/// kept but play no part; `onboardingStatusName` names the shared keychain item in which the step
/// publishes that the app is onboarded (``OnboardingStatus``).
public struct AuxiliaryParameters: Sendable, Hashable {
    /// The secure store's name (`SecureStore.Configuration.name`).
    public var sharedStoreName: String
    /// The keychain access group the app shares with its extensions.
    public var sharedAccessGroup: String
    /// Kept for source compatibility (see above).
    public var obfuscatedPrimaryKey: [UInt8]
    /// Kept for source compatibility (see above).
    public var eSPAKAuxiliary: Data?
    /// The API key the app's requests carry, if any.
    public var apiKeyAuthenicationConfig: APIKeyAuthenticationConfig?
    /// The shared keychain item that says whether the app is onboarded.
    public var onboardingStatusName: String

    /// Parameters, with SAP's labels (its spelling of `apiKeyAuthenicationConfig` included).
    public init(
        sharedStoreName: String,
        sharedAccessGroup: String,
        obfuscatedPrimaryKey: [UInt8],
        eSPAKAuxiliary: Data?,
        apiKeyAuthenicationConfig: APIKeyAuthenticationConfig?,
        onboardingStatusName: String
    ) {
        self.sharedStoreName = sharedStoreName
        self.sharedAccessGroup = sharedAccessGroup
        self.obfuscatedPrimaryKey = obfuscatedPrimaryKey
        self.eSPAKAuxiliary = eSPAKAuxiliary
        self.apiKeyAuthenicationConfig = apiKeyAuthenicationConfig
        self.onboardingStatusName = onboardingStatusName
    }
}
