public import AppexAuth
public import AppexSecureStore
public import AppexStore

/// What the steps of a flow share (SAPFioriFlows' `OnboardingContext`): AppexSecureStore's
/// onboarding context (the host app, where state lives, the passcode prompt, the secure store
/// once a ``StoreManagerStep`` set it up).
public struct OnboardingContext: Sendable {
    /// AppexSecureStore's context, which the steps read and extend.
    public var appex: AppexSecureStore.OnboardingContext
    /// The server and client the ``OAuth2AuthenticationStep`` signs in with, when the step names
    /// none (SAP's configuration steps put it in the context; on Linux the app does).
    public var authenticationConfiguration: OAuthConfiguration?

    /// The context `appex` carries, and the server the app signs in with.
    public init(_ appex: AppexSecureStore.OnboardingContext, authenticationConfiguration: OAuthConfiguration? = nil) {
        self.appex = appex
        self.authenticationConfiguration = authenticationConfiguration
    }

    /// Answers the data requests pending in the app group `group`, each with the secure store
    /// opened by the request's own share (AppexSecureStore's `AuxiliaryCommunicationStep`), then
    /// calls `completionHandler`: what a step's `background` does to load data for a widget.
    /// The store must be at hand: a ``StoreManagerStep`` runs before.
    public func answerDataRequests(
        inGroup group: String,
        handlers: [String: @Sendable (AuxiliaryDataRequestClaim, SecureStore.Access) async throws(AppexError) -> Data],
        completionHandler: @escaping (OnboardingResult) -> Void
    ) {
        let step = AppexSecureStore.AuxiliaryCommunicationStep(group: group, handlers: handlers)
        run(completionHandler) { context in try await step.background(context: &context) }
    }
}

extension OnboardingContext {
    /// Runs `body` on AppexSecureStore's context in a task and calls `completionHandler` once
    /// with the outcome: the bridge from SAP's completion handlers to Appex's async steps.
    func run(
        _ completionHandler: @escaping (OnboardingResult) -> Void,
        _ body: @escaping @Sendable (inout AppexSecureStore.OnboardingContext) async throws -> Void
    ) {
        // SAP's handlers are not Sendable; the bridge calls this one once, from the task.
        nonisolated(unsafe) let completion = completionHandler
        let (start, configuration) = (appex, authenticationConfiguration)
        Task {
            var context = start
            do {
                try await body(&context)
                completion(.success(OnboardingContext(context, authenticationConfiguration: configuration)))
            } catch {
                completion(.failed(error))
            }
        }
    }
}
