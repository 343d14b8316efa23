import AppexCore
import AppexHost
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

/// Extension points defined in code (`@Definition`), their scope, and seed 004's monitor with no
/// host path.
@Suite(.timed) struct PointDefinitionTests {
    /// The seed host fixture (Tests/Fixtures/AppexFixtureSeedHost).
    static let seedHostExecutable = URL(fileURLWithPath: appexExecutable).deletingLastPathComponent()
        .appendingPathComponent("AppexFixtureSeedHost").path

    @Test(
        "@Definition: Name, UserInterface, EnhancedSecurity, Scope and ResourceLimits make the point's traits; unsaid ones take ExtensionKit's defaults"
    )
    func definitionTraits() {
        let secure = AppExtensionPoint(
            definedBy: [.name("MySecureFeature"), .userInterface(false), .enhancedSecurity(true)],
            host: "com.example.app"
        )
        #expect(secure.identifier == ExtensionPointIdentifier(host: "com.example.app", name: "MySecureFeature"))
        #expect(secure.traits == AppExtensionPoint.Traits(requiresEnhancedSecurity: true, scope: .application))
        let open = AppExtensionPoint(definedBy: [.name("Open"), .scope(.none), .userInterface(true)], host: "h")
        #expect(open.traits == AppExtensionPoint.Traits(presentsUserInterface: true, scope: .none))
        #expect(AppExtensionPoint.testDefined.traits?.resourceLimits.cpuSeconds == 10)
        // The test process runs from no .app: a point defined in code has an empty host part.
        #expect(AppExtensionPoint.testDefined.identifier == ExtensionPointIdentifier(host: "", name: "TestDefined"))
        #expect(AppExtensionPoint.testDefined.traits?.scope == AppExtensionPoint.Scope.Restriction.none)
        // Traits describe, the identifier names: a definition is the point its identifier names.
        let named = AppExtensionPoint(identifier: ExtensionPointIdentifier(host: "", name: "TestDefined"))
        #expect(AppExtensionPoint.testDefined == named)
        #expect(Set([AppExtensionPoint.testDefined, named]).count == 1)
    }

