import AppexVocabulary
public import Foundation

// The host's side, by kind: one handler per kind of request, and the queue a host serves for
// its group under the key it published.
extension AuxiliaryDataRequestManager {
    /// The requests of app group `group`, sealed and opened with the auxiliary data encryption
    /// key that `security`'s host published: the queue both an extension and its host open.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `notOnboarded` when the host has published no
    ///   key (its secure store is not set up); what opening the queue throws (`storage`).
    public init(group: AppGroup, security: AuxiliarySecurityManager) throws(AppexError) {
        self.init(
            dataStore: try AuxiliaryDataStore(group: group, encryptionKey: security.getAuxiliaryDataEncryptionKey())
        )
    }

    /// Answers every pending request now, as ``serveDataRequests(kinds:lease:isolation:_:)``
    /// does, with the handler of each request's kind. A request of a kind with no handler fails,
    /// and its extension reads why (``AuxiliaryDataRequest/failure``): the kind, and the kinds
    /// this host answers.
    ///
    /// - Returns: how many requests were answered or failed.
    @discardableResult
    public func serveDataRequests(
        handlers: [String: (AuxiliaryDataRequestClaim) async throws(AppexError) -> Data],
        lease: Duration = .seconds(30),
        isolation: isolated (any Actor)? = #isolation
    ) async throws(AppexError) -> Int {
        try await serveDataRequests(lease: lease) { claim throws(AppexError) in
            guard let handler = handlers[claim.kind] else {
                throw AppexError(
                    .notFound,
                    "the host has no handler for data requests of kind \(claim.kind) (it has: \(handlers.keys.sorted().joined(separator: ", ")))",
                    context: AppexError.Context(
                        path: dataStore.path,
                        key: claim.kind,
                        group: dataStore.group.identifier
                    )
                )
            }
            return try await handler(claim)
        }
    }
}
