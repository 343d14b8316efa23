import AppexAuth
import AppexCore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The loopback redirect of a native app's authorization code flow (RFC 8252 §7.3): a listener
/// on `127.0.0.1` at a port the kernel picks, for the one request the browser makes to
/// `http://127.0.0.1:<port>/callback?code=...&state=...`.
final class LoopbackRedirect: Sendable {
    /// The redirect URI to register the request with.
    let redirectURI: URL
    private let socket: Int32
    private let cancelled = Mutex(false)

    /// Stops waiting for the callback (within 200 ms).
    func cancel() { cancelled.withLock { $0 = true } }

    /// Listens on 127.0.0.1, on an ephemeral port.
    init() throws(AuthError) {
        let fd = streamSocket()
        guard fd >= 0 else { throw AuthError(.retryable, "cannot open the loopback listener: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw AuthError(.retryable, "cannot listen on 127.0.0.1 for the redirect: \(String(cString: strerror(errno)))")
        }
        socket = fd
        let port = Int(UInt16(bigEndian: address.sin_port))
        guard let uri = URL(string: "http://127.0.0.1:\(port)/callback") else {
            close(fd)
            throw AuthError(.configuration, "cannot make the redirect URI for port \(port)")
        }
        redirectURI = uri
    }

    deinit { close(socket) }

    /// The callback's query parameters: waits (on a thread of its own) for a request to
    /// `/callback`, answers it with a page the user can close, and returns.
    ///
    /// Fails with ``AuthError`` `retryable` when no callback came within `timeout`.
    func callback(timeout: Duration) async -> Result<[String: String], AuthError> {
        let result: Result<[String: String], AuthError> = await withCheckedContinuation { continuation in
            let started = startDetachedThread(name: "appex.loopback") { [self] in
                continuation.resume(returning: serve(until: ContinuousClock.now + timeout))
            }
            if !started { continuation.resume(returning: .failure(AuthError(.retryable, "cannot start the loopback listener's thread"))) }
        }
        return result
    }

    /// Accepts connections until one asks for `/callback` or the deadline passes.
    private func serve(until deadline: ContinuousClock.Instant) -> Result<[String: String], AuthError> {
        while ContinuousClock.now < deadline && !cancelled.withLock({ $0 }) {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) > 0 else { continue }
            let client = accept(socket, nil, nil)
            guard client >= 0 else { continue }
            defer { close(client) }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var request = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            // The request line and headers only, at most 16 KiB: nothing else is read.
            while request.count < 16_384 && !request.ends(with: [13, 10, 13, 10]) {
                let count = read(client, &buffer, buffer.count)
                if count <= 0 { break }
                request += buffer[0..<count]
            }
            let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self).split(separator: " ")
            guard line.count >= 2, line[0] == "GET", let components = URLComponents(string: String(line[1])), components.path == "/callback" else {
                Self.respond(client, status: "404 Not Found", body: "Not the callback.")
                continue
            }
            Self.respond(client, status: "200 OK", body: "Signed in. You can close this window and return to the app.")
            var query: [String: String] = [:]
            for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
            return .success(query)
        }
        if cancelled.withLock({ $0 }) { return .failure(AuthError(.retryable, "the login was abandoned")) }
        return .failure(AuthError(.retryable, "no authorization callback reached the loopback redirect \(redirectURI) in time"))
    }

    private static func respond(_ client: Int32, status: String, body: String) {
        let response = "HTTP/1.1 \(status)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        _ = Array(response.utf8).withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}

/// A TCP socket, closed on exec.
private func streamSocket() -> Int32 {
    #if canImport(Glibc)
    Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #else
    Darwin.socket(AF_INET, SOCK_STREAM, 0)
    #endif
}
