import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The contacts API of the test server (`/api/contacts`, scope `contacts`) as ContactsExplorer
/// uses it, and its test users: each test that changes contacts makes a user of its own.
enum ContactsServer {
    struct User: Decodable {
        var username: String
        var password: String
    }

    struct Contact: Decodable, Equatable {
        var id: String
        var name: String
        var email: String
        var note: String
        var modified: String
    }

    struct Page: Decodable {
        var contacts: [Contact]
        var nextCursor: String?
    }

    /// A new user with `contacts` generated contacts (the first three hostile when asked).
    static func newUser(contacts: Int, hostile: Bool = false) async throws -> User {
        var request = URLRequest(url: OAuthServer.issuer.appendingPathComponent("test/users"))
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: ["contacts": contacts, "hostile": hostile])
        let (data, response) = try await URLSession.shared.data(for: request)
        try #require((response as? HTTPURLResponse)?.statusCode == 201, "\(String(decoding: data, as: UTF8.self))")
        return try JSONDecoder().decode(User.self, from: data)
    }

    /// An access token of `user` for `scope` (password grant, client `contacts-explorer`).
    static func token(_ user: User, scope: String = "read contacts") async throws -> String {
        var request = URLRequest(url: OAuthServer.issuer.appendingPathComponent("o/token/"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let form = [
            ("grant_type", "password"), ("username", user.username), ("password", user.password),
            ("client_id", "contacts-explorer"), ("scope", scope),
        ]
        request.httpBody = Data(
            form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
                .joined(separator: "&").utf8
        )
        let (data, _) = try await URLSession.shared.data(for: request)
        let fields = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(fields["access_token"] as? String, "\(fields)")
    }

    /// `method` on `path` (with `query`) with `token`: the status and the body.
    static func call(
        _ path: String,
        method: String = "GET",
        query: [URLQueryItem] = [],
        token: String?,
        body: [String: String]? = nil
    ) async throws -> (status: Int, body: Data, response: HTTPURLResponse) {
        var components = try #require(
            URLComponents(url: OAuthServer.issuer.appendingPathComponent(path), resolvingAgainstBaseURL: false)
        )
        if !query.isEmpty { components.queryItems = query }
        var request = URLRequest(url: try #require(components.url))
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body { request.httpBody = try JSONSerialization.data(withJSONObject: body) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, data, http)
    }

    /// Every contact modified at or after `since`, page by page.
    static func all(
        token: String,
        since: String? = nil,
        limit: Int = 100
    ) async throws -> (contacts: [Contact], pages: Int) {
        var contacts: [Contact] = []
        var cursor: String?
        var pages = 0
        repeat {
            var query = [URLQueryItem(name: "limit", value: String(limit))]
            if let since { query.append(URLQueryItem(name: "modifiedSince", value: since)) }
            if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
            let answer = try await call("api/contacts", query: query, token: token)
            try #require(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            let page = try JSONDecoder().decode(Page.self, from: answer.body)
            contacts += page.contacts
            cursor = page.nextCursor
            pages += 1
        } while cursor != nil
        return (contacts, pages)
    }
}
