import AppexTestTiers
import AppexVocabulary
import Foundation
import Testing

@testable import AppexWindow

/// A window's sessions, over real HTTP on 127.0.0.1: one per login link, each with its own
/// cookie and CSRF token; ended by the page's "End session", by a newer link with
/// `singleSession`, and by the idle limit; an ended session's open pages are told why.
@Suite(.timed) struct WindowSessionTests {
    /// `POST /action` incrementing the counter page, as `cookie`'s page would send it with `csrf`.
    static func increment(_ window: TestWindow, cookie: String, csrf: String) async throws -> Int {
        try await window.request(
            "POST",
            "/action",
            headers: ["Cookie": cookie, "Origin": window.origin, "X-Appex-CSRF": csrf],
            body: "page=%2F&action=increment"
        ).status
    }

    /// An event stream of `cookie`'s page, read until its first event; open once `page` watches.
    static func openStream(
        _ window: TestWindow,
        page: CounterPage,
        cookie: String
    ) async throws -> Task<TestWindow.Reply, any Error> {
        let watching = page.watcherCount
        let shown = try await window.shown(cookie: cookie)
        let stream = Task {
            try await window.request(
                "GET",
                "/events?page=%2F&shown=\(shown)",
                headers: ["Cookie": cookie],
                untilEvent: true
            )
        }
        #expect(await eventually(within: 20) { page.watcherCount > watching })
        return stream
    }

    @Test(
        "each login link used is a session of its own: its own cookie and CSRF token, one session's token refused with another's cookie; a browser that logs in again ends its old session"
    )
    func sessionPerLink() async throws {
        let page = CounterPage()
        let window = try await TestWindow([page])
        let first = try await window.logIn()
        let second = try await window.logInAgain()
        #expect(first != second)
        let (firstCSRF, secondCSRF) = (try await window.csrf(cookie: first), try await window.csrf(cookie: second))
        #expect(firstCSRF != secondCSRF)
        #expect(try await Self.increment(window, cookie: first, csrf: secondCSRF) == 403)
        #expect(try await Self.increment(window, cookie: second, csrf: firstCSRF) == 403)
        #expect(page.count == 0)
        #expect(try await Self.increment(window, cookie: first, csrf: firstCSRF) == 204)
        #expect(try await Self.increment(window, cookie: second, csrf: secondCSRF) == 204)
        #expect(page.count == 2)
        // The second browser logs in again: its old session ends, the new one works, the first is untouched.
        let third = try await window.logInAgain(sending: second)
        #expect(try await window.request("GET", "/", headers: ["Cookie": second]).status == 401)
        #expect(try await window.request("GET", "/", headers: ["Cookie": third]).status == 200)
        #expect(try await window.request("GET", "/", headers: ["Cookie": first]).status == 200)
    }

    @Test(
        "End session ends that session alone: its open event stream gets `ended` (logged-out) and ends, its cookie is cleared and refused; without its CSRF token, 403 and it lives on"
    )
    func endSession() async throws {
        let page = CounterPage()
        let window = try await TestWindow([page])
        let leaving = try await window.logIn()
        let staying = try await window.logInAgain()
        let csrf = try await window.csrf(cookie: leaving)
        let forged = try await window.request(
            "POST",
            "/logout",
            headers: [
                "Cookie": leaving, "Origin": window.origin, "X-Appex-CSRF": try await window.csrf(cookie: staying),
            ]
        )
        #expect(forged.status == 403)
        #expect(try await window.request("GET", "/", headers: ["Cookie": leaving]).status == 200)
        let stream = try await Self.openStream(window, page: page, cookie: leaving)
        let ended = try await window.request(
            "POST",
            "/logout",
            headers: ["Cookie": leaving, "Origin": window.origin, "X-Appex-CSRF": csrf]
        )
        #expect(ended.status == 204)
        let cleared = try #require(ended.headers["set-cookie"])
        #expect(cleared.hasPrefix("appex-window-\(window.port)=;") && cleared.contains("Max-Age=0"), "\(cleared)")
        let events = try await stream.value
        #expect(events.body.contains("event: ended\ndata: logged-out\n"), "\(events.body)")
        let refused = try await window.request("GET", "/", headers: ["Cookie": leaving])
        #expect(refused.status == 401 && refused.body.contains("SIGUSR1"), "\(refused.body)")
        #expect(try await Self.increment(window, cookie: leaving, csrf: csrf) == 401)
        #expect(try await window.request("GET", "/", headers: ["Cookie": staying]).status == 200)
        #expect(page.count == 0)
    }

