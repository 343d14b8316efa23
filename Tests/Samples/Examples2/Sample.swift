import ContactsKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Syncs a store from a contacts server with a token of scope `contacts`, then prints what the
/// RecentContacts widget shows. (The app authorizes its requests through the shared session,
/// `OAuthTokenManager.data(for:)`, instead of a token of its own.)
@main
struct SyncOnce {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 4, let server = URL(string: arguments[1]) else {
            print("usage: SyncOnce SERVER TOKEN STORE")
            return
        }
        let token = arguments[2]
        let api = ContactsAPI(server: server) { request in
            var request = request
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let (data, response) = try await URLSession.shared.data(for: request)
            guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
            return (data, http)
        }
        let store = try ContactsStore(path: arguments[3])
        let report = try await ContactsSync(api: api, store: store).run { received, more in
            print("\(received) contacts\(more ? "…" : "")")
        }
        print("\(report.received) received in \(report.pages) pages")
        for contact in try store.recent(limit: 5) { print(contact.name) }
    }
}