import AppexCore
import AppexHost
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

@Suite(.timed) struct DiscoveryTests {
    let fixture: HostFixture
    init() throws { fixture = try HostFixture() }

    @Test("an extension inside the host is enabled by default; one from the search path is unapproved")
    func defaultStates() throws {
        try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        let snapshot = try fixture.discovery().snapshot()
        #expect(snapshot.extensions.map(\.bundleIdentifier) == ["com.example.summarize", "com.example.translate"])
        #expect(snapshot.extensions.map(\.state) == [.unapproved, .enabled])
        #expect(snapshot.extensions.map(\.origin) == [.searchPath, .host])
        let identity = try #require(snapshot.extensions[1].identity)
        #expect(identity.bundleIdentifier == "com.example.translate")
        #expect(identity.extensionPointIdentifier.description == HostFixture.point)
        #expect(identity.hostBundleIdentifier == HostFixture.hostIdentifier)
        #expect(identity.teamIdentifier == fixture.world.team.teamIdentifier)
        #expect(identity.localizedName == "Translate")
    }

    @Test("every state transition: unapproved → enabled → disabled → enabled, and host ones disabled → enabled")
    func transitions() throws {
        try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        let discovery = try fixture.discovery()
        try discovery.setEnabled(true, bundleIdentifier: "com.example.summarize")
        #expect(try fixture.state(of: "com.example.summarize") == .enabled)
        try discovery.setEnabled(false, bundleIdentifier: "com.example.summarize")
        #expect(try fixture.state(of: "com.example.summarize") == .disabled)
        try discovery.setEnabled(true, bundleIdentifier: "com.example.summarize")
        #expect(try fixture.state(of: "com.example.summarize") == .enabled)

        try discovery.setEnabled(false, bundleIdentifier: "com.example.translate")
        #expect(try fixture.state(of: "com.example.translate") == .disabled)
        try discovery.setEnabled(true, bundleIdentifier: "com.example.translate")
        #expect(try fixture.state(of: "com.example.translate") == .enabled)
    }

    @Test("decisions persist across restarts and are kept per host")
    func persistence() throws {
        try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        try fixture.discovery().setEnabled(true, bundleIdentifier: "com.example.summarize")
        // A fresh discovery (a restarted host) sees the decision.
        #expect(try fixture.state(of: "com.example.summarize") == .enabled)
        // Another host that also declares the point does not inherit it.
        let otherHost = fixture.world.root.appending("Other.app")
        try FixtureBundles.makeHostApp(
            at: otherHost,
            bundleIdentifier: "com.example.hostapp2",
            extensionPoints: ["HostAppFeature"],
            signedBy: fixture.world.team
        )
        try FixtureBundles.makeExtension(
            in: fixture.world.searchFolder,
            name: "Summarize2",
            bundleIdentifier: "com.example.summarize2",
            extensionPoint: "com.example.hostapp2.HostAppFeature",
            signedBy: fixture.world.team
        )
        let other = try ExtensionDiscovery(hostBundleAt: otherHost, environment: fixture.world.environment).snapshot()
        #expect(other.extensions.map(\.bundleIdentifier) == ["com.example.summarize2"])
        #expect(other.extensions.map(\.state) == [.unapproved])
    }

