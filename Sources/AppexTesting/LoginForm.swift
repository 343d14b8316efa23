public import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Signs in through the test OAuth server's login form as a person's browser would (cookies, the
/// CSRF token, the redirects by hand), then follows the redirect to the app's loopback listener:
/// what a test of the authorization-code flow does where a person would use a browser.
public enum LoginForm {
    /// What went wrong on the way (a missing redirect or CSRF token), with the URL.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    /// Opens `start` (the authorization URL the app printed), signs in as `user`, and follows the
    /// server's redirect to the app.
    public static func signIn(at start: URL, user: String, password: String) async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        let session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
        var cookies: [String: String] = [:]
        func fetch(_ url: URL, form: [(String, String)]? = nil) async throws -> (Data, HTTPURLResponse) {
            var request = URLRequest(url: url)
            if !cookies.isEmpty {
                request.setValue(cookies.map { "\($0)=\($1)" }.joined(separator: "; "), forHTTPHeaderField: "Cookie")
            }
            if let form {
                request.httpMethod = "POST"
                request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
                request.setValue(url.absoluteString, forHTTPHeaderField: "Referer")
                request.httpBody = Data(
                    form.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $1)" }
                        .joined(separator: "&").utf8
                )
            }
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else {
                throw Failure(description: "no HTTP answer from \(url)")
            }
            let fields = http.allHeaderFields.reduce(into: [String: String]()) { $0["\($1.key)"] = "\($1.value)" }
            for cookie in HTTPCookie.cookies(withResponseHeaderFields: fields, for: url) {
                cookies[cookie.name] = cookie.value
            }
            return (data, http)
        }
        func location(_ response: HTTPURLResponse, from url: URL) throws -> URL {
            guard let value = response.value(forHTTPHeaderField: "Location"),
                let target = URL(string: value, relativeTo: url)?.absoluteURL
            else { throw Failure(description: "no redirect from \(url): HTTP \(response.statusCode)") }
            return target
        }
        // 1. The authorization URL sends an anonymous browser to the login form.
        let (_, first) = try await fetch(start)
        let loginURL = try location(first, from: start)
        // 2. The form and its CSRF token.
        let (page, _) = try await fetch(loginURL)
        let html = String(decoding: page, as: UTF8.self)
        guard let token = html.firstMatch(of: /name="csrfmiddlewaretoken" value="([^"]+)"/)?.1 else {
            throw Failure(description: "no CSRF token in the login form at \(loginURL)")
        }
        let next =
            URLComponents(url: loginURL, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "next" }?.value
            ?? "/"
        // 3. Sign in; 4. back to the authorization URL, now with a session: the server redirects to the app.
        let (_, signedIn) = try await fetch(
            loginURL,
            form: [("csrfmiddlewaretoken", String(token)), ("username", user), ("password", password), ("next", next)]
        )
        let authorize = try location(signedIn, from: loginURL)
        let (_, granted) = try await fetch(authorize)
        let callback = try location(granted, from: authorize)
        // 5. The browser follows the redirect to the app's loopback listener.
        _ = try await fetch(callback)
    }
}
