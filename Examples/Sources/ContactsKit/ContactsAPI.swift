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
        try await pageBody(modifiedSince: modifiedSince, cursor: cursor, limit: limit).page()
    }

    /// A listing page as it came, before it is decoded: a sync reads its next cursor first
    /// (``PageBody/nextCursor``), asks for the next page, and decodes this one meanwhile.
    public func pageBody(modifiedSince: String?, cursor: String?, limit: Int = 200) async throws -> PageBody {
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
        return PageBody(data: try await body(URLRequest(url: url)), url: url.absoluteString)
    }

    /// A listing page's JSON, as the server answered it.
    public struct PageBody: Sendable {
        /// The JSON.
        public let data: Data
        /// The URL it came from, for errors.
        let url: String

        /// The page, decoded.
        public func page() throws -> Page {
            do { return try JSONDecoder().decode(Page.self, from: data) } catch {
                throw ContactsError(.server, "\(url) answered a body that is not a page of contacts: \(error)")
            }
        }

        /// The page's `nextCursor`, read without decoding the contacts: the top-level member
        /// `"nextCursor"` the server writes last, as `null` or a plain string. `nil` when it is
        /// not there in that shape (the caller then decodes the page to know).
        public var nextCursor: String?? {
            // Inside a JSON string a quote is escaped, so an unescaped `"nextCursor"` followed by a
            // colon is a member name; the server's is the last one, the top-level member.
            let key = Array(#""nextCursor""#.utf8)
            let bytes = [UInt8](data)
            guard bytes.count > key.count else { return nil }
            var start = bytes.count - key.count
            while start >= 0, Array(bytes[start..<(start + key.count)]) != key { start -= 1 }
            guard start > 0, bytes[start - 1] != UInt8(ascii: "\\") else { return nil }
            var index = start + key.count
            func skipSpaces() { while index < bytes.count, bytes[index] == 0x20 { index += 1 } }
            skipSpaces()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            skipSpaces()
            if bytes[index...].starts(with: Array("null".utf8)) { return .some(nil) }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            let valueStart = index + 1
            guard let end = bytes[valueStart...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
            let value = bytes[valueStart..<end]
            // A cursor is base64url: anything else (an escape) is left to the decoder.
            guard
                value.allSatisfy({
                    $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                        || (0x61...0x7A).contains($0)
                })
            else {
                return nil
            }
            return .some(String(decoding: value, as: UTF8.self))
        }
    }

    /// The contacts `ids` names, in that order, in one request; those the server no longer has
    /// (deleted since) are left out.
    ///
    /// - Parameter idempotencyKey: sent as `Idempotency-Key` (a data request's id: the server
    ///   counts a request served twice — a host killed before it could record the answer — once).
    public func contacts(ids: [String], idempotencyKey: String? = nil) async throws -> [Contact] {
        guard !ids.isEmpty else { return [] }
        var components = URLComponents(
            url: server.appendingPathComponent("api/contacts"),
            resolvingAgainstBaseURL: false
        )
        components?.queryItems = [URLQueryItem(name: "ids", value: ids.joined(separator: ","))]
        guard let url = components?.url else {
            throw ContactsError(.server, "cannot make a contacts URL from \(server)")
        }
        var request = URLRequest(url: url)
        if let idempotencyKey { request.setValue(idempotencyKey, forHTTPHeaderField: "Idempotency-Key") }
        return try await decode(Page.self, request).contacts
    }

    /// One contact.
    public func contact(id: String) async throws -> Contact {
        try await decode(Contact.self, URLRequest(url: server.appendingPathComponent("api/contacts/\(id)")))
    }

    private func decode<Value: Decodable>(_ type: Value.Type, _ request: URLRequest) async throws -> Value {
        let data = try await body(request)
        do { return try JSONDecoder().decode(type, from: data) } catch {
            throw ContactsError(
                .server,
                "\(request.url?.absoluteString ?? "?") answered a body that is not \(type): \(error)"
            )
        }
    }

    /// The body of a 200 answer to `request`, sent once more after a transient failure.
    private func body(_ request: URLRequest) async throws -> Data {
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
        return data
    }
}
