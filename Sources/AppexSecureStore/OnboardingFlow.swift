import AppexCore
import AppexStore
import Foundation

/// The steps a host runs at its start, and those it runs in the background (SAP's
/// `OnboardingFlow`).
///
/// ```swift
/// let flow = OnboardingFlow(
///     steps: [StoreManagerStep(), AuxiliaryCommunicationStep(group: "group.com.myapp.MyApp", handlers: handlers)],
///     backgroundSteps: [StoreManagerStep(), AuxiliaryCommunicationStep(group: "group.com.myapp.MyApp", handlers: handlers)]
/// )
/// var context = OnboardingContext(host: try .current(), passcode: { isNew in askUser(isNew) })
/// try await flow.start(&context)           // onboard the first time, restore afterwards
/// ```
public struct OnboardingFlow: Sendable {
    /// The steps of a start, in order.
    public var steps: [any OnboardingStep]
    /// The steps of a background run, in order.
    public var backgroundSteps: [any OnboardingStep]

    /// A flow of `steps`, and `backgroundSteps` for background runs.
    public init(steps: [any OnboardingStep], backgroundSteps: [any OnboardingStep] = []) {
        self.steps = steps
        self.backgroundSteps = backgroundSteps
    }

    /// Runs every step's `onboard`.
    public func onboard(_ context: inout OnboardingContext) async throws(AppexError) {
        for step in steps { try await step.onboard(context: &context) }
    }

    /// Runs every step's `restore`.
    public func restore(_ context: inout OnboardingContext) async throws(AppexError) {
        for step in steps { try await step.restore(context: &context) }
    }

    /// Onboards when the host's secure store is not set up (`configuration`'s), else restores.
    public func start(
        _ context: inout OnboardingContext,
        store configuration: SecureStore.Configuration? = nil
    ) async throws(AppexError) {
        var configuration = configuration ?? SecureStore.Configuration(environment: context.environment)
        configuration.environment = context.environment
        if try SecureStore(context: context.host, configuration: configuration).state == .uninitialized {
            try await onboard(&context)
        } else {
            try await restore(&context)
        }
    }

    /// Runs every background step's `background`.
    public func runInBackground(_ context: inout OnboardingContext) async throws(AppexError) {
        for step in backgroundSteps { try await step.background(context: &context) }
    }
}
