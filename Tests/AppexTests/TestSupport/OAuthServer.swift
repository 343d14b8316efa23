import AppexAuth
import AppexAuthLogin
import AppexCore
import AppexStore
import AppexTesting
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// This checkout's real authorization server (Scripts/oauth-server.sh), the one place the tests
/// find it. Started once per test process — the script is idempotent, installs the server on
/// first use, and leaves a running one alone — then found at the port the server published
/// (`.build-oauth/state/server.port`: it binds a port the kernel chooses), and trusted only if it
/// answers `/test/instance` with the token of this start (`.build-oauth/state/server.instance`):
/// another checkout's server, or anything else now on a reused port, is never mistaken for it.
enum OAuthServer {
    /// Where the script publishes the server's port and instance token.
    static let stateFolder = packageRoot + "/.build-oauth/state"
    private static let found = Mutex<URL?>(nil)

    /// The server's base URL, the issuer of its tokens. Suites that use it call ``start()``
    /// first, in their `init`.
    static var issuer: URL {
        guard let issuer = found.withLock({ $0 }) else {
            preconditionFailure("OAuthServer.issuer before OAuthServer.start(): start it in the suite's init")
        }
        return issuer
    }

    /// Starts the server unless this process already found it.
    static func start() async throws {
        if found.withLock({ $0 }) != nil { return }
        let output = try await run(
            "/bin/bash",
            [packageRoot + "/Scripts/oauth-server.sh", "start"],
            environment: ProcessInfo.processInfo.environment,
            timeout: 600
        )
        guard output.status == 0 else {
            Issue.record("the OAuth server did not start: \(output.standardError)")
            throw OAuthServerError(description: "Scripts/oauth-server.sh start failed (exit \(output.status))")
        }
        let issuer = try await published()
        found.withLock { $0 = issuer }
    }

    /// The server the script published, once it has proved it is that server.
    static func published() async throws -> URL {
        func read(_ name: String) throws -> String {
            try String(contentsOfFile: stateFolder + "/" + name, encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines
            )
        }
        let port = try read("server.port")
        let token = try read("server.instance")
        guard let number = Int(port), (1...65535).contains(number), let base = URL(string: "http://127.0.0.1:\(number)")
        else {
            throw OAuthServerError(description: "\(stateFolder)/server.port holds no port: \(port.debugDescription)")
        }
        let (data, _) = try await URLSession.shared.data(from: base.appendingPathComponent("test/instance"))
        let answer = try? JSONDecoder().decode(Instance.self, from: data)
        guard answer?.instance == token else {
            let said =
                answer.map { "instance \($0.instance), pid \($0.pid)" }
                ?? String(decoding: data.prefix(200), as: UTF8.self)
            throw OAuthServerError(
                description:
                    "the server on \(base) is not this checkout's OAuth server (it says \(said); this checkout's instance is \(token))"
            )
        }
        return base
    }

    /// What `/test/instance` answers.
    private struct Instance: Decodable {
        var instance: String
        var pid: Int
    }

    /// The server's token-request counters ("<client>.refresh_token.200", ...).
    static func stats() async throws -> [String: Int] {
        let (data, _) = try await URLSession.shared.data(from: issuer.appendingPathComponent("test/stats"))
        return try JSONDecoder().decode([String: Int].self, from: data)
    }
}

/// The OAuth server could not be started or found.
struct OAuthServerError: Error, CustomStringConvertible {
    var description: String
}

/// A host and an extension of one team sharing an app group and a keychain access group.
struct AuthWorld {
    static let group = "group.com.example.app"
    static let keychainGroup = "TEAMID.com.example.shared"
    let world: AppexTestEnvironment

    init() throws { world = try AppexTestEnvironment() }

    func configuration(
        client: String = "swift-public",
        storage: OAuthConfiguration.Storage = .keychain
    ) -> OAuthConfiguration {
        OAuthConfiguration(
            issuer: OAuthServer.issuer,
            clientID: client,
            scopes: ["read", "write"],
            appGroup: Self.group,
            storage: storage,
            keychainAccessGroup: Self.keychainGroup,
            userInfoEndpoint: OAuthServer.issuer.appendingPathComponent("api/me")
        )
    }

    func context(_ kind: AppexBundle.Kind) -> ProcessContext {
        ProcessContext(
            bundleIdentifier: kind == .hostApp ? "com.example.hostapp" : "com.example.hostapp.widget",
            team: world.team.teamIdentifier,
            entitlements: Entitlements(applicationGroups: [Self.group], keychainAccessGroups: [Self.keychainGroup]),
            kind: kind
        )
    }

    func host(client: String = "swift-public", storage: OAuthConfiguration.Storage = .keychain) throws -> HostAccessor {
        try HostAccessorBuilder(
            configuration: configuration(client: client, storage: storage),
            context: context(.hostApp),
            environment: world.environment
        )
        .option(.oauth).build()
    }

    func extensionManager(
        client: String = "swift-public",
        storage: OAuthConfiguration.Storage = .keychain
    ) throws -> OAuthTokenManager {
        try AccessorBuilder(
            configuration: configuration(client: client, storage: storage),
            context: context(.appExtension),
            environment: world.environment
        )
        .option(.oauth).build().tokenManager
    }
}
