import AppexAuth
import AppexAuthLogin
import AppexCore
import AppexStore
import AppexTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// The real authorization server on 127.0.0.1 (Scripts/oauth-server.sh), started once per test
/// process; the script is idempotent and installs the server on first use.
enum OAuthServer {
    static let port = ProcessInfo.processInfo.environment["APPEX_OAUTH_PORT"] ?? "8765"
    static let issuer = URL(string: "http://127.0.0.1:\(port)")!
    private static let started = Mutex(false)

    /// Starts the server unless this process already did.
    static func start() async throws {
        if started.withLock({ $0 }) { return }
        let output = try await run("/bin/bash", [packageRoot + "/Scripts/oauth-server.sh", "start", port], environment: ProcessInfo.processInfo.environment, timeout: 600)
        guard output.status == 0 else {
            Issue.record("the OAuth server did not start: \(output.standardError)")
            throw AuthError(.configuration, "no OAuth server")
        }
        started.withLock { $0 = true }
    }

    /// The server's token-request counters ("<client>.refresh_token.200", ...).
    static func stats() async throws -> [String: Int] {
        let (data, _) = try await URLSession.shared.data(from: issuer.appendingPathComponent("test/stats"))
        return try JSONDecoder().decode([String: Int].self, from: data)
    }
}

/// A host and an extension of one team sharing an app group and a keychain access group.
struct AuthWorld {
    static let group = "group.com.example.app"
    static let keychainGroup = "TEAMID.com.example.shared"
    let world: AppexTestEnvironment

    init() throws { world = try AppexTestEnvironment() }

    func configuration(client: String = "swift-public", storage: OAuthConfiguration.Storage = .keychain) -> OAuthConfiguration {
        OAuthConfiguration(issuer: OAuthServer.issuer, clientID: client, scopes: ["read", "write"], appGroup: Self.group, storage: storage,
                           keychainAccessGroup: Self.keychainGroup, userInfoEndpoint: OAuthServer.issuer.appendingPathComponent("api/me"))
    }

    func context(_ kind: AppexBundle.Kind) -> ProcessContext {
        ProcessContext(bundleIdentifier: kind == .hostApp ? "com.example.hostapp" : "com.example.hostapp.widget",
                       team: world.team.teamIdentifier,
                       entitlements: Entitlements(applicationGroups: [Self.group], keychainAccessGroups: [Self.keychainGroup]), kind: kind)
    }

    func host(client: String = "swift-public", storage: OAuthConfiguration.Storage = .keychain) throws -> HostAccessor {
        try HostAccessorBuilder(configuration: configuration(client: client, storage: storage), context: context(.hostApp), environment: world.environment)
            .option(.oauth).build()
    }

    func extensionManager(client: String = "swift-public", storage: OAuthConfiguration.Storage = .keychain) throws -> OAuthTokenManager {
        try AccessorBuilder(configuration: configuration(client: client, storage: storage), context: context(.appExtension), environment: world.environment)
            .option(.oauth).build().tokenManager
    }
}
