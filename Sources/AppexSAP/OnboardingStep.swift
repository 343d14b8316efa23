/// How a step ended (SAPFioriFlows' `OnboardingResult`): the context it leaves, or why it failed.
public enum OnboardingResult: Sendable {
    /// The step is done; the context carries what it set up (the secure store, …).
    case success(OnboardingContext)
    /// The step failed; the flow stops.
    case failed(any Error)
}

/// One step of an app's onboarding, restoring and background flows, with SAPFioriFlows'
/// completion-handler signatures, so that a step written for the SDK (seed 002's
/// `AuxiliaryCommunicationStep`) compiles as written.
///
/// Each method has a default that succeeds with the context unchanged: a step implements
/// the flows it takes part in. ``OnboardingFlowController`` runs a list of steps in order.
/// A handler is called once, on any thread.
public protocol OnboardingStep {
    /// The step during the first start: sets up what it is for.
    func onboard(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void)
    /// The step at a later start.
    func restore(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void)
    /// The step in a background run (no user: no passcode).
    func background(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void)
}

extension OnboardingStep {
    /// Succeeds with `context` unchanged.
    public func onboard(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void) {
        completionHandler(.success(context))
    }

    /// Succeeds with `context` unchanged.
    public func restore(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void) {
        completionHandler(.success(context))
    }

    /// Succeeds with `context` unchanged.
    public func background(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void) {
        completionHandler(.success(context))
    }
}
