import AppexTestTiers
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The repository's test server (`Scripts/oauth-server.sh`, started if it is not running) and a
/// user of the test's own with generated contacts, signed in with scope `contacts`.
struct TestServer {
    let url: URL
    let token: String

    /// A session that opens a connection per request: the test server (waitress) was seen
    /// closing a reused keep-alive connection mid-answer under load.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["Connection": "close"]
        return URLSession(configuration: configuration)
    }()

    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The server's URL, starting it when needed (the script is idempotent).
    static func start() throws -> URL {
        let process = Process()
        process.executableURL = repository.appendingPathComponent("Scripts/oauth-server.sh")
        process.arguments = ["start"]
        let output = Pipe()
        process.standardOutput = output
        try process.runWithSignalsUnblocked()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let port = try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), "oauth-server.sh: \(text)")
        return try #require(URL(string: "http://127.0.0.1:\(port)"))
    }

    /// A new account of the server's with `contacts` contacts (the first three hostile when asked).
    static func newAccount(contacts: Int, hostile: Bool = false) async throws -> (username: String, password: String) {
        let url = try start()
        var request = URLRequest(url: url.appendingPathComponent("test/users"))
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: ["contacts": contacts, "hostile": hostile])
        let (created, response) = try await session.data(for: request)
        try #require(
            (response as? HTTPURLResponse)?.statusCode == 201,
            "POST /test/users: \(String(decoding: created, as: UTF8.self))"
        )
        let user = try #require(try JSONSerialization.jsonObject(with: created) as? [String: Any])
        return (try #require(user["username"] as? String), try #require(user["password"] as? String))
    }

    /// A new user with `contacts` contacts (the first three hostile when asked), signed in.
    static func user(contacts: Int, hostile: Bool = false) async throws -> TestServer {
        try await signIn(try await newAccount(contacts: contacts, hostile: hostile))
    }

    /// `account` signed in with scope `contacts`.
    static func signIn(_ account: (username: String, password: String)) async throws -> TestServer {
        let url = try start()
        let (username, password) = account
        var login = URLRequest(url: url.appendingPathComponent("o/token/"))
        login.httpMethod = "POST"
        login.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        login.httpBody = Data(
            "grant_type=password&client_id=contacts-explorer&scope=read%20contacts&username=\(username)&password=\(password)"
                .utf8
        )
        let (tokens, _) = try await session.data(for: login)
        let fields = try #require(try JSONSerialization.jsonObject(with: tokens) as? [String: Any])
        return TestServer(url: url, token: try #require(fields["access_token"] as? String, "\(fields)"))
    }

    /// Revokes every token of `username` at the server (`POST /test/revoke`), as its owner would.
    static func revoke(_ username: String) async throws {
        var request = URLRequest(url: try start().appendingPathComponent("test/revoke"))
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: ["username": username])
        let (_, response) = try await session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }

    /// The server's counters (`GET /test/stats`).
    static func stats() async throws -> [String: Int] {
        let (data, _) = try await session.data(from: try start().appendingPathComponent("test/stats"))
        return try JSONDecoder().decode([String: Int].self, from: data)
    }

    /// Sends `request` with the user's token.
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        var authorized = request
        authorized.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await Self.session.data(for: authorized)
        return (data, try #require(response as? HTTPURLResponse))
    }

    /// Changes contact `id`'s `field` at the server.
    func patch(_ id: String, _ field: String, _ value: String) async throws {
        var request = URLRequest(url: url.appendingPathComponent("api/contacts/\(id)"))
        request.httpMethod = "PATCH"
        request.httpBody = try JSONSerialization.data(withJSONObject: [field: value])
        let (_, response) = try await send(request)
        #expect(response.statusCode == 200)
    }
}
