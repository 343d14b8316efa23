import AppexAuth
import AppexAuthLogin
import AppexCore
import AppexStore
import AppexTestTiers
import AppexTesting
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.serialized, .timed) struct OAuthTests {
    init() async throws { try await OAuthServer.start() }

    @Test(
        "password login by the host stores the tokens (keychain) and publishes the user; the extension reads them and calls the API"
    )
    func passwordLogin() async throws {
        let auth = try AuthWorld()
        let host = try auth.host()
        let user = try await host.login.password(user: "ada", password: "lovelace")
        #expect(user.name == "Ada Lovelace" && user.identifier == "1")
        let widget = try auth.extensionManager()
        #expect(widget.loginStatus.currentUser == user)
        let (data, response) = try await widget.data(
            for: URLRequest(url: OAuthServer.issuer.appendingPathComponent("api/me"))
        )
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).contains("\"username\": \"ada\""))
        // Encrypted at rest: the access token is not in the keychain file.
        let token = try #require(try widget.storedTokens()?.accessToken)
        let file =
            FileManager.default.contents(atPath: auth.world.environment.home + "/Keychains/keychain.sqlite") ?? Data()
        #expect(file.range(of: Data(token.utf8)) == nil)
    }

    @Test("a wrong password is rejected with invalid_grant; nothing is stored, nobody is logged in")
    func wrongPassword() async throws {
        let auth = try AuthWorld()
        let host = try auth.host()
        let error = await #expect(throws: AppexError.self) {
            try await host.login.password(user: "ada", password: "wrong")
        }
        #expect(error?.code == .rejected && error?.context.oauthError == "invalid_grant")
        #expect(try host.tokenManager.storedTokens() == nil)
        #expect(!host.tokenManager.loginStatus.isUserLoggedIn)
    }

    @Test("refresh rotates the refresh token; the old one is then rejected with invalid_grant")
    func refreshRotates() async throws {
        let auth = try AuthWorld()
        let host = try auth.host(storage: .defaults)
        try await host.login.password(user: "ada", password: "lovelace")
        let widget = try auth.extensionManager(storage: .defaults)
        let before = try #require(try widget.storedTokens())
        let refreshed = try await widget.refresh(replacing: before)
        #expect(refreshed.refreshToken != before.refreshToken && refreshed.accessToken != before.accessToken)
        #expect(try widget.storedTokens()?.accessToken == refreshed.accessToken)
        #expect(try widget.storedTokens()?.refreshToken == refreshed.refreshToken)
        guard
            case .errorResponse(let error, _, let status) = await widget.refreshAccessToken(
                refreshToken: try #require(before.refreshToken)
            )
        else {
            Issue.record("the rotated refresh token was accepted again")
            return
        }
        #expect(error == "invalid_grant" && status == 400)
    }

    // The token lives 5 s, not 2: under a loaded CI run the server once took over 2 s between issuing
    // the refreshed token and seeing the request that used it, answered 401, and a correct second
    // refresh followed.
    @Test("an expired access token (5 s) is refreshed transparently before the request, once, counted by the server")
    func expiredRefreshedTransparently() async throws {
        let auth = try AuthWorld()
        let client = "swift-expiry-brief"
        let host = try auth.host(client: client)
        try await host.login.password(user: "ada", password: "lovelace")
        let widget = try auth.extensionManager(client: client)
        let before = try await OAuthServer.stats()["\(client).refresh_token.200"] ?? 0
        try await Task.sleep(for: .seconds(5.5))  // the 5-second access token expires: waiting it out is the behaviour under test
        let (_, response) = try await widget.data(
            for: URLRequest(url: OAuthServer.issuer.appendingPathComponent("api/me"))
        )
        #expect(response.statusCode == 200)
        let after = try await OAuthServer.stats()["\(client).refresh_token.200"] ?? 0
        #expect(after == before + 1)
    }

    @Test(
        "token expiry is read from the environment's clock: the stored token serves until that clock passes its expiry, then one refresh"
    )
    func expiryOnTheEnvironmentsClock() async throws {
        let auth = try AuthWorld()
        let client = "swift-public"
        let host = try auth.host(client: client)
        try await host.login.password(user: "ada", password: "lovelace")
        let widget = try auth.extensionManager(client: client)
        let stored = try #require(try widget.storedTokens())
        let expiresAt = try #require(stored.expiresAt)
        let before = try await OAuthServer.stats()["\(client).refresh_token.200"] ?? 0
        #expect(try await widget.freshTokens().accessToken == stored.accessToken)
        // Past the expiry on the environment's clock (no waiting): the manager refreshes.
        try auth.world.clock.advance(by: .seconds(expiresAt.timeIntervalSince(auth.world.clock.now) + 1))
        let fresh = try await widget.freshTokens()
        #expect(fresh.accessToken != stored.accessToken)
        #expect(try await widget.freshTokens().accessToken == fresh.accessToken)
        let after = try await OAuthServer.stats()["\(client).refresh_token.200"] ?? 0
        #expect(after == before + 1)
    }

    @Test("a 401 with error=invalid_token refreshes once and retries: 200")
    func unauthorizedRetriedOnce() async throws {
        let auth = try AuthWorld()
        let client = "swift-401"
        let host = try auth.host(client: client)
        try await host.login.password(user: "ada", password: "lovelace")
        // The stored access token is one the server does not know, though not expired.
        var tokens = try #require(try host.tokenManager.storedTokens())
        tokens.accessToken = "not-a-token-the-server-issued"
        let storage = KeychainTokenStorage(
            keychain: try SharedKeychain(context: auth.context(.hostApp), environment: auth.world.environment),
            accessGroup: AuthWorld.keychainGroup
        )
        try storage.write(key: host.tokenManager.storageKey, data: JSONEncoder.secondsSince1970.encode(tokens))
        let widget = try auth.extensionManager(client: client)
        let (_, response) = try await widget.data(
            for: URLRequest(url: OAuthServer.issuer.appendingPathComponent("api/me"))
        )
        #expect(response.statusCode == 200)
        #expect(try widget.storedTokens()?.accessToken != "not-a-token-the-server-issued")
    }

    /// Whether another process (the `appex` tool) still reads a current user in the login status.
    func anotherProcessSeesAUser(_ auth: AuthWorld) async throws -> Bool {
        let read = try await appex(
            "defaults",
            "read",
            "--group",
            AuthWorld.group,
            "--suite",
            "appex.login",
            "currentUser",
            in: auth.world
        )
        return read.status == 0
    }

    /// Revokes `refreshToken` at the server's revocation endpoint (from its RFC 8414 metadata)
    /// directly, as the server's owner would: Appex learns of it only by using the session.
    func revokeAtTheServer(_ refreshToken: String, client: String) async throws {
        let metadataURL = OAuthServer.issuer.appendingPathComponent(".well-known/oauth-authorization-server")
        let (metadata, _) = try await URLSession.shared.data(from: metadataURL)
        let fields = try #require(try JSONSerialization.jsonObject(with: metadata) as? [String: Any])
        let endpoint = try #require((fields["revocation_endpoint"] as? String).flatMap(URL.init(string:)))
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("token=\(refreshToken)&token_type_hint=refresh_token&client_id=\(client)".utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test(
        "revoke through Appex: the session is cleared and logged out published at once, so no dead token is handed out"
    )
    func revokeClearsTheSession() async throws {
        let auth = try AuthWorld()
        let client = "swift-revoke"
        let host = try auth.host(client: client)
        try await host.login.password(user: "ada", password: "lovelace")
        #expect(try await anotherProcessSeesAUser(auth))
        let widget = try auth.extensionManager(client: client)
        let tokens = try #require(try widget.storedTokens())
        try await widget.revoke(refreshToken: try #require(tokens.refreshToken))
        #expect(try widget.storedTokens() == nil)
        #expect(try await anotherProcessSeesAUser(auth) == false)
        let next = await #expect(throws: AppexError.self) { _ = try await widget.freshTokens() }
        #expect(next?.code == .notLoggedIn)
    }

    @Test(
        "a session revoked at the server: the next refresh is reauthentication-required, the session cleared, and another process sees the logout"
    )
    func revokedAtTheServer() async throws {
        let auth = try AuthWorld()
        let client = "swift-revoke"
        let host = try auth.host(client: client)
        try await host.login.password(user: "ada", password: "lovelace")
        let widget = try auth.extensionManager(client: client)
        let tokens = try #require(try widget.storedTokens())
        try await revokeAtTheServer(try #require(tokens.refreshToken), client: client)
        let error = await #expect(throws: AppexError.self) { _ = try await widget.refresh(replacing: tokens) }
        #expect(error?.code == .reauthenticationRequired && error?.context.oauthError == "invalid_grant")
        #expect(try widget.storedTokens() == nil)
        #expect(try await anotherProcessSeesAUser(auth) == false)
        let next = await #expect(throws: AppexError.self) { _ = try await widget.freshTokens() }
        #expect(next?.code == .notLoggedIn)
    }

    @Test(
        "a pair configured as seed 000 (keychain group com.myapp.MyApp, not named in the configuration) shares the tokens in that group"
    )
    func seedKeychainGroup() async throws {
        let auth = try AuthWorld()
        let keychainGroup = "com.myapp.MyApp"
        var configuration = auth.configuration()
        configuration.keychainAccessGroup = nil
        func context(_ kind: AppexBundle.Kind) -> ProcessContext {
            ProcessContext(
                bundleIdentifier: kind == .hostApp ? "com.myapp.MyApp" : "com.myapp.MyApp.RecentContacts",
                team: auth.world.team.teamIdentifier,
                entitlements: Entitlements(applicationGroups: [AuthWorld.group], keychainAccessGroups: [keychainGroup]),
                kind: kind
            )
        }
        #expect(configuration.tokenAccessGroup(entitledTo: [keychainGroup]) == keychainGroup)
        let host = try HostAccessorBuilder(
            configuration: configuration,
            context: context(.hostApp),
            environment: auth.world.environment
        )
        .option(.oauth).build()
        try await host.login.password(user: "ada", password: "lovelace")
        let widget = try AccessorBuilder(
            configuration: configuration,
            context: context(.appExtension),
            environment: auth.world.environment
        )
        .option(.oauth).build().tokenManager
        let tokens = try #require(try widget.storedTokens())
        #expect(try await widget.freshTokens().accessToken == tokens.accessToken)
    }

    @Test("an extension's context cannot build the host's accessor; before login it is refused with not-logged-in")
    func extensionCannotLogIn() async throws {
        let auth = try AuthWorld()
        let error = #expect(throws: AppexError.self) {
            _ = try HostAccessorBuilder(
                configuration: auth.configuration(),
                context: auth.context(.appExtension),
                environment: auth.world.environment
            )
            .option(.oauth).build()
        }
        #expect(error?.code == .configuration)
        let refused = await #expect(throws: AppexError.self) {
            _ = try await auth.extensionManager().withFreshAccessToken { $0 }
        }
        #expect(refused?.code == .notLoggedIn)
    }

    @Test(
        "DCR (RFC 7591): the host registers a client and logs in with it; the extension refreshes with it; the registration deleted, a refresh fails with invalid_client"
    )
    func dynamicClientRegistration() async throws {
        let auth = try AuthWorld()
        let host = try auth.host()
        let client = try await host.login.registerClient(name: "swift-dcr-\(UUID().uuidString.prefix(8))")
        #expect(client.clientID != "swift-public" && client.registrationAccessToken != nil)
        try await host.login.password(user: "ada", password: "lovelace")
        let widget = try auth.extensionManager()
        #expect(widget.clientID == client.clientID)  // read from the shared keychain
        let stale = try #require(try widget.storedTokens())
        let refreshed = try await widget.refresh(replacing: stale)
        #expect(refreshed.refreshToken != stale.refreshToken)
        let before = try await OAuthServer.stats()["\(client.clientID).refresh_token.200"] ?? 0
        #expect(before == 1)

        try await host.login.deleteRegistration()
        let error = await #expect(throws: AppexError.self) { _ = try await widget.refresh(replacing: refreshed) }
        #expect(error?.code == .rejected && error?.context.oauthError == "invalid_client")
    }

    @Test(
        "RFC 8414: endpoints are discovered from the issuer's metadata; a configuration file in the issue's form loads"
    )
    func discovery() async throws {
        let json =
            #"{"issuer": "\#(OAuthServer.issuer.absoluteString)", "clientID": "swift-public", "scopes": ["read", "write"], "appGroup": "group.com.example.app", "storage": "keychain"}"#
        let configuration = try JSONDecoder().decode(OAuthConfiguration.self, from: Data(json.utf8))
        #expect(configuration.storage == .keychain && configuration.scopes == ["read", "write"])
        let endpoints = try await OAuthConfiguration(
            issuer: OAuthServer.issuer,
            clientID: "swift-public",
            appGroup: AuthWorld.group
        ).resolvedEndpoints()
        #expect(endpoints.token.absoluteString == "\(OAuthServer.issuer.absoluteString)/o/token/")
        #expect(endpoints.revocation != nil && endpoints.registration != nil && endpoints.authorization != nil)
    }
}

extension JSONEncoder {
    /// Token sets are stored with dates as seconds since 1970.
    static var secondsSince1970: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }
}

