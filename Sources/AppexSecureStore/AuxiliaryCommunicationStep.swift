import AppexCore
public import AppexStore
public import Foundation

/// Answers the auxiliary data requests pending in an app group, each with the secure store
/// opened by the request's share (SAP's `AuxiliaryCommunicationStep`): at every start and in
/// every background run. Requests of a kind with no handler fail, saying so.
///
/// The step only opens the store for each request: the queue and the serving by kind are
/// AppexStore's (``/AppexStore/AuxiliaryDataRequestManager/serveDataRequests(handlers:lease:isolation:)``).
public struct AuxiliaryCommunicationStep: OnboardingStep {
    /// Makes the answer to one request, from the store opened for it alone.
    public typealias Handler =
        @Sendable (AuxiliaryDataRequestClaim, SecureStore.Access) async throws(AppexError) -> Data

    /// The app group whose requests are answered.
    public var group: String
    /// A handler for each kind of request.
    public var handlers: [String: Handler]

    /// The step for `group`'s requests.
    public init(group: String, handlers: [String: Handler]) {
        self.group = group
        self.handlers = handlers
    }

    /// Answers the pending requests (a host starting for the first time may find some).
    public func onboard(context: inout OnboardingContext) async throws(AppexError) { try await serve(&context) }
    /// Answers the pending requests.
    public func restore(context: inout OnboardingContext) async throws(AppexError) { try await serve(&context) }
    /// Answers the pending requests, without the passcode: each opens the store with its share.
    public func background(context: inout OnboardingContext) async throws(AppexError) { try await serve(&context) }

    private func serve(_ context: inout OnboardingContext) async throws(AppexError) {
        guard let store = context.store else {
            throw AppexError(
                .configuration,
                "AuxiliaryCommunicationStep needs the secure store: put a StoreManagerStep before it in the flow",
                context: AppexError.Context(bundleIdentifier: context.host.bundleIdentifier, group: group)
            )
        }
        let opened = handlers.mapValues { Self.opening(store, for: $0) }
        context.answeredRequests += try await store.dataRequests(inGroup: group).serveDataRequests(handlers: opened)
    }

    /// `handler`, given the store opened with each request's share for that answer alone (the
    /// store's state in the process does not change).
    private static func opening(
        _ store: SecureStore,
        for handler: @escaping Handler
    ) -> (AuxiliaryDataRequestClaim) async throws(AppexError) -> Data {
        func answer(_ claim: AuxiliaryDataRequestClaim) async throws(AppexError) -> Data {
            try await store.withAccess(eSPAKAuxiliary: claim.eSPAKAux) { access throws(AppexError) in
                try await handler(claim, access)
            }
        }
        return answer
    }
}
