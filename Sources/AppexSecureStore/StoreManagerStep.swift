import AppexCore
import AppexStore
import Foundation

/// Makes (onboard) or opens (restore) the host's secure store with the passcode the user gives,
/// and makes the paired key's shares for extensions (SAP's `StoreManagerStep`). In the
/// background it only makes the store at hand, locked: requests open it with their share.
public struct StoreManagerStep: OnboardingStep {
    /// Which store, and its policy.
    public var configuration: SecureStore.Configuration

    /// The step for the store `configuration` names (the default store).
    public init(configuration: SecureStore.Configuration = SecureStore.Configuration()) {
        self.configuration = configuration
    }

    /// Makes the store with a new passcode the user gives (`nil`: no passcode), or opens it if it
    /// exists; then sets the context's store and auxiliary parameters.
    public func onboard(context: inout OnboardingContext) async throws(AppexError) {
        let store = try makeStore(context)
        if try store.state == .uninitialized {
            try store.onboard(passcode: try await context.passcode(true))
        } else {
            try await open(store, context)
        }
        try finish(store, &context)
    }

    /// Opens the store with the passcode the user gives (or the device key); then sets the
    /// context's store and auxiliary parameters.
    public func restore(context: inout OnboardingContext) async throws(AppexError) {
        let store = try makeStore(context)
        try await open(store, context)
        try finish(store, &context)
    }

    /// Sets the context's store, locked: each request opens it with its own share.
    public func background(context: inout OnboardingContext) async throws(AppexError) {
        context.store = try makeStore(context)
    }

    private func makeStore(_ context: OnboardingContext) throws(AppexError) -> SecureStore {
        var configuration = configuration
        configuration.environment = context.environment
        return try SecureStore(context: context.host, configuration: configuration)
    }

    private func open(_ store: SecureStore, _ context: OnboardingContext) async throws(AppexError) {
        if try store.status().hasPasscode {
            guard let passcode = try await context.passcode(false) else {
                throw AppexError(
                    .storeLocked,
                    "the secure store \(store.path) needs the passcode, and none was given",
                    context: AppexError.Context(bundleIdentifier: context.host.bundleIdentifier, path: store.path)
                )
            }
            try store.open(passcode: passcode)
        } else {
            try store.openWithDeviceKey()
        }
    }

    private func finish(_ store: SecureStore, _ context: inout OnboardingContext) throws(AppexError) {
        context.store = store
        context.auxiliaryParameters = AuxiliaryParameters(
            sharedStoreName: store.configuration.name,
            sharedAccessGroup: try store.sharedGroup(),
            eSPAKAuxiliary: try store.auxiliarySecurity().getESPAKAuxiliary()
        )
    }
}