    @Test(
        "a declaration file says its scope under AppexScopeRestriction (default application); a bad value is a problem naming the key"
    )
    func declarationScope() throws {
        let point = AppExtensionPoint(definedBy: [.name("Feature"), .enhancedSecurity(true)], host: "")
        let declaration = ExtensionPointDeclaration(point, host: "com.example.hostapp")
        #expect(declaration.identifier.description == "com.example.hostapp.Feature")
        #expect(declaration.scope == .application)
        #expect(declaration.requiresEnhancedSecurity)
        #expect(declaration.attributes["AppexScopeRestriction"] == .string("application"))
        let open = ExtensionPointDeclaration(
            identifier: ExtensionPointIdentifier(host: "h", name: "P"),
            attributes: ["AppexScopeRestriction": .string("none")]
        )
        #expect(open.scope == AppExtensionPoint.Scope.Restriction.none)

        let fixture = try HostFixture()
        let file = fixture.hostPath + "/ExtensionPoints/HostAppFeature.appextensionpoint"
        try FixtureBundles.write(
            PropertyListFormat.xml.encode([
                HostFixture.point: .dictionary(["AppexScopeRestriction": .string("everyone")])
            ]),
            to: file
        )
        try AppexBundle.sign(at: fixture.hostPath, with: fixture.world.team)
        let problems = AppexBundle.load(at: fixture.hostPath).problems
        #expect(
            problems.contains {
                $0.kind == .invalidValue && $0.key == HostFixture.point + ".AppexScopeRestriction"
                    && $0.message.contains("everyone")
            },
            "\(problems)"
        )
    }

    @Test(
        "a point of application scope (the default) takes extensions inside the app and refuses one from elsewhere by name; scope none lists it unapproved"
    )
    func scopeRestriction() throws {
        let fixture = try HostFixture()
        try fixture.declarePoint([:], scope: .application)
        try fixture.addExtension("Inside", id: "com.example.inside", inHost: true)
        try fixture.addExtension("Outside", id: "com.example.outside", inHost: false)
        var found = try fixture.discovery().snapshot().extensions
        #expect(found.first { $0.bundleIdentifier == "com.example.inside" }?.state == .enabled)
        let outside = try #require(found.first { $0.bundleIdentifier == "com.example.outside" })
        #expect(outside.state == .invalid)
        #expect(
            outside.problems.contains {
                $0.kind == .outsideScope && $0.message.contains("its scope is application")
                    && $0.file.hasSuffix("Outside.appex/Info.plist")
            },
            "\(outside.problems)"
        )

        try fixture.declarePoint([:], scope: AppExtensionPoint.Scope.Restriction.none)
        found = try fixture.discovery().snapshot().extensions
        #expect(found.first { $0.bundleIdentifier == "com.example.outside" }?.state == .unapproved)
    }

    @Test(
        "seed 004: a host app made by `appex bundle --sources` from its @Definition points monitors one with no host path; Observations delivers each change, state counts the rest"
    )
    func seedHostMonitors() async throws {
        let world = try AppexTestEnvironment()
        let key = world.root.appending("team.key")
        try world.team.write(to: key)
        let app = world.root.appending("SeedHost.app")
        let made = try await appex(
            "bundle",
            "--executable",
            Self.seedHostExecutable,
            "--output",
            app,
            "--identifier",
            "com.example.seedhost",
            "--sources",
            packageRoot + "/Tests/Fixtures/AppexFixtureSeedHost",
            "--key",
            key,
            in: world
        )
        #expect(made.status == 0, "\(made.standardError)")
        // Both definitions became declaration files, with their traits.
        let host = AppexBundle.load(at: app)
        #expect(host.problems == [])
        let declared = Dictionary(uniqueKeysWithValues: host.extensionPoints.map { ($0.identifier.name, $0) })
        #expect(declared["MyExampleExtensionPoint"]?.scope == AppExtensionPoint.Scope.Restriction.none)
        #expect(declared["MySecureFeature"]?.requiresEnhancedSecurity == true)
        #expect(declared["MySecureFeature"]?.scope == .application)

        // One extension ships inside the app, one waits outside for approval.
        let point = "com.example.seedhost.MyExampleExtensionPoint"
        try FixtureBundles.makeExtension(
            in: app + "/Extensions",
            name: "Inside",
            bundleIdentifier: "com.example.inside",
            extensionPoint: point,
            signedBy: world.team
        )
        let outside = world.root.appending("Outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        var variables = world.processVariables
        variables["APPEX_EXTENSIONS_PATH"] = outside
        try FixtureBundles.makeExtension(
            in: outside,
            name: "Elsewhere",
            bundleIdentifier: "com.example.elsewhere",
            extensionPoint: point,
            signedBy: world.team
        )

        // The host runs from inside its .app (a copy of the fixture is its executable).
        let child = try LineChild(app + "/" + (host.info.executableName ?? ""), ["2"], environment: variables)
        defer { child.end() }
        func nextLine() async -> String? { await readLines([child], within: 30).first ?? nil }
        #expect(await nextLine() == "point \(point)")
        #expect(await nextLine() == "identities com.example.inside enabled 1 disabled 0 unapproved 1")
        // A second extension installed inside the app: the observation delivers the new list.
        try FixtureBundles.makeExtension(
            in: app + "/Extensions",
            name: "Second",
            bundleIdentifier: "com.example.second",
            extensionPoint: point,
            signedBy: world.team
        )
        #expect(
            await nextLine() == "identities com.example.inside,com.example.second enabled 2 disabled 0 unapproved 1"
        )
    }

    @Test("a program run from no .app has no host to monitor: not-found says where it looked and the override")
    func noMainBundle() async throws {
        let world = try AppexTestEnvironment()
        let ran = try await run(Self.seedHostExecutable, ["1"], environment: world.processVariables)
        #expect(ran.status == 1)
        #expect(ran.standardError.contains("not-found"), "\(ran.standardError)")
        #expect(ran.standardError.contains("APPEX_MAIN_BUNDLE"))
    }
}

extension AppExtensionPoint {
    @Definition
    fileprivate static var testDefined: AppExtensionPoint {
        Name("TestDefined")
        Scope(restriction: .none)
        ResourceLimits(cpuSeconds: 10)
    }
}
