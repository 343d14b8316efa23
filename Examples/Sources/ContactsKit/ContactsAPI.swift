public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// The contacts API (`/api/contacts`, scope `contacts`) of a ContactsExplorer server.
///
/// Requests go through `send`, which authorizes them: in the app and its widget, the shared
/// session's `OAuthTokenManager.data(for:)` (a fresh token, one refresh across processes, a 401
/// retried once).
public struct ContactsAPI: Sendable {
    /// Sends an authorized request and answers the body and the response.
    public typealias Send = @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)

    /// One page of a listing.
    public struct Page: Decodable, Sendable {
        /// The contacts, oldest change first.
        public var contacts: [Contact]
        /// The next page's cursor; `nil` on the last page.
        public var nextCursor: String?
    }

    /// The server's base URL (`/api/contacts` is resolved against it).
    public let server: URL
    private let send: Send
    private let isTransient: @Sendable (any Error) -> Bool

    /// The API of `server`, its requests sent (and authorized) by `send`. A request that fails
    /// with an error `isTransient` recognises (a connection dropped mid-answer) is sent once
    /// more: every request of this API is a GET.
    public init(
        server: URL,
        isTransient: @escaping @Sendable (any Error) -> Bool = ContactsAPI.isTransportFailure,
        send: @escaping Send
    ) {
        self.server = server
        self.send = send
        self.isTransient = isTransient
    }

    /// Whether `error` is a transport failure worth one more try: the connection was lost, timed
    /// out or closed before the whole answer came.
    public static func isTransportFailure(_ error: any Error) -> Bool {
        guard let error = error as? URLError else { return false }
        return [.networkConnectionLost, .timedOut, .unknown, .cannotConnectToHost].contains(error.code)
    }

    /// The contacts modified at or after `modifiedSince` (all when `nil`), from `cursor`.
    public func page(modifiedSince: String?, cursor: String?, limit: Int = 200) async throws -> Page {
        var components = URLComponents(
            url: server.appendingPathComponent("api/contacts"),
            resolvingAgainstBaseURL: false
        )
        var query = [URLQueryItem(name: "limit", value: String(limit))]
        if let modifiedSince { query.append(URLQueryItem(name: "modifiedSince", value: modifiedSince)) }
        if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
        components?.queryItems = query
        guard let url = components?.url else {
            throw ContactsError(.server, "cannot make a listing URL from \(server)")
        }
        return try await decode(Page.self, URLRequest(url: url))
    }

    /// The contacts `ids` names, in that order, in one request; those the server no longer has
    /// (deleted since) are left out.
    public func contacts(ids: [String]) async throws -> [Contact] {
        guard !ids.isEmpty else { return [] }
        var components = URLComponents(
            url: server.appendingPathComponent("api/contacts"),
            resolvingAgainstBaseURL: false
        )
        components?.queryItems = [URLQueryItem(name: "ids", value: ids.joined(separator: ","))]
        guard let url = components?.url else {
            throw ContactsError(.server, "cannot make a contacts URL from \(server)")
        }
        return try await decode(Page.self, URLRequest(url: url)).contacts
    }

    /// One contact.
    public func contact(id: String) async throws -> Contact {
        try await decode(Contact.self, URLRequest(url: server.appendingPathComponent("api/contacts/\(id)")))
    }

    private func decode<Value: Decodable>(_ type: Value.Type, _ request: URLRequest) async throws -> Value {
        let (data, response): (Data, HTTPURLResponse)
        do { (data, response) = try await send(request) } catch  where isTransient(error) {
            (data, response) = try await send(request)
        }
        let url = request.url?.absoluteString ?? "?"
        if response.statusCode == 404 { throw ContactsError(.notFound, "\(url) answered 404") }
        guard response.statusCode == 200 else {
            let body = String(decoding: data.prefix(300), as: UTF8.self)
            throw ContactsError(.server, "\(url) answered HTTP \(response.statusCode): \(body)")
        }
        do { return try JSONDecoder().decode(type, from: data) } catch {
            throw ContactsError(.server, "\(url) answered a body that is not \(type): \(error)")
        }
    }
}
