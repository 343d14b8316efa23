import AppexCore
import AppexStore
import Foundation

/// One step of a host's start (SAP's `OnboardingStep`): the first start (`onboard(context:)`), every later
/// start (`restore(context:)`), and a run in the background, with no user to ask
/// (`background(context:)`); SAP's labels.
///
/// ### Conforming
/// Each method gets the flow's context and leaves in it what later steps need (the store, say).
/// `onboard` runs once, when the host's secure store is not set up; `restore` at every later
/// start; `background` in a background run, where there is no user: it must not ask for the
/// passcode. A thrown error stops the flow and is the flow's error.
public protocol OnboardingStep: Sendable {
    /// The first start: set up what this step owns.
    func onboard(context: inout OnboardingContext) async throws(AppexError)
    /// A later start: open what this step owns.
    func restore(context: inout OnboardingContext) async throws(AppexError)
    /// A background run: no user, no passcode.
    func background(context: inout OnboardingContext) async throws(AppexError)
}

extension OnboardingStep {
    /// Does nothing.
    public func background(context: inout OnboardingContext) async throws(AppexError) {}
}