/// `appex auth`, in real processes, against the live server.
@Suite(.serialized, .timed) struct AuthCommandTests {
    init() async throws { try await OAuthServer.start() }

    /// The issue's configuration file, with the test server's issuer and `client` (and, when
    /// `userInfo`, the endpoint that names the user).
    func writeConfiguration(in world: AppexTestEnvironment, client: String, userInfo: Bool = false) throws -> String {
        let path = world.root.appending("oauth-\(client).json")
        let extra = userInfo ? #", "userInfoEndpoint": "\#(OAuthServer.issuer.absoluteString)/api/me""# : ""
        let json =
            #"{"issuer": "\#(OAuthServer.issuer.absoluteString)", "clientID": "\#(client)", "scopes": ["read", "write"], "appGroup": "group.com.example.app", "storage": "keychain"\#(extra)}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(
        "login (password on standard input), status without tokens, token prints a working token alone, revoke then no dead token (not-logged-in at once), logout"
    )
    func loginStatusTokenRevokeLogout() async throws {
        let world = try AppexTestEnvironment()
        let config = try writeConfiguration(in: world, client: "swift-short")
        let before = try await appex("auth", "status", "--config", config, in: world)
        #expect(before.status == 1 && before.standardOutput.contains("not logged in"))

        let login = try await appex(
            "auth",
            "login",
            "--config",
            config,
            "--user",
            "ada",
            "--password-stdin",
            in: world,
            input: "lovelace\n"
        )
        #expect(login.status == 0, "\(login.standardError)")
        let status = try await appex("auth", "status", "--config", config, in: world)
        #expect(
            status.status == 0 && status.standardOutput.contains("ada") && status.standardOutput.contains("expires")
        )
        let token = try await appex("auth", "token", "--config", config, in: world)
        let printed = token.standardOutput.trimmingCharacters(in: .newlines)
        #expect(token.status == 0 && !printed.isEmpty && !printed.contains(" "))
        #expect(!status.standardOutput.contains(printed), "status must never print a token")
        var request = URLRequest(url: OAuthServer.issuer.appendingPathComponent("api/me"))
        request.setValue("Bearer \(printed)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)

        #expect(try await appex("auth", "revoke", "--config", config, in: world).status == 0)
        // At once, while the revoked access token has not expired yet: no dead token is printed.
        let refused = try await appex("auth", "token", "--config", config, in: world)
        #expect(
            refused.status == 1 && refused.standardError.contains("not-logged-in") && refused.standardOutput.isEmpty,
            "\(refused.standardOutput) \(refused.standardError)"
        )
        #expect(try await appex("auth", "status", "--config", config, in: world).status == 1)

