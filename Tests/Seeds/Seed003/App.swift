// The app's own pieces around seed 003's listings: the shared configuration (its server comes
// with the host's request), the shared storage, the cached refresh token, and the extension that
// runs the second listing when its host asks.
import AppexCurity
import AppexExtension
import AppexStore
import Foundation
import Synchronization

/// What the host's request names: the server (the test's, on a port of its own).
struct RefreshRequest: Codable, Sendable {
    var issuer: String
    var clientID: String
}

private let request = Mutex<RefreshRequest?>(nil)
private let reports = Mutex<[String]>([])

/// The configuration the host and the extension share, with the client the host registered.
var sharedConfiguration: HaapiConfiguration {
    let asked = request.withLock { $0 } ?? RefreshRequest(issuer: "http://127.0.0.1", clientID: "")
    return HaapiConfiguration(
        oauth: OAuthConfiguration(
            issuer: URL(string: asked.issuer) ?? URL(fileURLWithPath: "/"),
            clientID: asked.clientID,
            scopes: ["read", "write"],
            appGroup: "group.com.example.app",
            keychainAccessGroup: "TEAMID.com.example.app.shared"
        ),
        dcrConfiguration: makeDCRConfiguration()
    )
}

/// Where clients register on the server.
var registrationEndpoint: URL {
    URL(string: (request.withLock { $0 }?.issuer ?? "http://127.0.0.1") + "/o/register/") ?? URL(fileURLWithPath: "/")
}

/// The storage the host wrote its tokens to.
let sharedStorage = SharedTokenStorage()

/// The refresh token the host stored.
var cachedRefreshToken: String {
    let stored = (try? sharedStorage.read(key: "haapi.token")).flatMap { try? SuccessfulTokenResponse(data: $0) }
    return stored?.refreshToken ?? ""
}

/// Records what the listing did, for the host's reply.
func report(_ line: String) { reports.withLock { $0.append(line) } }

/// The extension: on each request, the second listing, answered with what it reported.
@main
struct HaapiExtension: AppExtension {
    @AppExtensionPoint.Bind
    var boundAppExtensionPoint: AppExtensionPoint {
        AppExtensionPoint.Identifier("com.example.hostapp", name: "HostAppFeature")
    }

    var configuration: some AppExtensionConfiguration {
        ConnectionHandler { (asked: RefreshRequest) async -> [String] in
            request.withLock { $0 = asked }
            reports.withLock { $0 = [] }
            do { try await refreshHostToken() } catch { report("thrown \(error)") }
            return reports.withLock { $0 }
        }
    }
}
