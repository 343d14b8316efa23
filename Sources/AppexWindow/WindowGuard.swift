import Synchronization

/// The rules that keep other local pages and processes away from a window (decision 0149):
/// only the Host names of the loopback port, a one-time login token exchanged for a cookie, and
/// for every change, the page's CSRF token and its own Origin.
final class WindowGuard: Sendable {
    private struct State {
        var port: Int?
        var loginToken: String?
    }

    private let state: Mutex<State>
    /// The session cookie's value, given for the login token.
    let session: String
    /// What every state change must carry (`X-Appex-CSRF`), from the page's `<meta>`.
    let csrf: String

    init() {
        state = Mutex(State(port: nil, loginToken: Self.randomToken()))
        session = Self.randomToken()
        csrf = Self.randomToken()
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

    /// Whether `host` (a request's Host) names this window: `127.0.0.1:PORT`, `localhost:PORT`
    /// or `[::1]:PORT`. Anything else, an empty one included, is another site's name for this
    /// address (DNS rebinding).
    func allows(host: String?) -> Bool {
        guard let host, let port else { return false }
        return ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"].contains(host.lowercased())
    }

    /// Whether `origin` is this window's own.
    func allows(origin: String?) -> Bool {
        guard let origin, origin.hasPrefix("http://") else { return false }
        return allows(host: String(origin.dropFirst("http://".count)))
    }

    /// Takes the login token if `token` is it: true once, false for every other value and after.
    func redeem(_ token: String) -> Bool {
        state.withLock { state in
            guard let expected = state.loginToken, Self.equal(expected, token) else { return false }
            state.loginToken = nil
            return true
        }
    }

    /// Whether `value` is the session cookie's value.
    func isSession(_ value: String?) -> Bool { value.map { Self.equal($0, session) } ?? false }

    /// Whether `value` is the CSRF token.
    func isCSRF(_ value: String?) -> Bool { value.map { Self.equal($0, csrf) } ?? false }

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