        #expect(
            try await appex(
                "auth",
                "login",
                "--config",
                config,
                "--user",
                "ada",
                "--password-stdin",
                in: world,
                input: "lovelace"
            ).status == 0
        )
        #expect(try await appex("auth", "logout", "--config", config, in: world).status == 0)
        #expect(try await appex("auth", "status", "--config", config, in: world).status == 1)
    }

    @Test("login --pkce prints the URL to open, and finishes when the browser's redirect reaches it")
    func loginWithPKCE() async throws {
        let world = try AppexTestEnvironment()
        let config = try writeConfiguration(in: world, client: "swift-public", userInfo: true)
        let child = try LineChild(
            appexExecutable,
            ["auth", "login", "--config", config, "--pkce"],
            environment: world.processVariables
        )
        // A failing test must not leave the login waiting for its callback.
        defer { if child.process.isRunning { child.process.terminate() } }
        let first = await readLines([child]).first ?? nil
        let line = try #require(first)
        let url = try #require(line.split(separator: " ").last.flatMap { URL(string: String($0)) }, "\(line)")
        try await LoginForm.signIn(at: url, user: "ada", password: "lovelace")
        let last = await readLines([child]).first ?? nil
        #expect(last == "logged in as Ada Lovelace (1)")
        child.end()
        #expect(child.process.terminationStatus == 0)
        #expect(try await appex("auth", "status", "--config", config, in: world).status == 0)
    }

    @Test("--as an app extension's bundle cannot log in: exit 1, only the host app logs in")
    func extensionCannotLogIn() async throws {
        let world = try AppexTestEnvironment()
        let config = try writeConfiguration(in: world, client: "swift-public")
        let bundle = try FixtureBundles.makeExtension(
            in: world.root.appending("Bundles"),
            name: "Widget",
            bundleIdentifier: "com.example.hostapp.widget",
            extensionPoint: "com.example.hostapp.HostAppFeature",
            entitlements: Entitlements(
                applicationGroups: ["group.com.example.app"],
                keychainAccessGroups: ["group.com.example.app"]
            ),
            signedBy: world.team
        )
        let refused = try await appex(
            "auth",
            "login",
            "--config",
            config,
            "--user",
            "ada",
            "--password-stdin",
            "--as",
            bundle,
            in: world,
            input: "lovelace"
        )
        #expect(refused.status == 1 && refused.standardError.contains("only the host app logs in"))
        let status = try await appex("auth", "status", "--config", config, "--as", bundle, in: world)
        #expect(status.status == 1 && status.standardOutput.contains("not logged in"))
    }
}

