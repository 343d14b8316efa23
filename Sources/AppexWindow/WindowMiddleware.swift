import Foundation
import HTTPTypes
import Hummingbird

/// Every request passes here first: the Host check (421), the login (a one-time token for a
/// session of its own and its cookie, then a redirect that drops the token), the cookie of a
/// live session (401), and for a POST its Origin and that session's CSRF token (403). Every
/// response leaves with the window's security headers.
struct WindowMiddleware: RouterMiddleware {
    let guard_: WindowGuard
    /// Where the login redirects: the page at `/`, else the first page.
    let home: String

    func handle(
        _ request: Request,
        context: WindowRequestContext,
        next: (Request, WindowRequestContext) async throws -> Response
    ) async throws -> Response {
        guard guard_.allows(host: request.head.authority) else {
            return WindowResponses.refusal(
                .init(code: 421, reasonPhrase: "Misdirected Request"),
                "not this window's address: open the link the window printed when it started"
            )
        }
        let session = guard_.session(for: request.cookies[guard_.cookieName]?.value)
        if request.uri.path == "/login" {
            guard let token = request.uri.queryParameters["token"].map(String.init),
                let fresh = guard_.redeem(token)
            else {
                // A used link opened again (the address bar, a reload) by the browser it logged in:
                // the page, not a refusal. Without the cookie the link is worth nothing.
                if session != nil {
                    return WindowResponses.secured(Response(status: .seeOther, headers: [.location: home]))
                }
                return WindowResponses.refusal(
                    .forbidden,
                    "this login link was used already, or is not this window's. \(WindowResponses.newLinkAdvice)"
                )
            }
            // A browser that logs in again leaves its old session behind: it ends now.
            if let session { guard_.end(session, because: .replaced) }
            var response = WindowResponses.secured(Response(status: .seeOther, headers: [.location: home]))
            response.headers[.setCookie] = "\(guard_.cookieName)=\(fresh.secret); Path=/; HttpOnly; SameSite=Strict"
            return response
        }
        guard let session else {
            return WindowResponses.refusal(
                .unauthorized,
                "open the login link the window printed when it started; a session ends when its page logs out, or when no page of it is open for a while. \(WindowResponses.newLinkAdvice)"
            )
        }
        if request.method != .get && request.method != .head {
            guard guard_.allows(origin: request.headers[.origin]) else {
                return WindowResponses.refusal(.forbidden, "a change must come from this window's own page")
            }
            guard guard_.isCSRF(request.headers[WindowResponses.csrfHeader], of: session) else {
                return WindowResponses.refusal(.forbidden, "a change must carry this page's token")
            }
        }
        var context = context
        context.session = session
        do {
            return WindowResponses.secured(try await next(request, context))
        } catch let error as any HTTPResponseError {
            // The router's 404, a body past its limit (413): with the window's headers too.
            return WindowResponses.refusal(error.status, "\(error.status.reasonPhrase.lowercased())")
        } catch {
            return WindowResponses.refusal(.internalServerError, "the page could not be made")
        }
    }
}

/// The headers and refusals every window response shares.
enum WindowResponses {
    /// How to get a new login link: the serving process prints one on SIGUSR1, or when it starts
    /// again (a link works once).
    static var newLinkAdvice: String {
        "For a new link, send the process that serves this window SIGUSR1 (kill -USR1 \(ProcessInfo.processInfo.processIdentifier), or systemctl --user reload for a unit), or start it again."
    }

    /// The header a page's script sends its CSRF token in.
    static var csrfHeader: HTTPField.Name { HTTPField.Name("X-Appex-CSRF")! }

    /// The content security policy of every response: our own script and style only, no
    /// framing, no form posts elsewhere, no plugins.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    static func secured(_ response: Response) -> Response {
        var response = response
        response.headers[.contentSecurityPolicy] = contentSecurityPolicy
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[.cacheControl] = "no-store"
        return response
    }

    static func refusal(_ status: HTTPResponse.Status, _ reason: String) -> Response {
        secured(
            Response(
                status: status,
                headers: [.contentType: "text/plain; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "\(status.code) \(status.reasonPhrase): \(reason)\n"))
            )
        )
    }
}
