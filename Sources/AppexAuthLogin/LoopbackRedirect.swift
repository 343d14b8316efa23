import AppexAuth
import AppexCore
import AppexSystem
import AppexVocabulary
import Foundation
import Synchronization

/// The loopback redirect of a native app's authorization code flow (RFC 8252 §7.3): a listener
/// on `127.0.0.1` at a port the kernel picks, for the one request the browser makes to
/// `http://127.0.0.1:<port>/callback?code=...&state=...`.
final class LoopbackRedirect: Sendable {
    /// The redirect URI to register the request with.
    let redirectURI: URL
    private let listener: LoopbackListener
    private let cancelled = Mutex(false)

    /// Stops waiting for the callback (within 200 ms).
    func cancel() { cancelled.withLock { $0 = true } }

    /// Listens on 127.0.0.1, on an ephemeral port.
    init() throws(AppexError) {
        do { listener = try LoopbackListener() } catch {
            throw AppexError(.retryable, "cannot listen on 127.0.0.1 for the redirect", underlyingError: error)
        }
        guard let uri = URL(string: "http://127.0.0.1:\(listener.port)/callback") else {
            throw AppexError(.configuration, "cannot make the redirect URI for port \(listener.port)")
        }
        redirectURI = uri
    }

    /// The callback's query parameters: waits (on a thread of its own) for a request to
    /// `/callback`, answers it with a page the user can close, and returns.
    ///
    /// Fails with ``/AppexVocabulary/AppexError`` `retryable` when no callback came within `timeout`.
    func callback(timeout: Duration) async -> Result<[String: String], AppexError> {
        let result: Result<[String: String], AppexError> = await withCheckedContinuation { continuation in
            let started = startDetachedThread(name: "appex.loopback") { [self] in
                continuation.resume(returning: serve(until: ContinuousClock.now + timeout))
            }
            if !started {
                continuation.resume(
                    returning: .failure(AppexError(.retryable, "cannot start the loopback listener's thread"))
                )
            }
        }
        return result
    }

    /// Accepts connections until one asks for `/callback` or the deadline passes.
    private func serve(until deadline: ContinuousClock.Instant) -> Result<[String: String], AppexError> {
        while ContinuousClock.now < deadline && !cancelled.withLock({ $0 }) {
            guard let client = try? listener.accept(timeoutMilliseconds: 200) else { continue }
            // The request line and headers only, at most 16 KiB: nothing else is read.
            let request = LoopbackListener.readRequest(
                from: client,
                until: [13, 10, 13, 10],
                limit: 16_384,
                idleSeconds: 5
            )
            let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self).split(separator: " ")
            guard line.count >= 2, line[0] == "GET", let components = URLComponents(string: String(line[1])),
                components.path == "/callback"
            else {
                Self.respond(client, status: "404 Not Found", body: "Not the callback.")
                continue
            }
            Self.respond(client, status: "200 OK", body: "Signed in. You can close this window and return to the app.")
            var query: [String: String] = [:]
            for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
            return .success(query)
        }
        if cancelled.withLock({ $0 }) { return .failure(AppexError(.retryable, "the login was abandoned")) }
        return .failure(
            AppexError(.retryable, "no authorization callback reached the loopback redirect \(redirectURI) in time")
        )
    }

    private static func respond(_ client: OwnedDescriptor, status: String, body: String) {
        let response =
            "HTTP/1.1 \(status)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        LoopbackListener.write(Array(response.utf8), to: client)
    }
}