    @Test("the registry files are private to the user")
    func registryPermissions() throws {
        _ = try fixture.discovery()
        let env = fixture.world.environment
        let dirMode = try #require(
            FileManager.default.attributesOfItem(atPath: env.registryDirectory)[.posixPermissions] as? Int
        )
        let fileMode = try #require(
            FileManager.default.attributesOfItem(atPath: env.registryPath)[.posixPermissions] as? Int
        )
        #expect(dirMode == 0o700)
        #expect(fileMode == 0o600)
    }

    @Test("an approval holds for the team that was approved; a new team's signature needs approval again")
    func approvalIsPerTeam() throws {
        let path = try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        try fixture.discovery().setEnabled(true, bundleIdentifier: "com.example.summarize")
        try AppexBundle.sign(at: path, with: SigningKey.generate())
        let found = try #require(try fixture.discovery().snapshot().extensions.first)
        #expect(found.state == .unapproved)
        #expect(found.note?.contains("approved when signed by team \(fixture.world.team.teamIdentifier)") == true)
    }

    @Test("unsigned and tampered extensions are invalid with the reason and can never be enabled")
    func invalidNeverEnabled() throws {
        try fixture.addExtension("Unsigned", id: "com.example.unsigned", inHost: true, unsigned: true)
        let tampered = try fixture.addExtension("Tampered", id: "com.example.tampered", inHost: false)
        try FixtureBundles.write(Data("evil".utf8), to: tampered + "/Extension")
        let discovery = try fixture.discovery()
        let snapshot = try discovery.snapshot()
        #expect(snapshot.extensions.map(\.state) == [.invalid, .invalid])
        #expect(snapshot.extensions.allSatisfy { $0.identity == nil })
        #expect(snapshot.extensions[0].problems.map(\.kind) == [.fileModified])
        #expect(snapshot.extensions[1].problems.map(\.kind) == [.unsigned])

        let error = try #require(throws: AppexError.self) {
            try discovery.setEnabled(true, bundleIdentifier: "com.example.tampered")
        }
        #expect(error.code == .refused)
        #expect(error.description.contains("Extension was modified after the bundle was signed"))
        #expect(try fixture.state(of: "com.example.tampered") == .invalid)
    }

    @Test("an unknown bundle identifier is a notFound error naming it and where it looked")
    func unknownIdentifier() throws {
        let error = try #require(throws: AppexError.self) {
            try fixture.discovery().setEnabled(true, bundleIdentifier: "com.example.nothing")
        }
        #expect(error.code == .notFound)
        #expect(error.message.contains("com.example.nothing"))
        #expect(error.message.contains(fixture.world.searchFolder))
    }

    @Test("two bundles with one identifier: the one inside the host wins, the other is invalid and says why")
    func duplicates() throws {
        let inside = try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        let outside = try fixture.addExtension("AlsoTranslate", id: "com.example.translate", inHost: false)
        let snapshot = try fixture.discovery().snapshot()
        let winner = try #require(snapshot.extensions.first { $0.path == inside })
        let loser = try #require(snapshot.extensions.first { $0.path == outside })
        #expect(winner.state == .enabled)
        #expect(loser.state == .invalid)
        #expect(loser.problems.map(\.kind) == [.duplicateBundleIdentifier])
        #expect(loser.problems.first?.message.contains(inside) == true)
    }

    @Test("between two search-path bundles with one identifier, search-path order decides")
    func duplicatesOnSearchPath() throws {
        let first = fixture.world.root.appending("First")
        try FileManager.default.createDirectory(atPath: first, withIntermediateDirectories: true)
        let a = try FixtureBundles.makeExtension(
            in: first,
            name: "Z",
            bundleIdentifier: "com.example.dup",
            extensionPoint: HostFixture.point,
            signedBy: fixture.world.team
        )
        let b = try fixture.addExtension("A", id: "com.example.dup", inHost: false)
        var environment = fixture.world.environment
        environment.extensionSearchPath = [first, fixture.world.searchFolder]
        let snapshot = try ExtensionDiscovery(hostBundleAt: fixture.hostPath, environment: environment).snapshot()
        #expect(snapshot.extensions.first { $0.path == a }?.state == .unapproved)
        #expect(snapshot.extensions.first { $0.path == b }?.state == .invalid)
    }

    @Test("an extension bound to an undeclared point of this host is invalid; another host's extensions are not listed")
    func pointsDecideBelonging() throws {
        try fixture.addExtension("Wrong", id: "com.example.wrong", inHost: true, point: "com.example.hostapp.Nope")
        try fixture.addExtension("Foreign", id: "com.example.foreign", inHost: false, point: "com.other.app.Feature")
        let snapshot = try fixture.discovery().snapshot()
        #expect(snapshot.extensions.map(\.bundleIdentifier) == ["com.example.wrong"])
        #expect(snapshot.extensions[0].problems.map(\.kind) == [.undeclaredExtensionPoint])
    }

    @Test("other apps' bundles and standalone .appex paths on APPEX_EXTENSIONS_PATH are searched")
    func searchPathShapes() throws {
        let otherApp = fixture.world.searchFolder + "/Other.app"
        try FixtureBundles.makeHostApp(
            at: otherApp,
            bundleIdentifier: "com.other.app",
            extensionPoints: [],
            signedBy: fixture.world.team
        )
        try FixtureBundles.makeExtension(
            in: otherApp + "/Extensions",
            name: "Plugin",
            bundleIdentifier: "com.other.plugin",
            extensionPoint: HostFixture.point,
            signedBy: fixture.world.team
        )
        let standalone = fixture.world.root.appending("Loose")
        try FileManager.default.createDirectory(atPath: standalone, withIntermediateDirectories: true)
        let loose = try FixtureBundles.makeExtension(
            in: standalone,
            name: "Loose",
            bundleIdentifier: "com.example.loose",
            extensionPoint: HostFixture.point,
            signedBy: fixture.world.team
        )
        var environment = fixture.world.environment
        environment.extensionSearchPath.append(loose)
        let snapshot = try ExtensionDiscovery(hostBundleAt: fixture.hostPath, environment: environment).snapshot()
        #expect(snapshot.extensions.map(\.bundleIdentifier) == ["com.example.loose", "com.other.plugin"])
        #expect(snapshot.extensions.allSatisfy { $0.state == .unapproved })
    }

    @Test("an invalid host is refused with its problems")
    func invalidHost() throws {
        try FixtureBundles.write(Data("x".utf8), to: fixture.hostPath + "/extra")
        let error = try #require(throws: AppexError.self) { try fixture.discovery() }
        #expect(error.code == .invalidBundle)
        #expect(error.problems.map(\.kind) == [.fileAdded])
        #expect(error.message.contains(fixture.hostPath))
    }

    @Test("doctor explains each reason an extension is unavailable")
    func diagnosis() throws {
        try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        try fixture.addExtension("Foreign", id: "com.example.foreign", inHost: false, point: "com.other.app.Feature")
        let tampered = try fixture.addExtension("Tampered", id: "com.example.tampered", inHost: true)
        try FileManager.default.removeItem(atPath: tampered + "/Extension")
        let discovery = try fixture.discovery()

        var diagnosis = try discovery.diagnose(bundleIdentifier: "com.example.summarize")
        #expect(!diagnosis.isAvailable)
        #expect(diagnosis.description.contains("not approved"))
        #expect(diagnosis.description.contains("appex enable"))

        try discovery.setEnabled(true, bundleIdentifier: "com.example.summarize")
        diagnosis = try discovery.diagnose(bundleIdentifier: "com.example.summarize")
        #expect(diagnosis.isAvailable)

        try discovery.setEnabled(false, bundleIdentifier: "com.example.summarize")
        #expect(
            try discovery.diagnose(bundleIdentifier: "com.example.summarize").description.contains(
                "the owner disabled it"
            )
        )

        diagnosis = try discovery.diagnose(bundleIdentifier: "com.example.foreign")
        #expect(diagnosis.description.contains("belongs to host com.other.app"))

        diagnosis = try discovery.diagnose(bundleIdentifier: "com.example.tampered")
        #expect(diagnosis.description.contains("signature:"))
        #expect(diagnosis.description.contains("Extension was removed after the bundle was signed"))
        #expect(diagnosis.description.contains("executable:"))

        diagnosis = try discovery.diagnose(bundleIdentifier: "com.example.nowhere")
        #expect(diagnosis.description.contains("no bundle with that identifier was found"))
        #expect(diagnosis.description.contains(fixture.world.searchFolder))
    }

    @Test("a second snapshot reuses unchanged bundles and notices a changed one")
    func warmCache() throws {
        let path = try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        let discovery = try fixture.discovery()
        #expect(try discovery.snapshot().extensions.first?.state == .enabled)
        #expect(try discovery.snapshot().extensions.first?.state == .enabled)
        try FixtureBundles.write(Data("changed".utf8), to: path + "/Extension")
        #expect(try discovery.snapshot().extensions.first?.state == .invalid)
    }
}
