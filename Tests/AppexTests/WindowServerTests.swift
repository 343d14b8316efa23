import AppexTestTiers
import AppexVocabulary
import Foundation
import Synchronization
import Testing

@testable import AppexWindow

/// A page for the tests: a counter with a name that is data, and its updates.
final class CounterPage: WindowPage {
    let path = "/"
    let title = "Counter"
    private let state = Mutex<(count: Int, name: String, watchers: [AsyncStream<WindowUpdate>.Continuation])>(
        (0, "<script>alert('x')</script>", [])
    )

    var count: Int { state.withLock { $0.count } }

    func render() async throws(AppexError) -> Markup { markup(state.withLock { ($0.count, $0.name) }) }

    private func markup(_ value: (Int, String)) -> Markup {
        .element(
            "section",
            ["id": "counter", "class": "card"],
            [.element("h2", [:], [.text(value.1)]), .element("p", ["id": "count"], [.text("\(value.0)")])]
        )
    }

    func updates() -> AsyncStream<WindowUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: WindowUpdate.self)
        state.withLock { $0.watchers.append(continuation) }
        return stream
    }

    func perform(_ action: WindowAction) async throws(AppexError) {
        guard action.name == "increment" else {
            throw AppexError(.invalidValue, "no action \(action.name)")
        }
        let (value, watchers) = state.withLock { state in
            state.count += Int(action.fields["by"] ?? "1") ?? 1
            return ((state.count, state.name), state.watchers)
        }
        for watcher in watchers { watcher.yield(WindowUpdate(id: "counter", markup: markup(value))) }
    }
}

/// The window's safety rules, each attacked over real HTTP on 127.0.0.1: the one-time login,
/// the cookie, the Host check, the CSRF token and Origin of a change, the CSP; and its event
/// stream.
@Suite(.timed) struct WindowServerTests {
    @Test(
        "the login link works once: a cookie (HttpOnly, SameSite=Strict, named for the port) and a redirect that drops the token; the second time, 403 saying how to get a new link, unless the browser it logged in opens it again: the page"
    )
    func oneTimeLogin() async throws {
        let window = try await TestWindow([CounterPage()])
        let first = try await window.request("GET", window.loginPath)
        #expect(first.status == 303 && first.headers["location"] == "/")
        let cookie = try #require(first.headers["set-cookie"])
        #expect(cookie.hasPrefix("appex-window-\(window.port)="))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let again = try await window.request("GET", window.loginPath)
        #expect(again.status == 403 && again.headers["set-cookie"] == nil)
        #expect(again.body.contains("SIGUSR1") && again.body.contains("start it again"), "\(again.body)")
        let guessed = try await window.request("GET", "/login?token=0000")
        #expect(guessed.status == 403)
        // The browser that logged in, opening the used link again (a reload, the address bar).
        let session = String(cookie.prefix { $0 != ";" })
        let reopened = try await window.request("GET", window.loginPath, headers: ["Cookie": session])
        #expect(reopened.status == 303 && reopened.headers["location"] == "/" && reopened.headers["set-cookie"] == nil)
        let stranger = try await window.request(
            "GET",
            window.loginPath,
            headers: ["Cookie": "appex-window-\(window.port)=forged"]
        )
        #expect(stranger.status == 403)
        let unauthorized = try await window.request("GET", "/")
        #expect(unauthorized.status == 401 && unauthorized.body.contains("SIGUSR1"), "\(unauthorized.body)")
    }

