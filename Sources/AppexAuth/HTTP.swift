package import Foundation

#if canImport(FoundationNetworking)
package import FoundationNetworking
#endif

/// The HTTP the token code does, through `URLSession` (FoundationNetworking on Linux). A failure
/// to get any answer is `retryable`, naming the URL.
package enum HTTP {
    /// One session for every request of the process: connections are reused.
    package static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()

    /// Sends `request`; returns the body and the response.
    package static func send(_ request: URLRequest) async throws(AppexError) -> (Data, HTTPURLResponse) {
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else {
                throw AppexError(.retryable, "\(request.url?.absoluteString ?? "?") gave no HTTP answer")
            }
            return (data, http)
        } catch let error as AppexError {
            throw error
        } catch {
            throw AppexError(.retryable, "cannot reach \(request.url?.absoluteString ?? "?")", underlyingError: error)
        }
    }

    /// GETs `url`; returns the body and the status.
    package static func get(_ url: URL) async throws(AppexError) -> (Data, Int) {
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await send(request)
        return (data, response.statusCode)
    }

    /// POSTs `form` as `application/x-www-form-urlencoded`.
    package static func postForm(
        _ url: URL,
        _ form: [(String, String)]
    ) async throws(AppexError) -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = Data(form.map { "\(formEncode($0.0))=\(formEncode($0.1))" }.joined(separator: "&").utf8)
        return try await send(request)
    }

    /// `application/x-www-form-urlencoded` encoding of one name or value.
    package static func formEncode(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._*")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text).replacingOccurrences(
            of: "%20",
            with: "+"
        )
    }
}
