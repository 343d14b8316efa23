import AppexStore
public import Foundation

/// A data request from an extension to its app (SAPFoundation's `DefaultAuxiliaryDataRequest`):
/// its info, the auxiliary share of the app's paired key it carries, its kind, and once answered
/// the app's response. AppexStore's `AuxiliaryDataRequest` underneath.
public struct DefaultAuxiliaryDataRequest<Key: Codable & Hashable & Sendable>: Sendable, Hashable {
    var request: AuxiliaryDataRequest<Key>

    /// A request of `kind` for `info`, carrying `eSPAKAux`.
    public init(info: Key, eSPAKAux: Data, kind: String) {
        request = AuxiliaryDataRequest(info: info, eSPAKAux: eSPAKAux, kind: kind)
    }

    init(_ request: AuxiliaryDataRequest<Key>) { self.request = request }

    /// The request's id.
    public var id: String { request.id }
    /// What is asked.
    public var info: Key { request.info }
    /// The kind of request.
    public var kind: String { request.kind }
    /// The auxiliary share the request carries (SAP's `eSPAKAuxiliary`).
    public var eSPAKAuxiliary: Data { request.eSPAKAux }
    /// The app's answer, once given.
    public var response: Data? { request.response }
    /// Why the app could not answer, if it could not.
    public var failure: String? { request.failure }
}
