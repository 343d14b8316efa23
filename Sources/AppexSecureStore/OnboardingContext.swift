public import AppexCore
import AppexStore
public import Foundation

/// What the steps of an ``OnboardingFlow`` share as they run (SAP's `OnboardingContext`): the
/// host, how to ask the user for the passcode, and what earlier steps made.
public struct OnboardingContext: Sendable {
    /// The host app the flow runs in.
    public var host: ProcessContext
    /// Where Appex's state lives.
    public var environment: AppexEnvironment
    /// Asks the user for the app passcode (`isNew`: a new one, to be set); `nil` for the
    /// "no passcode" mode. Not called in the background.
    public var passcode: @Sendable (_ isNew: Bool) async throws(AppexError) -> String?
    /// The secure store, once ``StoreManagerStep`` made or opened it.
    public var store: SecureStore?
    /// What extensions need to ask the host, once ``StoreManagerStep`` made the store.
    public var auxiliaryParameters: AuxiliaryParameters?
    /// Auxiliary data requests answered by ``AuxiliaryCommunicationStep`` in this run.
    public var answeredRequests = 0

    /// A context for `host`, asking for passcodes with `passcode`.
    public init(
        host: ProcessContext,
        environment: AppexEnvironment = .current(),
        passcode: @escaping @Sendable (_ isNew: Bool) async throws(AppexError) -> String?
    ) {
        self.host = host
        self.environment = environment
        self.passcode = passcode
    }
}

/// What a host's extensions need to reach its secure store (SAP's `AuxiliaryParameters`).
public struct AuxiliaryParameters: Sendable, Hashable {
    /// The store's name (its keychain service is derived from it and the host).
    public var sharedStoreName: String
    /// The keychain group the auxiliary share and the data encryption key are published in.
    public var sharedAccessGroup: String
    /// The current encrypted auxiliary share.
    public var eSPAKAuxiliary: Data
}
