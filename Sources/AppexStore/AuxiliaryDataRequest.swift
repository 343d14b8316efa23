public import Foundation

/// A request an extension puts for its host to answer (SAP's `AuxiliaryDataRequest`): what it
/// asks (`info`, of a type the two agree on), the auxiliary share that lets the host open its
/// secure store for it (`eSPAKAux`), a `kind` naming the question, and — once answered — the
/// host's response.
///
/// ```swift
/// struct RecentContacts: Codable, Hashable { var ids: [String] }
/// let request = AuxiliaryDataRequest(
///     info: RecentContacts(ids: ["1", "2"]),
///     eSPAKAux: try security.getESPAKAuxiliary(),
///     kind: "contacts"
/// )
/// let asked = try requests.putDataRequest(request)
/// let answered = try await requests.completion(of: asked, within: .seconds(5))
/// ```
public struct AuxiliaryDataRequest<T: Codable & Hashable>: Hashable {
    /// The request's identifier (a UUID; identical pending requests share one).
    public let id: String
    /// What is asked.
    public let info: T
    /// The asking extension's auxiliary share (``AuxiliarySecurityManager/getESPAKAuxiliary()``).
    public let eSPAKAux: Data
    /// What kind of question this is: the host serves each kind its own way.
    public let kind: String
    /// When it was first put.
    public internal(set) var creationTime: Date
    /// When it was last put again (coalesced) or answered.
    public internal(set) var lastModifiedTime: Date
    /// When the host answered it; `nil` while pending.
    public internal(set) var completionTime: Date?
    /// The host's answer (opened with the auxiliary data encryption key); `nil` while pending
    /// or when the host failed it.
    public internal(set) var response: Data?
    /// Why the host could not answer (`stale-paired-key: ...`), when it failed it.
    public internal(set) var failure: String?
    /// While pending: until when the host that took it holds it (its lease, on the queue's
    /// clock); `nil` when no host has taken it.
    public internal(set) var servedUntil: Date?

    /// A new request, not yet put.
    public init(info: T, eSPAKAux: Data, kind: String) {
        self.init(id: UUID().uuidString, info: info, eSPAKAux: eSPAKAux, kind: kind, created: Date())
    }

    init(id: String, info: T, eSPAKAux: Data, kind: String, created: Date) {
        self.id = id
        self.info = info
        self.eSPAKAux = eSPAKAux
        self.kind = kind
        self.creationTime = created
        self.lastModifiedTime = created
    }

    /// Whether the host answered (or failed) it.
    public var isCompleted: Bool { completionTime != nil }

    /// The response decoded as JSON.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `notFound` while there is none (pending, or failed: the
    ///   message says why); `coding` when it is not a `Response`.
    public func response<Response: Decodable>(as type: Response.Type) throws(AppexError) -> Response {
        guard let response else {
            throw AppexError(
                .notFound,
                failure.map { "data request \(id) (\(kind)) failed: \($0)" }
                    ?? "data request \(id) (\(kind)) has no response yet"
            )
        }
        do { return try JSONDecoder().decode(Response.self, from: response) } catch {
            throw AppexError(
                .coding,
                "the response to data request \(id) (\(kind)) is not a \(Response.self)",
                underlyingError: error
            )
        }
    }
}

extension AuxiliaryDataRequest: Sendable where T: Sendable {}

/// A pending request a host took to answer, under a lease: while the lease holds, no other host
/// process takes it; when it runs out (its holder was killed), another does.
public struct AuxiliaryDataRequestClaim: Sendable, Hashable {
    /// The request's identifier.
    public let id: String
    /// Its kind.
    public let kind: String
    /// The asking extension's auxiliary share: open the secure store with it
    /// (`SecureStore.open(eSPAKAuxiliary:)`).
    public let eSPAKAux: Data
    /// The info, as JSON.
    public let info: Data
    /// When the request was first put.
    public let creationTime: Date
    /// The lease's token: a completion is taken only from the lease's holder.
    let lease: String

    /// The info decoded.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `coding` when it is not a `T`.
    public func info<T: Decodable>(as type: T.Type) throws(AppexError) -> T {
        do { return try JSONDecoder().decode(T.self, from: info) } catch {
            throw AppexError(
                .coding,
                "the info of data request \(id) (\(kind)) is not a \(T.self)",
                underlyingError: error
            )
        }
    }
}
