import AppexVocabulary
import Foundation
import Hummingbird
import ServiceLifecycle

// What the window serves: each page, its event stream, its controls' posts, and the window's
// own script and style sheet.
extension WindowServer {
    func addRoutes(to router: Router<WindowRequestContext>) {
        router.get("/window.js") { _, _ in Self.asset(WindowAssets.script, type: "text/javascript; charset=utf-8") }
        router.get("/window.css") { _, _ in Self.asset(WindowAssets.styleSheet, type: "text/css; charset=utf-8") }
        router.get("/events") { request, context in
            guard let session = context.session else { return Self.noSession }
            return try self.events(request, session: session)
        }
        router.post("/action") { request, _ in try await self.action(request) }
        router.post("/logout") { _, context in
            guard let session = context.session else { return Self.noSession }
            return self.logOut(session)
        }
        for (path, page) in pages {
            router.get(RouterPath(path)) { _, context in
                guard let session = context.session else { return Self.noSession }
                return try await self.document(page, session: session)
            }
        }
    }

    /// What a route answers if the middleware let a request through without a session (it
    /// does not: a safeguard, not a path).
    static var noSession: Response { WindowResponses.refusal(.unauthorized, "no session") }

    /// Ends `session` (its page's "End session", the window's log out): its cookie is cleared and refused from now on, and
    /// its open pages say that it logged out.
    func logOut(_ session: WindowGuard.Session) -> Response {
        guard_.end(session, because: .loggedOut)
        var response = Response(status: .noContent)
        response.headers[.setCookie] = "\(guard_.cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
        return response
    }

    /// The page's whole document: its content, the header that links every page and logs out,
    /// the session's CSRF token its script sends back, and a place for the window's messages.
    func document(_ page: any WindowPage, session: WindowGuard.Session) async throws -> Response {
        let content = try await page.render()
        let links = pages.values.sorted { $0.path < $1.path }.map { other in
            Markup.element("a", ["href": other.path], [.text(other.title)])
        }
        let html =
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            + "<meta name=\"appex-csrf\" content=\"\(Markup.escape(session.csrf))\">"
            + "<title>\(Markup.escape(page.title)) — \(Markup.escape(configuration.title))</title>"
            + "<link rel=\"icon\" href=\"\(WindowAssets.icon)\">"
            + "<link rel=\"stylesheet\" href=\"/window.css\"><script src=\"/window.js\" defer></script></head>"
            + "<body data-page=\"\(Markup.escape(page.path))\">"
            + Markup.element(
                "header",
                [:],
                [
                    Markup.element("h1", [:], [.text(configuration.title)]), Markup.element("nav", [:], links),
                    // The window's own log out ("End session": ContactsExplorer's page has an account's
                    // "Log out" too, which is another thing).
                    Markup.element("button", ["id": "end-session", "type": "button"], [.text("End session")]),
                ]
            ).html
            + "<p id=\"window-status\" role=\"status\"></p>"
            + Self.main(content).html
            + "</body></html>"
        return Response(
            status: .ok,
            headers: [.contentType: "text/html; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html))
        )
    }

    /// The page's content in its `main` element, marked with the digest of what it shows
    /// (`data-shown`), which the page's event stream sends back.
    static func main(_ content: Markup) -> Markup {
        .element("main", ["id": "page", "data-shown": digest(of: content)], [content])
    }

    /// A digest of `content`'s HTML (FNV-1a, 64 bits): equal for equal content in this process.
    static func digest(of content: Markup) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in content.html.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    /// The page's updates as server-sent events (`event: replace`, `data: {"id":…,"html":…}`),
    /// with a comment every 15 s so a closed connection is noticed; when `session` ends, one
    /// `event: ended` (`data:` why: `logged-out`, `replaced`, `idle`) and the stream's end.
    ///
    /// The stream first replaces the whole page when it differs from what the page shows
    /// (`shown`, its `data-shown`): a change published after the document was rendered and
    /// before this stream subscribed (a login that finished while the page loaded), or while a
    /// dropped stream reconnected, would otherwise never reach it. The page is rendered after
    /// the stream subscribed, so every later change follows it.
    func events(_ request: Request, session: WindowGuard.Session) throws -> Response {
        guard let path = request.uri.queryParameters["page"].map(String.init), let page = pages[path] else {
            return WindowResponses.refusal(.notFound, "no such page")
        }
        let shown = request.uri.queryParameters["shown"].map(String.init)
        let updates = page.updates()
        let ending = guard_.ending(of: session)
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": open\n\n"))
            if let content = try? await page.render(), Self.digest(of: content) != shown {
                try await writer.write(
                    ByteBuffer(string: Self.event(WindowUpdate(id: "page", markup: Self.main(content))))
                )
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                let (beats, beat) = AsyncStream.makeStream(of: Void.self)
                group.addTask {
                    while !Task.isCancelled {
                        try await Task.sleep(for: .seconds(15))
                        beat.yield()
                    }
                }
                // One writer: the updates and the beats reach it through one stream.
                let (merged, send) = AsyncStream.makeStream(of: String.self)
                group.addTask {
                    for await update in updates { send.yield(Self.event(update)) }
                    send.finish()
                }
                group.addTask { for await _ in beats { send.yield(": beat\n\n") } }
                // The session's end ends the stream: its page says why and sends nothing more.
                group.addTask {
                    for await reason in ending { send.yield("event: ended\ndata: \(reason.rawValue)\n\n") }
                    send.finish()
                }
                // A stopping window (SIGTERM) ends its streams, so an open page does not hold it up.
                for await text in merged.cancelOnGracefulShutdown() { try await writer.write(ByteBuffer(string: text)) }
                group.cancelAll()
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: body
        )
    }

    /// One update as a server-sent event.
    static func event(_ update: WindowUpdate) -> String {
        struct Payload: Encodable {
            var id: String
            var html: String
        }
        let json =
            (try? JSONEncoder().encode(Payload(id: update.id, html: update.markup.html)))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "event: replace\ndata: \(json)\n\n"
    }

    /// A control's post: `page`, `action` and its fields, form-encoded.
    func action(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 64 * 1024)
        var fields: [String: String] = [:]
        for pair in String(buffer: body).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if let key = parts.first, !key.isEmpty { fields[key] = parts.count > 1 ? parts[1] : "" }
        }
        guard let path = fields.removeValue(forKey: "page"), let page = pages[path],
            let name = fields.removeValue(forKey: "action"), !name.isEmpty
        else {
            return WindowResponses.refusal(.badRequest, "an action names its page and itself")
        }
        do {
            try await page.perform(WindowAction(name: name, fields: fields))
        } catch {
            return WindowResponses.refusal(.conflict, error.message)
        }
        return Response(status: .noContent)
    }

    static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: type],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }
}
