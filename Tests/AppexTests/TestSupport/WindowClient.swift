import AppexTestTiers
import Foundation
import Synchronization

@testable import AppexWindow

/// A window served by a test, and a raw HTTP client for it: Python's http.client, so that a
/// request can carry any Host (or none), any Origin and any cookie, and a redirect is seen as
/// it is.
final class TestWindow: Sendable {
    let port: Int
    /// The window's host name, from its login link (`<random>.localhost`).
    let hostName: String
    let loginPath: String
    /// The window's address, as its login link names it.
    var origin: String { "http://\(hostName):\(port)" }
    /// The login link, as the window printed it.
    var loginURL: String { origin + loginPath }
    private let task: Task<Void, any Error>?
    /// The window this test serves (`nil` for one another process serves).
    let server: WindowServer?

    init(_ pages: [any WindowPage], configuration: WindowServer.Configuration = .init()) async throws {
        let server = try WindowServer(configuration: configuration, pages: pages)
        self.server = server
        let (urls, ready) = AsyncStream.makeStream(of: URL.self)
        task = Task { try await server.run { ready.yield($0) } }
        guard let url = await withTimeout(seconds: 20, { await urls.first { _ in true } }) ?? nil,
            let port = url.port, let hostName = url.host
        else { throw ClientFailure(description: "the window did not report its login URL within 20 s") }
        self.port = port
        self.hostName = hostName
        self.loginPath = url.path + "?" + (url.query ?? "")
    }

    /// A client of a window another process serves, from the login link it printed.
    init(attachingTo link: String) throws {
        guard let url = URL(string: link), let port = url.port, let hostName = url.host else {
            throw ClientFailure(description: "not a window's login link: \(link)")
        }
        self.port = port
        self.hostName = hostName
        self.loginPath = url.path + "?" + (url.query ?? "")
        task = nil
        server = nil
    }

    deinit { task?.cancel() }

    /// Stops the window this test serves (its server shuts down; open pages lose their stream).
    func stop() { task?.cancel() }

    struct Reply: Decodable {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    /// One request. `host` nil: no Host header at all; default: this window's.
    func request(
        _ method: String = "GET",
        _ path: String,
        host: String?? = .some(nil),
        headers: [String: String] = [:],
        body: String? = nil,
        untilEvent: Bool = false
    ) async throws -> Reply {
        struct Request: Encodable {
            var method: String
            var path: String
            var port: Int
            var host: String?
            var headers: [String: String]
            var body: String?
            var events: Bool
        }
        let chosenHost: String? =
            switch host {
            case .none: nil
            case .some(.none): "\(hostName):\(port)"
            case .some(.some(let value)): value
            }
        let json = try JSONEncoder().encode(
            Request(
                method: method,
                path: path,
                port: port,
                host: chosenHost,
                headers: headers,
                body: body,
                events: untilEvent
            )
        )
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.client, String(decoding: json, as: UTF8.self)]
        let (output, errors) = (Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = errors
        try process.runWithSignalsUnblocked()
        // Read on Dispatch's threads: a blocking read on Swift's cooperative pool (two threads
        // here) would starve the server's own handlers.
        async let reading = Self.readToEnd(output)
        async let readingErrors = Self.readToEnd(errors)
        let (data, problem) = await (reading, readingErrors)
        do { return try JSONDecoder().decode(Reply.self, from: data) } catch {
            throw ClientFailure(description: "\(method) \(path): \(String(decoding: problem, as: UTF8.self))")
        }
    }

    private static func readToEnd(_ pipe: Pipe) async -> Data {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: pipe.fileHandleForReading.readDataToEndOfFile())
            }
        }
    }

    struct ClientFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// The session cookie, from a first login.
    func logIn() async throws -> String {
        let reply = try await request("GET", loginPath)
        guard let cookie = reply.headers["set-cookie"]?.split(separator: ";").first else {
            throw ClientFailure(description: "the login link set no cookie: \(reply.status) \(reply.headers)")
        }
        return String(cookie)
    }

    /// The session cookie of a login with a new link (as SIGUSR1 prints one), from a browser
    /// that sends `cookie` (`nil`: none yet).
    func logInAgain(sending cookie: String? = nil) async throws -> String {
        guard let url = server?.newLoginURL() else {
            throw ClientFailure(description: "no new login link: the window is not this test's, or not bound")
        }
        let path = url.path + "?" + (url.query ?? "")
        let reply = try await request("GET", path, headers: cookie.map { ["Cookie": $0] } ?? [:])
        guard let fresh = reply.headers["set-cookie"]?.split(separator: ";").first else {
            throw ClientFailure(description: "the new login link set no cookie: \(reply.status) \(reply.headers)")
        }
        return String(fresh)
    }

    /// The CSRF token of the page at `path`, as `cookie`'s session is served it.
    func csrf(cookie: String, path: String = "/") async throws -> String {
        let document = try await request("GET", path, headers: ["Cookie": cookie]).body
        guard let start = document.range(of: "name=\"appex-csrf\" content=\"")?.upperBound else {
            throw ClientFailure(description: "\(path) carries no CSRF token: \(document.prefix(300))")
        }
        return String(document[start...].prefix { $0 != "\"" })
    }

    /// What the page at `path` shows now: its `main`'s `data-shown`, which its event stream sends back.
    func shown(cookie: String, path: String = "/") async throws -> String {
        let document = try await request("GET", path, headers: ["Cookie": cookie]).body
        guard let start = document.range(of: "<main id=\"page\" data-shown=\"")?.upperBound,
            let end = document[start...].firstIndex(of: "\"")
        else {
            throw ClientFailure(description: "\(path) has no main element with data-shown: \(document.prefix(300))")
        }
        return String(document[start..<end])
    }

    /// One replaced fragment of an event stream.
    struct Update: Decodable {
        var id: String
        var html: String
    }

    /// The first update of an event stream's `body`, if it has one.
    static func firstUpdate(in body: String) throws -> Update? {
        guard let data = body.split(separator: "\n").first(where: { $0.hasPrefix("data: ") })?.dropFirst(6) else {
            return nil
        }
        return try JSONDecoder().decode(Update.self, from: Data(data.utf8))
    }

    static let client = """
        import http.client, json, sys
        req = json.loads(sys.argv[1])
        c = http.client.HTTPConnection("127.0.0.1", req["port"], timeout=20)
        c.putrequest(req["method"], req["path"], skip_host=True, skip_accept_encoding=True)
        if req.get("host") is not None:
            c.putheader("Host", req["host"])
        for k, v in req["headers"].items():
            c.putheader(k, v)
        body = req.get("body")
        if body is not None:
            data = body.encode()
            c.putheader("Content-Type", "application/x-www-form-urlencoded")
            c.putheader("Content-Length", str(len(data)))
            c.endheaders(data)
        else:
            c.endheaders()
        r = c.getresponse()
        headers = {k.lower(): v for k, v in r.getheaders()}
        if req.get("events"):
            lines = []
            while True:
                line = r.fp.readline().decode()
                if not line:
                    break
                lines.append(line)
                if line.startswith("data:"):
                    break
            text = "".join(lines)
        elif headers.get("content-type") == "text/event-stream":
            text = ""  # a stream that was not asked for: its headers are the answer
        else:
            text = r.read().decode()
        print(json.dumps({"status": r.status, "headers": headers, "body": text}))
        """
}
