import AppexSecureStore
import AppexStore
import Foundation

/// Sets up or opens the app's secure store and its paired key's shares for extensions
/// (SAPFioriFlows' `StoreManagerStep`): AppexSecureStore's step, configured by
/// ``auxiliaryParameters`` (the store's name and shared keychain group), and, once the store is
/// open, the onboarding status published under the parameters' `onboardingStatusName`.
open class StoreManagerStep: OnboardingStep, @unchecked Sendable {  // SAP's open class; set up once, then read
    /// What to set up for the app's extensions; `nil`: the default store, no shared group.
    public var auxiliaryParameters: AuxiliaryParameters?

    /// A step with no parameters yet.
    public init() {}

    /// Makes the store with a new passcode (or opens it), then publishes the onboarding status.
    open func onboard(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void) {
        let (step, parameters) = (appexStep(context), auxiliaryParameters)
        context.run(completionHandler) { context in
            try await step.onboard(context: &context)
            try Self.publishStatus(parameters, context)
        }
    }

    /// Opens the store with the passcode, then publishes the onboarding status.
    open func restore(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void) {
        let (step, parameters) = (appexStep(context), auxiliaryParameters)
        context.run(completionHandler) { context in
            try await step.restore(context: &context)
            try Self.publishStatus(parameters, context)
        }
    }

    /// Sets the store at hand, locked: each data request opens it with its own share.
    open func background(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void) {
        let step = appexStep(context)
        context.run(completionHandler) { context in try await step.background(context: &context) }
    }

    private func appexStep(_ context: OnboardingContext) -> AppexSecureStore.StoreManagerStep {
        var configuration = SecureStore.Configuration(environment: context.appex.environment)
        if let parameters = auxiliaryParameters {
            configuration.name = parameters.sharedStoreName
            configuration.sharedAccessGroup = parameters.sharedAccessGroup
        }
        return AppexSecureStore.StoreManagerStep(configuration: configuration)
    }

    private static func publishStatus(
        _ parameters: AuxiliaryParameters?,
        _ context: AppexSecureStore.OnboardingContext
    ) throws {
        guard let parameters else { return }
        try OnboardingStatus.publish(
            true,
            name: parameters.onboardingStatusName,
            accessGroup: parameters.sharedAccessGroup,
            context: context.host,
            environment: context.environment
        )
    }
}
