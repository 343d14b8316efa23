public import AppexVocabulary
public import Foundation
import Hummingbird
public import Logging
import NIOCore
import ServiceLifecycle

/// A window: local web pages that show and change Appex's state, served on the loopback
/// interface to the one person who holds its login link.
///
/// ```swift
/// let window = try WindowServer(pages: [myPage])
/// try await window.run { url in print(url) }  // until cancelled, or SIGINT / SIGTERM
/// ```
///
/// It binds `[::1]` and `127.0.0.1` on one port (the kernel picks it, unless
/// ``Configuration/port`` names one) and hands `onReady` a login URL at a host name
/// of its own (`http://<random>.localhost:PORT/login?token=…`: browsers resolve `*.localhost` to
/// the loopback interface), with a one-time token. The token buys a session of its own: an
/// `HttpOnly; SameSite=Strict` cookie for that name alone (another server on 127.0.0.1 never
/// receives it), once; every request must carry a live session's cookie and that Host (others
/// get 421: DNS rebinding); every change is a POST from the page's own Origin with its session's
/// CSRF token (others get 403). A session ends when its page logs out, when no page of it was
/// open for ``Configuration/idleLimit``, or (``Configuration/singleSession``) when a newer link
/// is used; its open pages then say so. Every
/// response carries a content security policy that allows the window's own script and style
/// only, and no framing. Pages are built from ``Markup``, so data shows as text.
public final class WindowServer: Sendable {
    /// How a window presents itself and where it logs.
    public struct Configuration: Sendable {
        /// The name in every page's header.
        public var title: String
        /// Where the server logs (requests are not logged: their URLs may carry the token).
        public var logger: Logger
        /// The port to serve on, on both loopback addresses: a stable one, for a systemd unit or a
        /// firewall rule. `nil` (the default): one the kernel picks, free by construction.
        public var port: Int?
        /// Whether a login link, once used, ends every other session: one browser at a time.
        /// `false` (the default): each link used is a session of its own, until its page logs out.
        public var singleSession: Bool
        /// How long a session lives with no page of it open and no request: then its cookie is
        /// refused, and a new login link is needed. Eight hours by default.
        public var idleLimit: Duration

        /// A configuration titled `title`, on `port` (`nil`: one the kernel picks), with a session
        /// per login link (or one at a time, `singleSession`) that ends after `idleLimit` unused.
        public init(
            title: String = "Appex",
            port: Int? = nil,
            singleSession: Bool = false,
            idleLimit: Duration = .seconds(8 * 3600),
            logger: Logger = Logger(label: "appex.window")
        ) {
            self.title = title
            self.port = port
            self.singleSession = singleSession
            self.idleLimit = idleLimit
            self.logger = logger
        }
    }

    /// The paths the window serves itself.
    static let reservedPaths: Set<String> = ["/login", "/logout", "/events", "/action", "/window.js", "/window.css"]

    let configuration: Configuration
    let pages: [String: any WindowPage]
    let guard_: WindowGuard

    /// A window serving `pages`, each at its ``WindowPage/path``.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalidValue` for two pages at one path, a
    ///   path that does not start with `/`, or one of the window's own (`/login`, `/logout`,
    ///   `/events`, `/action`, `/window.js`, `/window.css`); for a port outside 1–65535 or an
    ///   idle limit that is not more than zero.
    public init(configuration: Configuration = Configuration(), pages: [any WindowPage]) throws(AppexError) {
        if let port = configuration.port, !(1...65535).contains(port) {
            throw AppexError(
                .invalidValue,
                "the window cannot serve on port \(port): a port is 1 to 65535 (leave it out for one the kernel picks)",
                context: AppexError.Context(key: "port")
            )
        }
        guard configuration.idleLimit > .zero else {
            throw AppexError(
                .invalidValue,
                "a window's idle limit must be more than zero (--idle-limit MINUTES, for a command that serves one), not \(configuration.idleLimit)",
                context: AppexError.Context(key: "idleLimit")
            )
        }
        var byPath: [String: any WindowPage] = [:]
        for page in pages {
            guard page.path.hasPrefix("/"), !Self.reservedPaths.contains(page.path), byPath[page.path] == nil else {
                throw AppexError(
                    .invalidValue,
                    "a window page cannot be served at \(page.path): a path starts with /, is used once, and is not one of \(Self.reservedPaths.sorted().joined(separator: ", "))",
                    context: AppexError.Context(key: page.path)
                )
            }
            byPath[page.path] = page
        }
        self.configuration = configuration
        self.pages = byPath
        guard_ = WindowGuard(singleSession: configuration.singleSession, idleLimit: configuration.idleLimit)
    }

    /// A new one-time login URL, for a second browser or after the first link was used; it
    /// replaces any link not yet used. `nil` before the window is bound (``run(stopsOnSignals:onReady:)``
    /// hands the first link to `onReady`).
    public func newLoginURL() -> URL? {
        guard let port = guard_.port else { return nil }
        return guard_.loginURL(port: port, token: guard_.renewLoginToken())
    }

    /// Serves until the calling task is cancelled, or, when `stopsOnSignals` is set, the process
    /// gets SIGINT or SIGTERM (it then ends its event streams and stops cleanly).
    ///
    /// - Parameters:
    ///   - stopsOnSignals: whether SIGINT and SIGTERM stop the window (a command that serves
    ///     until the user stops it); otherwise only cancelling the calling task does.
    ///   - onReady: called once the port is bound, with the login URL
    ///     (`http://<random>.localhost:PORT/login?token=…`): hand it to the one person who may
    ///     use the window, and nobody else.
    /// - Throws: ``/AppexVocabulary/AppexError`` `windowFailed` when the server cannot bind (the
    ///   configured port is in use: the message says so) or stops with an error.
    public func run(
        stopsOnSignals: Bool = false,
        onReady: @escaping @Sendable (URL) -> Void
    ) async throws(AppexError) {
        let router = Router(context: WindowRequestContext.self)
        let home = pages["/"] != nil ? "/" : pages.keys.sorted().first ?? "/"
        router.add(middleware: WindowMiddleware(guard_: guard_, home: home))
        addRoutes(to: router)
        let guard_ = guard_
        let logger = configuration.logger
        let requested = configuration.port ?? 0
        let group = LoopbackListeners.group(
            port: requested,
            router: router,
            stopsOnSignals: stopsOnSignals,
            logger: logger
        ) { port in
            guard let token = guard_.loginToken, let url = guard_.loginURL(port: port, token: token) else { return }
            guard_.bound(to: port)
            logger.info("window serving", metadata: ["port": "\(port)"])
            onReady(url)
        }
        do {
            try await group.run()
        } catch is CancellationError {
            return
        } catch  where LoopbackListeners.isAddressInUse(error) {
            throw AppexError(
                .windowFailed,
                "the window cannot serve on port \(requested): another program listens there on 127.0.0.1 or [::1] (ss -ltnp 'sport = :\(requested)' names it); stop it, or choose another port",
                context: AppexError.Context(key: "port"),
                underlyingError: error
            )
        } catch {
            throw AppexError(.windowFailed, "the window's server stopped", underlyingError: error)
        }
    }
}