    @Test(
        "with singleSession, a new login link used ends every other session: its open page gets `ended` (replaced), its cookie is refused"
    )
    func singleSession() async throws {
        let page = CounterPage()
        let window = try await TestWindow([page], configuration: .init(singleSession: true))
        let first = try await window.logIn()
        let stream = try await Self.openStream(window, page: page, cookie: first)
        let second = try await window.logInAgain()
        let events = try await stream.value
        #expect(events.body.contains("event: ended\ndata: replaced\n"), "\(events.body)")
        #expect(try await window.request("GET", "/", headers: ["Cookie": first]).status == 401)
        #expect(try await window.request("GET", "/", headers: ["Cookie": second]).status == 200)
        #expect(window.server?.guard_.sessionCount == 1)
    }

    @Test(
        "a session with no request for the idle limit ends: 401, saying how to get a new link; another session, used meanwhile, lives on"
    )
    func idleLimit() async throws {
        let window = try await TestWindow([CounterPage()], configuration: .init(idleLimit: .seconds(5)))
        let idle = try await window.logIn()
        // Past the limit (a slow machine only makes the wait longer); the limit itself is long enough for a
        // loaded machine's next request (each is a new Python process) to come within it.
        try await Task.sleep(for: .seconds(6))
        let used = try await window.logInAgain()
        let refused = try await window.request("GET", "/", headers: ["Cookie": idle])
        #expect(refused.status == 401 && refused.body.contains("SIGUSR1"), "\(refused.body)")
        #expect(try await window.request("GET", "/", headers: ["Cookie": used]).status == 200)
    }

    @Test(
        "the idle rule, on the guard's own clock: each request counts as a use; an open page keeps its session alive past the limit, and its closing counts as a use"
    )
    func idleRule() throws {
        let guard_ = WindowGuard(idleLimit: .seconds(60))
        let start = ContinuousClock.now
        let at = { (seconds: Int) in start.advanced(by: .seconds(seconds)) }
        let token = try #require(guard_.loginToken)
        let session = try #require(guard_.redeem(token, now: at(0)))
        #expect(guard_.session(for: session.secret, now: at(50)) == session)
        #expect(guard_.session(for: session.secret, now: at(100)) == session, "used at 50 s, not idle at 100 s")
        // A page opens: however long it stays open, the session is not idle.
        var stream: AsyncStream<WindowGuard.Ending>? = guard_.ending(of: session)
        #expect(guard_.session(for: session.secret, now: at(1000)) == session)
        let lone = try #require(guard_.redeem(guard_.renewLoginToken(), now: at(1000)))
        #expect(guard_.session(for: lone.secret, now: at(1061)) == nil, "no page, no use for 61 s")
        #expect(guard_.sessionCount == 1)
        _ = stream
        stream = nil  // the page closes: now counts as its last use
        #expect(guard_.session(for: session.secret, now: .now) == session)
    }

    @Test("an idle limit that is not more than zero is refused by name, before anything is served")
    func idleLimitMustBePositive() throws {
        for limit: Duration in [.zero, .seconds(-60)] {
            let error = #expect(throws: AppexError.self) {
                try WindowServer(configuration: .init(idleLimit: limit), pages: [CounterPage()])
            }
            #expect(error?.code == .invalidValue && error?.context.key == "idleLimit", "\(String(describing: error))")
            #expect(error?.message.contains("idle limit") == true)
        }
    }
}
