import Foundation
import Synchronization

/// The rules that keep other local pages and processes away from a window (decision 0149):
/// only the window's own host name (`<random>.localhost`) and port, a one-time login token
/// exchanged for a session of its own, and for every change, that session's CSRF token and the
/// page's own Origin.
final class WindowGuard: Sendable {
    /// One browser's login: what its cookie carries, and the CSRF token its pages send back.
    /// Each login link redeemed makes a new one; neither value is shared with another session.
    struct Session: Sendable, Equatable {
        /// The session cookie's value.
        let secret: String
        /// What every state change of this session must carry (`X-Appex-CSRF`), from its pages'
        /// `<meta>`.
        let csrf: String
    }

    /// Why a session ended, as its open pages then say.
    enum Ending: String, Sendable {
        /// Its page's "End session" (the window's log out).
        case loggedOut = "logged-out"
        /// A newer login link was used, and the window keeps one session (`singleSession`).
        case replaced
        /// No page of it was open and no request came for the idle limit.
        case idle
    }

    private struct Record {
        var session: Session
        var lastUsed: ContinuousClock.Instant
        /// The endings each open event stream of the session waits for.
        var streams: [Int: AsyncStream<Ending>.Continuation] = [:]
    }

    private struct State {
        var port: Int?
        var loginToken: String?
        /// By secret.
        var sessions: [String: Record] = [:]
        var nextStream = 0
    }

    private let state: Mutex<State>
    /// Whether a new login ends every other session.
    let singleSession: Bool
    /// How long a session lives with no request and no open page.
    let idleLimit: Duration
    /// The window's host name, `<128 random bits in hex>.localhost`: browsers resolve every
    /// `*.localhost` name to the loopback interface, and keep a cookie set by this one for this
    /// name alone, so another server on 127.0.0.1 (any port) never receives it: only a page that
    /// knows the name could send the browser there, and only the login link holds it.
    let hostName: String

    init(singleSession: Bool = false, idleLimit: Duration = .seconds(8 * 3600)) {
        state = Mutex(State(port: nil, loginToken: Self.randomToken()))
        self.singleSession = singleSession
        self.idleLimit = idleLimit
        hostName = String(Self.randomToken().prefix(32)) + ".localhost"
    }

    /// Records the port the kernel picked; nothing is served before.
    func bound(to port: Int) { state.withLock { $0.port = port } }

    var port: Int? { state.withLock { $0.port } }

    /// The session cookie's name: it carries the port, so windows on other ports keep theirs.
    var cookieName: String { "appex-window-\(port ?? 0)" }

    /// The login token, once; `nil` after it was redeemed.
    var loginToken: String? { state.withLock { $0.loginToken } }

    /// A new login token, which replaces any that was not redeemed.
    func renewLoginToken() -> String {
        let token = Self.randomToken()
        state.withLock { $0.loginToken = token }
        return token
    }

    /// Whether `host` (a request's Host) names this window: its own `NAME.localhost:PORT`.
    /// Anything else, `127.0.0.1:PORT` and an empty one included, is another site's name for
    /// this address (DNS rebinding) or a request that did not come from the login link.
    func allows(host: String?) -> Bool {
        guard let host, let port else { return false }
        return host.lowercased() == "\(hostName):\(port)"
    }

    /// The window's address: `http://NAME.localhost:PORT`.
    func origin(port: Int) -> String { "http://\(hostName):\(port)" }

    /// The login link for `token`: `http://NAME.localhost:PORT/login?token=…`.
    func loginURL(port: Int, token: String) -> URL? { URL(string: origin(port: port) + "/login?token=\(token)") }

    /// Whether `origin` is this window's own.
    func allows(origin: String?) -> Bool {
        guard let origin, origin.hasPrefix("http://") else { return false }
        return allows(host: String(origin.dropFirst("http://".count)))
    }

    /// A new session for `token` if it is the login token (which is then used up): once, `nil`
    /// for every other value and after. With `singleSession`, every other session ends.
    func redeem(_ token: String, now: ContinuousClock.Instant = .now) -> Session? {
        let (session, ended) = state.withLock { state -> (Session?, [Record]) in
            guard let expected = state.loginToken, Self.equal(expected, token) else { return (nil, []) }
            state.loginToken = nil
            let ended = singleSession ? Array(state.sessions.values) : []
            if singleSession { state.sessions = [:] }
            let session = Session(secret: Self.randomToken(), csrf: Self.randomToken())
            state.sessions[session.secret] = Record(session: session, lastUsed: now)
            return (session, ended)
        }
        Self.notify(ended, .replaced)
        return session
    }

    /// The session whose cookie is `value`, if it is live; it counts as used now. A session
    /// idle past the limit ends here, when next presented.
    func session(for value: String?, now: ContinuousClock.Instant = .now) -> Session? {
        guard let value else { return nil }
        let (session, expired) = state.withLock { state -> (Session?, [Record]) in
            let expired = state.sessions.filter { isIdle($0.value, now: now) }
            for secret in expired.keys { state.sessions[secret] = nil }
            guard let key = state.sessions.keys.first(where: { Self.equal($0, value) }) else {
                return (nil, Array(expired.values))
            }
            state.sessions[key]?.lastUsed = now
            return (state.sessions[key]?.session, Array(expired.values))
        }
        Self.notify(expired, .idle)
        return session
    }

    /// Ends `session`: its cookie is refused from now on and its open pages are told why.
    func end(_ session: Session, because ending: Ending) {
        let record = state.withLock { $0.sessions.removeValue(forKey: session.secret) }
        Self.notify(record.map { [$0] } ?? [], ending)
    }

    /// How `session` ends, for one of its open event streams: at most one value, then the end.
    /// While the stream is open the session is never idle; its end counts as a use.
    func ending(of session: Session) -> AsyncStream<Ending> {
        let (stream, continuation) = AsyncStream.makeStream(of: Ending.self)
        let id = state.withLock { state -> Int? in
            guard state.sessions[session.secret] != nil else { return nil }
            let id = state.nextStream
            state.nextStream += 1
            state.sessions[session.secret]?.streams[id] = continuation
            return id
        }
        guard let id else {
            continuation.yield(.idle)
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                state.sessions[session.secret]?.streams[id] = nil
                state.sessions[session.secret]?.lastUsed = .now
            }
        }
        return stream
    }

    /// How many sessions are live (idle ones not yet swept included).
    var sessionCount: Int { state.withLock { $0.sessions.count } }

    private func isIdle(_ record: Record, now: ContinuousClock.Instant) -> Bool {
        record.streams.isEmpty && now - record.lastUsed > idleLimit
    }

    private static func notify(_ records: [Record], _ ending: Ending) {
        for record in records {
            for continuation in record.streams.values {
                continuation.yield(ending)
                continuation.finish()
            }
        }
    }

    /// Whether `value` is `session`'s CSRF token.
    func isCSRF(_ value: String?, of session: Session) -> Bool {
        value.map { Self.equal($0, session.csrf) } ?? false
    }

    /// Compares in time that does not depend on where the strings differ.
    private static func equal(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// 256 random bits, hex.
    private static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let word = generator.next() as UInt64
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
