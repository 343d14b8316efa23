import AppexCore
public import AppexStore
public import Foundation

/// Answers the auxiliary data requests pending in an app group, each with the secure store
/// opened by the request's share (SAP's `AuxiliaryCommunicationStep`): at every start and in
/// every background run. Requests of a kind with no handler fail, saying so.
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

    /// One request's answer: the kind's handler, given the store opened with the request's
    /// share for this answer alone (its state in the process does not change).
    public func answer(_ claim: AuxiliaryDataRequestClaim, store: SecureStore) async throws(AppexError) -> Data {
        guard let handler = handlers[claim.kind] else {
            throw AppexError(
                .notFound,
                "the host has no handler for data requests of kind \(claim.kind) (it has: \(handlers.keys.sorted().joined(separator: ", ")))",
                context: AppexError.Context(bundleIdentifier: store.hostBundleIdentifier, key: claim.kind)
            )
        }
        return try await store.withAccess(eSPAKAuxiliary: claim.eSPAKAux) { access throws(AppexError) in
            try await handler(claim, access)
        }
    }

    private func serve(_ context: inout OnboardingContext) async throws(AppexError) {
        guard let store = context.store else {
            throw AppexError(
                .configuration,
                "AuxiliaryCommunicationStep needs the secure store: put a StoreManagerStep before it in the flow",
                context: AppexError.Context(bundleIdentifier: context.host.bundleIdentifier, group: group)
            )
        }
        let requests = try store.dataRequests(inGroup: group)
        context.answeredRequests += try await requests.serveDataRequests { claim throws(AppexError) in
            try await answer(claim, store: store)
        }
    }
}
