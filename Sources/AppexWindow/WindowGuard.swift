import Foundation
import Synchronization

/// The rules that keep other local pages and processes away from a window (decision 0149):
/// only the window's own host name (`<random>.localhost`) and port, a one-time login token
/// exchanged for a cookie, and for every change, the page's CSRF token and its own Origin.
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
    /// The window's host name, `<128 random bits in hex>.localhost`: browsers resolve every
    /// `*.localhost` name to the loopback interface, and keep a cookie set by this one for this
    /// name alone, so another server on 127.0.0.1 (any port) never receives it: only a page that
    /// knows the name could send the browser there, and only the login link holds it.
    let hostName: String

    init() {
        state = Mutex(State(port: nil, loginToken: Self.randomToken()))
        session = Self.randomToken()
        csrf = Self.randomToken()
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