    @Test(
        "without the cookie every page, script and event stream is refused (401); with it the page carries the CSP, and data shows as text"
    )
    func cookieAndPolicy() async throws {
        let window = try await TestWindow([CounterPage()])
        for path in ["/", "/events?page=/", "/window.js"] {
            #expect(try await window.request("GET", path).status == 401, "\(path)")
            #expect(
                try await window.request("GET", path, headers: ["Cookie": "appex-window-\(window.port)=forged"]).status
                    == 401
            )
        }
        let cookie = try await window.logIn()
        let page = try await window.request("GET", "/", headers: ["Cookie": cookie])
        #expect(page.status == 200)
        let policy = try #require(page.headers["content-security-policy"])
        #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'"))
        #expect(policy.contains("frame-ancestors 'none'"))
        #expect(page.headers["x-content-type-options"] == "nosniff")
        #expect(page.body.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
        #expect(!page.body.contains("<script>alert"))
        #expect(!page.body.contains(window.loginPath.split(separator: "=").last.map(String.init) ?? "-"))
        // A page that is not there: 404, with the same policy and headers.
        let missing = try await window.request("GET", "/nowhere", headers: ["Cookie": cookie])
        #expect(missing.status == 404)
        #expect(missing.headers["content-security-policy"] == policy)
        #expect(missing.headers["x-frame-options"] == "DENY")
    }

    @Test(
        "a Host that is not this window's own name and port (the loopback's other names, another .localhost name, another port, none) gets 421, with its cookie, the event stream too"
    )
    func hostCheck() async throws {
        let window = try await TestWindow([CounterPage()])
        let cookie = try await window.logIn()
        #expect(window.hostName.hasSuffix(".localhost") && window.hostName.count == 32 + ".localhost".count)
        for host in ["\(window.hostName):\(window.port)", "\(window.hostName.uppercased()):\(window.port)"] {
            #expect(try await window.request("GET", "/", host: .some(host), headers: ["Cookie": cookie]).status == 200)
        }
        for host: String? in [
            "evil.example:\(window.port)", "127.0.0.1:\(window.port)", "localhost:\(window.port)",
            "[::1]:\(window.port)",
            "other.localhost:\(window.port)", "\(window.hostName):\(window.port + 1)", "127.0.0.1", "", nil,
        ] {
            for path in ["/", "/events?page=/", window.loginPath] {
                let chosen: String?? = host.map { .some($0) } ?? .none  // nil: no Host header at all
                let reply = try await window.request("GET", path, host: chosen, headers: ["Cookie": cookie])
                #expect(reply.status == 421, "\(host ?? "no Host") \(path)")
                // The refusal does not give the name away: a page that knew it could send the
                // browser, and its cookie, to another server at that name.
                #expect(
                    !reply.body.contains(window.hostName)
                        && !reply.headers.values.contains { $0.contains(window.hostName) }
                )
            }
        }
    }

    @Test(
        "while a window runs, no other process can listen on its port at either loopback address (a browser tries [::1] first for a .localhost name)"
    )
    func bothLoopbackAddressesHeld() async throws {
        let window = try await TestWindow([CounterPage()])
        let probe = """
            import socket, sys
            port = int(sys.argv[1])
            for family, address in ((socket.AF_INET6, "::1"), (socket.AF_INET, "127.0.0.1")):
                s = socket.socket(family, socket.SOCK_STREAM)
                try:
                    s.bind((address, port))
                    print(address, "free")
                except OSError as error:
                    print(address, "in use" if error.errno == 98 else "unavailable: %s" % error)
            """
        let output = try await run("/usr/bin/python3", ["-c", probe, "\(window.port)"], environment: [:])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardOutput.contains("127.0.0.1 in use"), "\(output.standardOutput)")
        // Where this machine has IPv6 on the loopback interface, the window holds [::1] too.
        #expect(
            output.standardOutput.contains("::1 in use") || output.standardOutput.contains("::1 unavailable"),
            "\(output.standardOutput)"
        )
    }

    @Test(
        "a change without the CSRF token, or from another Origin, or without one, gets 403 and changes nothing; the page's own post works"
    )
    func csrfAndOrigin() async throws {
        let page = CounterPage()
        let window = try await TestWindow([page])
        let cookie = try await window.logIn()
        let document = try await window.request("GET", "/", headers: ["Cookie": cookie]).body
        let csrf = try #require(
            document.firstRange(of: "name=\"appex-csrf\" content=\"").map { range in
                String(document[range.upperBound...].prefix { $0 != "\"" })
            }
        )
        let own = window.origin
        let form = "page=%2F&action=increment&by=2"
        let attempts: [[String: String]] = [
            ["Cookie": cookie, "Origin": own],
            ["Cookie": cookie, "Origin": own, "X-Appex-CSRF": "forged"],
            ["Cookie": cookie, "Origin": "http://evil.example", "X-Appex-CSRF": csrf],
            ["Cookie": cookie, "Origin": "null", "X-Appex-CSRF": csrf],
            ["Cookie": cookie, "X-Appex-CSRF": csrf],
        ]
        for headers in attempts {
            #expect(try await window.request("POST", "/action", headers: headers, body: form).status == 403)
        }
        #expect(page.count == 0)
        let done = try await window.request(
            "POST",
            "/action",
            headers: ["Cookie": cookie, "Origin": own, "X-Appex-CSRF": csrf],
            body: form
        )
        #expect(done.status == 204 && page.count == 2)
        let refused = try await window.request(
            "POST",
            "/action",
            headers: ["Cookie": cookie, "Origin": own, "X-Appex-CSRF": csrf],
            body: "page=%2F&action=explode"
        )
        #expect(refused.status == 409 && refused.body.contains("no action explode") && page.count == 2)
    }

    @Test("the event stream carries a change to every open page as a replaced fragment, its data escaped")
    func eventStream() async throws {
        let page = CounterPage()
        let window = try await TestWindow([page])
        let cookie = try await window.logIn()
        let shown = try await window.shown(cookie: cookie)
        let listening = Task {
            try await window.request(
                "GET",
                "/events?page=%2F&shown=\(shown)",
                headers: ["Cookie": cookie],
                untilEvent: true
            )
        }
        // The stream is open once the page has a watcher.
        #expect(await eventually(within: 20) { page.watcherCount > 0 })
        try await page.perform(WindowAction(name: "increment", fields: ["by": "5"]))
        let reply = try await listening.value
        #expect(reply.status == 200 && reply.headers["content-type"] == "text/event-stream")
        let update = try #require(try TestWindow.firstUpdate(in: reply.body))
        #expect(update.id == "counter" && update.html.contains("<p id=\"count\">5</p>"))
        #expect(update.html.contains("&lt;script&gt;") && !update.html.contains("<script>"))
    }

    @Test(
        "a change made after the page was served and before its event stream opened reaches it: the stream first sends the whole page when it differs from what the page shows"
    )
    func changeBeforeTheStreamOpens() async throws {
        let page = CounterPage()
        let window = try await TestWindow([page])
        let cookie = try await window.logIn()
        let shown = try await window.shown(cookie: cookie)
        // Published while no stream listens (a login finishing while the page loads).
        try await page.perform(WindowAction(name: "increment", fields: ["by": "7"]))
        let reply = try await window.request(
            "GET",
            "/events?page=%2F&shown=\(shown)",
            headers: ["Cookie": cookie],
            untilEvent: true
        )
        let update = try #require(try TestWindow.firstUpdate(in: reply.body))
        #expect(update.id == "page" && update.html.hasPrefix("<main id=\"page\" data-shown=\""))
        #expect(update.html.contains("<p id=\"count\">7</p>"))
        // Its new digest is the document's now: a stream opened with it gets no page first.
        let current = try await window.shown(cookie: cookie)
        #expect(current != shown && update.html.contains("data-shown=\"\(current)\""))
    }

    @Test(
        "Markup escapes text and attribute values as they are added; control characters and bidirectional overrides become U+FFFD"
    )
    func markupEscapes() {
        let hostile = "\"><img src=x onerror=alert(1)>\u{202E}\u{1B}[2J&"
        let markup = Markup.element("p", ["title": hostile], [.text(hostile)])
        #expect(!markup.html.contains("<img") && !markup.html.contains("\"><"))
        #expect(markup.html.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;\u{FFFD}\u{FFFD}[2J&amp;"))
        #expect(markup.html.hasPrefix("<p title=\"&quot;&gt;&lt;img") && markup.html.hasSuffix("</p>"))
    }

    @Test("with no page at /, the login redirects to the window's first page")
    func loginRedirectsToAPage() async throws {
        struct At: WindowPage {
            let path: String
            let title = "x"
            func render() async throws(AppexError) -> Markup { .text(path) }
            func updates() -> AsyncStream<WindowUpdate> { AsyncStream { $0.finish() } }
            func perform(_ action: WindowAction) async throws(AppexError) {}
        }
        let window = try await TestWindow([At(path: "/widgets"), At(path: "/extensions")])
        let login = try await window.request("GET", window.loginPath)
        #expect(login.status == 303 && login.headers["location"] == "/extensions")
    }

    @Test("pages at the window's own paths, at one path twice, or at a relative path are refused by name")
    func reservedPaths() {
        struct At: WindowPage {
            let path: String
            let title = "x"
            func render() async throws(AppexError) -> Markup { .text("") }
            func updates() -> AsyncStream<WindowUpdate> { AsyncStream { $0.finish() } }
            func perform(_ action: WindowAction) async throws(AppexError) {}
        }
        for pages in [[At(path: "/events")], [At(path: "/a"), At(path: "/a")], [At(path: "a")]] {
            let error = #expect(throws: AppexError.self) { try WindowServer(pages: pages) }
            #expect(error?.code == .invalidValue && error?.context.key == pages.last?.path)
        }
    }
}

extension CounterPage {
    var watcherCount: Int { state.withLock { $0.watchers.count } }
}
