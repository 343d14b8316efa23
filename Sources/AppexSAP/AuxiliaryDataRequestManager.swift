public import AppexStore
import Foundation

/// Puts and reads an extension's data requests to its app (SAPFoundation's
/// `AuxiliaryDataRequestManager`), with SAP's labels, over AppexStore's durable queue of the
/// same name. SAP keeps one request per store; Appex queues them, and ``getDataRequest()`` reads
/// the newest.
public final class AuxiliaryDataRequestManager: Sendable {
    /// AppexStore's manager, for what SAP's does not name (waiting for an answer, serving).
    public let manager: AppexStore.AuxiliaryDataRequestManager

    /// The requests of `dataStore` (the store is open already: nothing is read yet). Declared
    /// `throws` as SAP's initializer is, so that its callers' `try` stays as written.
    public init(dataStore: AuxiliaryDataStore) throws {
        manager = AppexStore.AuxiliaryDataRequestManager(dataStore: dataStore)
    }

    /// The newest request in the store, its info read as `Key`; `nil` when there is none.
    ///
    /// - Throws: `AppexError` `coding` when its info is not a `Key`; `storage`.
    public func getDataRequest<Key>() throws -> DefaultAuxiliaryDataRequest<Key>? {
        guard let newest = try manager.listDataRequests().max(by: { $0.creationTime < $1.creationTime }) else {
            return nil
        }
        return try manager.getDataRequest(newest.id, infoType: Key.self).map(DefaultAuxiliaryDataRequest.init)
    }

    /// `dataRequest` once the app answered (or failed) it, waiting at most `timeout`.
    ///
    /// - Throws: `AppexError` `timedOut` when no answer came in time; `storage`.
    public func completion<Key>(
        of dataRequest: DefaultAuxiliaryDataRequest<Key>,
        within timeout: Duration
    ) async throws -> DefaultAuxiliaryDataRequest<Key> {
        DefaultAuxiliaryDataRequest(try await manager.completion(of: dataRequest.request, within: timeout))
    }

    /// Puts `dataRequest` in the queue (an identical pending one is renewed instead).
    ///
    /// - Returns: the request as queued.
    /// - Throws: `AppexError` `coding`, `storage`.
    @discardableResult
    public func putDataRequest<Key>(
        dataRequest: DefaultAuxiliaryDataRequest<Key>
    ) throws -> DefaultAuxiliaryDataRequest<Key> {
        DefaultAuxiliaryDataRequest(try manager.putDataRequest(dataRequest.request))
    }
}
