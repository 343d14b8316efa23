import AppexAuth
import AppexAuthLogin
import AppexCore
import AppexHost
import AppexSAP
import AppexStore
import AppexTestTiers
import AppexTesting
import AppexVocabulary
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The seeds' own code, as the documents print it (Tests/Seeds; the lines a port changes are
/// Examples/README.md's table), run against the real parts: a bundled, signed, sandboxed
/// extension answering a host, a host app monitoring its point.
@Suite(.timed) struct SeedCodeTests {
    /// A seed target's executable, built beside the tests.
    static func seedExecutable(_ name: String) -> String {
        URL(fileURLWithPath: appexExecutable).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// Bundles a seed target as an app (`appex bundle`, opening `point`) and again as its
    /// extension inside it, `<identifier>.<extensionName lowercased>`, both with `entitlements`.
    ///
    /// - Returns: the app's path and its executable's.
    static func bundleApp(
        _ seed: String,
        identifier: String,
        point: String,
        extensionName: String,
        entitlements: Entitlements,
        in world: AppexTestEnvironment
    ) async throws -> (app: String, executable: String) {
        let key = world.root.appending("team.key")
        try world.team.write(to: key)
        let plist = world.root.appending("shared.plist")
        try FixtureBundles.write(PropertyListFormat.xml.encode(entitlements.propertyList), to: plist)
        let app = world.root.appending(seed + ".app")
        let made = try await appex(
            "bundle",
            "--executable",
            seedExecutable(seed),
            "--output",
            app,
            "--identifier",
            identifier,
            "--open-extension-point",
            point,
            "--entitlements",
            plist,
            "--key",
            key,
            in: world
        )
        #expect(made.status == 0, "\(made.standardError)")
        try FixtureBundles.bundle(
            executable: seedExecutable(seed),
            in: app + "/Extensions",
            name: extensionName,
            bundleIdentifier: identifier + "." + extensionName.lowercased(),
            entitlements: entitlements,
            signedBy: world.team
        )
        return (app, app + "/" + (AppexBundle.load(at: app).info.executableName ?? ""))
    }

    struct TranslateMessage: Codable, Sendable { var text: String }
    struct TranslateResponse: Codable, Sendable { var translatedText: String }

    @Test(
        "seed 001: the translate listing (generic Handler<E> storing its extension, ConnectionHandler capturing self, XPCPeerHandler answering any Encodable) answers a host's session messages, bundled, signed and sandboxed"
    )
    func seed001Translates() async throws {
        let tests = try ExtensionProcessTests()
        // The seed binds to com.example.hostapp's HostAppFeature, the fixture host's point.
        let identity = try tests.installEcho(id: "com.example.seed001", executable: Self.seedExecutable("Seed001"))
        let process = try tests.process(identity)
        defer { process.invalidate() }
        let session = try await process.makeSession()
        let reply = try await session.send(TranslateMessage(text: "Hello"), expecting: TranslateResponse.self)
        #expect(reply.translatedText == "bonjour")
        let other = try await session.send(TranslateMessage(text: "Linux"), expecting: TranslateResponse.self)
        #expect(other.translatedText == "[Linux]")
    }

    @Test(
        "seed 004: both listings run in a host app: Monitor(point) and Monitor(appExtensionPoint:) find the running app as their host; the snapshot lists what is installed, and Observations delivers an install"
    )
    func seed004Monitors() async throws {
        let world = try AppexTestEnvironment()
        let key = world.root.appending("team.key")
        try world.team.write(to: key)
        let app = world.root.appending("Seed004.app")
        let made = try await appex(
            "bundle",
            "--executable",
            Self.seedExecutable("Seed004"),
            "--output",
            app,
            "--identifier",
            "com.example.seed004",
            "--sources",
            packageRoot + "/Tests/Seeds/Seed004",
            "--key",
            key,
            in: world
        )
        #expect(made.status == 0, "\(made.standardError)")
        let point = "com.example.seed004.MyExampleExtensionPoint"
        try FixtureBundles.makeExtension(
            in: app + "/Extensions",
            name: "First",
            bundleIdentifier: "com.example.first",
            extensionPoint: point,
            signedBy: world.team
        )
        let executable = app + "/" + (AppexBundle.load(at: app).info.executableName ?? "")
        let child = try LineChild(executable, ["3"], environment: world.processVariables)
        defer { child.end() }
        func nextLine() async -> String? { await readLines([child], within: 30).first ?? nil }
        #expect(await nextLine() == "snapshot com.example.first")
        #expect(await nextLine() == "update com.example.first")
        try FixtureBundles.makeExtension(
            in: app + "/Extensions",
            name: "Second",
            bundleIdentifier: "com.example.second",
            extensionPoint: point,
            signedBy: world.team
        )
        #expect(await nextLine() == "update com.example.first,com.example.second")
    }

    @Test(
        "seed 000, in Swift with the SDK's names through AppexSalesforce: the app run from its .app sets userLoggedIn in the group; its extension reads it, and reads it change at logout, launched by a host and by the app itself through Configuration(appExtensionIdentity:onInterruption:)"
    )
    func seed000SharesLoginStatus() async throws {
        let world = try AppexTestEnvironment()
        let group = "group.com.salesforce.mobilesyncexplorer"
        let (app, executable) = try await Self.bundleApp(
            "Seed000",
            identifier: "com.salesforce.mobilesyncexplorer",
            point: "RecentContacts",
            extensionName: "RecentContacts",
            entitlements: Entitlements(applicationGroups: [group], keychainAccessGroups: []),
            in: world
        )
        // The app, at startup with a user logged in: the seed's lines need no context of ours.
        let login = try await run(executable, ["app", "login"], environment: world.processVariables)
        #expect(login.status == 0 && login.standardOutput == "userLoggedIn true\n", "\(login.standardError)")

        let found = try ExtensionDiscovery(hostBundleAt: app, environment: world.environment).snapshot().extensions
        let identity = try #require(
            found.first { $0.bundleIdentifier == "com.salesforce.mobilesyncexplorer.recentcontacts" }?.identity
        )
        let process = try await AppExtensionProcess(
            configuration: .init(identity: identity, hostBundlePath: app, environment: world.environment)
        )
        defer { process.invalidate() }
        #expect(try await process.send("userLoggedIn?", expecting: Bool.self) == true)
        let logout = try await run(executable, ["app", "logout"], environment: world.processVariables)
        #expect(logout.status == 0 && logout.standardOutput == "userLoggedIn false\n", "\(logout.standardError)")
        #expect(try await process.send("userLoggedIn?", expecting: Bool.self) == false)
        // The app itself launches it with ExtensionKit's configuration, which names no host path.
        let asked = try await run(executable, ["app", "ask"], environment: world.processVariables)
        #expect(
            asked.status == 0 && asked.standardOutput == "extension says userLoggedIn false\n",
            "\(asked.standardError)"
        )
    }

    struct RefreshRequest: Codable, Sendable {
        var issuer: String
        var clientID: String
    }

    @Test(
        "seed 003 through AppexCurity: the host registers a client from the server's template (DCR) and stores its tokens in the group's defaults; the extension's listing refreshes them as the registered client, against the real server, and writes them back; the registration gone, the server refuses"
    )
    func seed003RefreshesHostToken() async throws {
        try await OAuthServer.start()
        let tests = try ExtensionProcessTests()
        let world = tests.fixture.world
        let group = "group.com.example.app"
        let keychainGroup = "TEAMID.com.example.app.shared"
        let entitlements = Entitlements(applicationGroups: [group], keychainAccessGroups: [keychainGroup])
        let host = ProcessContext(
            bundleIdentifier: HostFixture.hostIdentifier,
            team: world.team.teamIdentifier,
            entitlements: entitlements,
            kind: .hostApp
        )
        let configuration = OAuthConfiguration(
            issuer: OAuthServer.issuer,
            clientID: "swift-public",
            scopes: ["read", "write"],
            appGroup: group,
            keychainAccessGroup: keychainGroup
        )
        let accessor = try HostAccessorBuilder(
            configuration: configuration,
            context: host,
            environment: world.environment
        )
        .option(.oauth).build()
        // The host registers from the template (no grant types of its own: the template's) and
        // runs the flow; then it persists the token response where the extension reads it.
        let notTemplate = await #expect(throws: AppexError.self) {
            try await accessor.login.registerClient(name: "seed003", template: "swift-public")
        }
        #expect(notTemplate?.code == .rejected && notTemplate?.context.oauthError == "invalid_client_metadata")
        let client = try await accessor.login.registerClient(name: "seed003", template: "dcr-template-client-haapi-ios")
        try await accessor.login.password(user: "ada", password: "lovelace")
        let tokens = try #require(try accessor.tokenManager.storedTokens())
        let defaults = try SharedDefaults(group: AppGroup(group, context: host, environment: world.environment))
        try defaults.set(JSONEncoder().encode(tokens), forKey: "haapi.token")

        var values: [String: PropertyListValue] = [:]
        values[Entitlements.Key.networkClient] = .boolean(true)
        let identity = try tests.installEcho(
            id: "com.example.seed003",
            entitlements: Entitlements(
                applicationGroups: [group],
                keychainAccessGroups: [keychainGroup],
                values: values
            ),
            executable: Self.seedExecutable("Seed003")
        )
        let process = try tests.process(identity)
        defer { process.invalidate() }
        let request = RefreshRequest(issuer: OAuthServer.issuer.absoluteString, clientID: "swift-public")
        let before = try await OAuthServer.stats()["\(client.clientID).refresh_token.200"] ?? 0
        #expect(try await process.send(request, expecting: [String].self) == ["successfulToken"])
        #expect(try await OAuthServer.stats()["\(client.clientID).refresh_token.200"] ?? 0 == before + 1)
        let written = try #require(defaults.data(forKey: "haapi.token"))
        let refreshed = try JSONDecoder().decode(TokenSet.self, from: written)
        #expect(refreshed.accessToken != tokens.accessToken && refreshed.refreshToken != tokens.refreshToken)
        var me = URLRequest(url: OAuthServer.issuer.appendingPathComponent("api/me"))
        me.setValue("Bearer \(refreshed.accessToken)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: me)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)

        // Without the registration the extension refreshes as the configuration's own client,
        // which the server refuses for a token of another client's.
        try await accessor.login.deleteRegistration()
        let refused = try await process.send(request, expecting: [String].self)
        #expect(refused.first?.hasPrefix("errorToken invalid_") == true, "\(refused)")
    }

    @Test(
        "seed 002 through AppexSAP: the app onboards its passcode-protected store with the listing's StoreManagerStep; its widget puts a data request carrying the paired key's share; the app's background run (the listing's backgroundSteps, its AuxiliaryCommunicationStep) answers it from the store opened by that share"
    )
    func seed002AnswersDataRequest() async throws {
        try await OAuthServer.start()
        let world = try AppexTestEnvironment()
        let (app, executable) = try await Self.bundleApp(
            "Seed002",
            identifier: "com.example.sapapp",
            point: "SAPWidget",
            extensionName: "BalanceWidget",
            entitlements: Entitlements(
                applicationGroups: ["group.com.example.sap"],
                keychainAccessGroups: ["TEAMID.com.example.sap.shared"]
            ),
            in: world
        )
        func runApp(_ arguments: String...) async throws -> ProcessOutput {
            try await run(executable, ["app"] + arguments, environment: world.processVariables, timeout: 120)
        }
        let onboarded = try await runApp("onboard", "42424242")
        #expect(onboarded.status == 0 && onboarded.standardOutput == "onboarded\n", "\(onboarded.standardError)")
        let issuer = OAuthServer.issuer.absoluteString
        let login = try await runApp("login", issuer)
        #expect(login.status == 0, "\(login.standardError)")

        let found = try ExtensionDiscovery(hostBundleAt: app, environment: world.environment).snapshot().extensions
        let identity = try #require(found.first { $0.bundleIdentifier == "com.example.sapapp.balancewidget" }?.identity)
        let widget = try await AppExtensionProcess(
            configuration: .init(identity: identity, hostBundlePath: app, environment: world.environment)
        )
        defer { widget.invalidate() }
        // The widget's request waits for an app that is not running; its background run answers.
        let answer = Task { try await widget.send("ada", expecting: String.self, timeout: .seconds(60)) }
        // The request is in the group's queue (read as the app, without its key) before the run.
        let queue = AppexStore.AuxiliaryDataRequestManager(
            dataStore: try AuxiliaryDataStore(
                lookingAfter: AppGroup(
                    "group.com.example.sap",
                    context: ProcessContext(bundleAt: app),
                    environment: world.environment
                )
            )
        )
        #expect(await eventually(within: 30) { ((try? queue.listDataRequests()) ?? []).count == 1 })
        let background = try await runApp("background", issuer)
        #expect(background.status == 0 && background.standardOutput == "answered 1\n", "\(background.standardError)")
        #expect(try await answer.value == "1,234.56 EUR onboarded=true")
    }

    @Test(
        "SAP's APIKeyAuthenticationConfig puts its first key in the APIKey header the server reads; without a key the request is unchanged"
    )
    func apiKeyHeader() async throws {
        try await OAuthServer.start()
        let url = OAuthServer.issuer.appendingPathComponent("test/apikey")
        func seen(_ config: APIKeyAuthenticationConfig) async throws -> String? {
            let (data, _) = try await URLSession.shared.data(for: config.authorized(URLRequest(url: url)))
            let seen = try JSONDecoder().decode([String: String?].self, from: data)
            return seen["apiKey"] ?? nil
        }
        let keyed = APIKeyAuthenticationConfig(
            apiKeys: ["k-1", "k-2"],
            isAPIKeyAccessOnly: true,
            allowAnonymousAccessFlag: false
        )
        #expect(try await seen(keyed) == "k-1")
        let none = APIKeyAuthenticationConfig(apiKeys: [], isAPIKeyAccessOnly: false, allowAnonymousAccessFlag: true)
        #expect(try await seen(none) == nil)
    }

    @Test(
        "ExtensionKit's Configuration(appExtensionIdentity:onInterruption:) takes its host from the running app; run from no .app, the launch fails with not-found, saying where it looked"
    )
    func configurationWithoutHostPath() async throws {
        let tests = try ExtensionProcessTests()
        let identity = try tests.installEcho()
        let configuration = AppExtensionProcess.Configuration(appExtensionIdentity: identity, onInterruption: {})
        #expect(configuration.hostBundlePath.isEmpty)  // the test runner is in no .app
        let error = await #expect(throws: AppexError.self) {
            _ = try await AppExtensionProcess(configuration: configuration)
        }
        #expect(error?.code == .notFound, "\(String(describing: error))")
        #expect(error?.message.contains("APPEX_MAIN_BUNDLE") == true, "\(String(describing: error))")
    }
}