/// A headless browser for the authorization code flow: it follows the server's redirects by
/// hand, keeps the cookies, and signs in through the Django login form (CSRF token included).
/// The last redirect goes to the app's loopback listener, as a browser's would.
@Suite(.serialized, .timed) struct PKCELoginTests {
    init() async throws { try await OAuthServer.start() }

    @Test(
        "authorization code + PKCE with a loopback redirect (RFC 8252), driven through the server's login form: tokens stored, user published, API answers"
    )
    func pkceLogin() async throws {
        let auth = try AuthWorld()
        let host = try auth.host()
        let user = try await host.login.authorizationCode(timeout: .seconds(60)) { url in
            #expect(url.absoluteString.contains("code_challenge_method=S256"))
            try await LoginForm.signIn(at: url, user: "grace", password: "hopper")
        }
        #expect(user.name == "Grace Hopper")
        let widget = try auth.extensionManager()
        #expect(widget.loginStatus.currentUser == user)
        let (_, response) = try await widget.data(
            for: URLRequest(url: OAuthServer.issuer.appendingPathComponent("api/me"))
        )
        #expect(response.statusCode == 200)
    }

    @Test("a callback whose state does not match is refused, and nothing is stored")
    func forgedState() async throws {
        let auth = try AuthWorld()
        let host = try auth.host()
        let error = await #expect(throws: AppexError.self) {
            try await host.login.authorizationCode(timeout: .seconds(30)) { url in
                // A forged redirect straight to the app, with someone else's state.
                let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
                let redirect = try #require(components.queryItems?.first { $0.name == "redirect_uri" }?.value)
                _ = try await URLSession.shared.data(
                    from: try #require(URL(string: redirect + "?code=stolen&state=forged"))
                )
            }
        }
        #expect(error?.code == .rejected && error?.message.contains("state") == true)
        #expect(try host.tokenManager.storedTokens() == nil)
    }
}
