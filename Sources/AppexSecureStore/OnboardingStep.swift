import AppexCore
import AppexStore
import Foundation

/// One step of a host's start (SAP's `OnboardingStep`): the first start (`onboard`), every later
/// start (`restore`), and a run in the background, with no user to ask (`background`).
public protocol OnboardingStep: Sendable {
    /// The first start: set up what this step owns.
    func onboard(_ context: inout OnboardingContext) async throws(AppexError)
    /// A later start: open what this step owns.
    func restore(_ context: inout OnboardingContext) async throws(AppexError)
    /// A background run: no user, no passcode.
    func background(context: inout OnboardingContext) async throws(AppexError)
}

extension OnboardingStep {
    /// Does nothing.
    public func background(context: inout OnboardingContext) async throws(AppexError) {}
}
