/// Runs a flow's steps in order, each with the context the one before left, as SAPFioriFlows'
/// flow controller does; the first failure ends the flow.
public enum OnboardingFlowController {
    /// Runs every step's `onboard`.
    public static func onboard(
        on steps: [any OnboardingStep],
        context: OnboardingContext,
        completionHandler: @escaping (OnboardingResult) -> Void
    ) {
        chain(steps[...], context, completionHandler) { $0.onboard(context: $1, completionHandler: $2) }
    }

    /// Runs every step's `restore`.
    public static func restore(
        on steps: [any OnboardingStep],
        context: OnboardingContext,
        completionHandler: @escaping (OnboardingResult) -> Void
    ) {
        chain(steps[...], context, completionHandler) { $0.restore(context: $1, completionHandler: $2) }
    }

    /// Runs every step's `background` (the app's `backgroundSteps`).
    public static func background(
        on steps: [any OnboardingStep],
        context: OnboardingContext,
        completionHandler: @escaping (OnboardingResult) -> Void
    ) {
        chain(steps[...], context, completionHandler) { $0.background(context: $1, completionHandler: $2) }
    }

    /// As ``background(on:context:completionHandler:)``, awaited.
    public static func background(on steps: [any OnboardingStep], context: OnboardingContext) async -> OnboardingResult
    {
        await withCheckedContinuation { continuation in
            background(on: steps, context: context) { continuation.resume(returning: $0) }
        }
    }

    private static func chain(
        _ steps: ArraySlice<any OnboardingStep>,
        _ context: OnboardingContext,
        _ completionHandler: @escaping (OnboardingResult) -> Void,
        _ call: @escaping (any OnboardingStep, OnboardingContext, @escaping (OnboardingResult) -> Void) -> Void
    ) {
        guard let step = steps.first else { return completionHandler(.success(context)) }
        call(step, context) { result in
            switch result {
            case .success(let next): chain(steps.dropFirst(), next, completionHandler, call)
            case .failed: completionHandler(result)
            }
        }
    }
}

/// Steps run one after the other as one step (SAPFioriFlows' `CompositeStep`).
public final class CompositeStep: OnboardingStep {
    /// The steps.
    public let steps: [any OnboardingStep]

    /// A step of `steps`.
    public init(steps: [any OnboardingStep]) { self.steps = steps }

    /// Every step's `onboard`.
    public func onboard(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void) {
        OnboardingFlowController.onboard(on: steps, context: context, completionHandler: completionHandler)
    }

    /// Every step's `restore`.
    public func restore(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void) {
        OnboardingFlowController.restore(on: steps, context: context, completionHandler: completionHandler)
    }

    /// Every step's `background`.
    public func background(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void) {
        OnboardingFlowController.background(on: steps, context: context, completionHandler: completionHandler)
    }
}

/// The SAP mobile services' default configuration steps. On Linux there are no mobile services
/// to read a configuration from, so there are none: a flow takes its server from its own
/// configuration (AppexAuth's `OAuthConfiguration`).
public enum SAPcpmsDefaultSteps {
    /// The configuration steps: none.
    public static var configuration: [any OnboardingStep] { [] }
}
