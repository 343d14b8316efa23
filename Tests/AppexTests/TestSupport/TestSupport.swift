import AppexCore
import AppexHost
import AppexTesting
import Foundation
import Logging
import Testing

// The helpers the suites share. This file: where things are, the fixture executables, a host
// and its world. The files beside it: the rest, a topic each.

/// The test target's source folder (Tests/AppexTests).
let testSourcesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path

/// The package's root folder (the checkout).
let packageRoot = URL(fileURLWithPath: testSourcesFolder).deletingLastPathComponent().deletingLastPathComponent().path

/// The folder of fixture files committed with the tests.
let fixturesFolder = testSourcesFolder + "/Fixtures"

/// The `appex` executable built beside the test bundle.
let appexExecutable: String = {
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var folder = URL(fileURLWithPath: me).deletingLastPathComponent()
    // On macOS the test bundle is a directory: Foo.xctest/Contents/MacOS/Foo.
    while folder.path != "/" && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("appex").path) {
        folder.deleteLastPathComponent()
    }
    return folder.appendingPathComponent("appex").path
}()

/// A fixture executable (Tests/Fixtures) built beside `appex`.
private func fixtureExecutable(_ name: String) -> String {
    URL(fileURLWithPath: appexExecutable).deletingLastPathComponent().appendingPathComponent(name).path
}

/// The echo extension (Tests/Fixtures/AppexFixtureEcho).
let echoExecutable = fixtureExecutable("AppexFixtureEcho")
/// The fixture extension that uses the host's login status and OAuth session (it links the stores).
let sharedStateExecutable = fixtureExecutable("AppexFixtureShared")
/// The translate extension (Tests/Fixtures/AppexFixtureTranslate).
let translateExecutable = fixtureExecutable("AppexFixtureTranslate")
/// The shared-store process (Tests/Fixtures/AppexFixtureStore).
let storeExecutable = fixtureExecutable("AppexFixtureStore")
/// The token process of the race test (Tests/Fixtures/AppexFixtureAuth).
let authExecutable = fixtureExecutable("AppexFixtureAuth")
/// The UI extension with a translator scene (Tests/Fixtures/AppexFixtureScene).
let sceneExecutable = fixtureExecutable("AppexFixtureScene")
/// The launch-cycle host (Tests/Fixtures/AppexFixtureHost).
let hostExecutable = fixtureExecutable("AppexFixtureHost")

/// Carries a value that is used by one thread at a time across a thread hop.
struct UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// A host app with one point, `com.example.hostapp.HostAppFeature`, and a world to put it in.
struct HostFixture {
    static let hostIdentifier = "com.example.hostapp"
    static let point = "com.example.hostapp.HostAppFeature"

    let world: AppexTestEnvironment
    let hostPath: String

    init(points: [String] = ["HostAppFeature"]) throws {
        world = try AppexTestEnvironment()
        hostPath = world.root.appending("HostApp.app")
        try FixtureBundles.makeHostApp(
            at: hostPath,
            bundleIdentifier: Self.hostIdentifier,
            extensionPoints: points,
            signedBy: world.team
        )
    }

    var hostExtensions: String { hostPath + "/Extensions" }

    /// Declares the host's point `name` again with `attributes` (its sandbox, its limits) and
    /// `scope` (by default, extensions from elsewhere too), and signs the host again.
    func declarePoint(
        _ attributes: [String: PropertyListValue],
        name: String = "HostAppFeature",
        scope: AppExtensionPoint.Scope.Restriction = .none
    ) throws {
        let declaration = ExtensionPointDeclaration(
            identifier: ExtensionPointIdentifier(host: Self.hostIdentifier, name: name),
            scope: scope,
            attributes: attributes
        )
        try FixtureBundles.write(
            PropertyListFormat.xml.encode(declaration.propertyList),
            to: hostPath + "/ExtensionPoints/\(name).appextensionpoint"
        )
        try AppexBundle.sign(at: hostPath, with: world.team)
    }

    /// Adds an extension inside the host (`inHost`) or on the search path, signed by the world's team.
    @discardableResult
    func addExtension(
        _ name: String,
        id: String,
        inHost: Bool,
        point: String = HostFixture.point,
        format: PropertyListFormat = .xml,
        signedBy key: SigningKey? = nil,
        unsigned: Bool = false
    ) throws -> String {
        try FixtureBundles.makeExtension(
            in: inHost ? hostExtensions : world.searchFolder,
            name: name,
            bundleIdentifier: id,
            extensionPoint: point,
            format: format,
            signedBy: unsigned ? nil : (key ?? world.team)
        )
    }

    func discovery() throws -> ExtensionDiscovery {
        try ExtensionDiscovery(hostBundleAt: hostPath, environment: world.environment)
    }

    /// A process for the installed extension `id`, run by this host and logging to `logger`
    /// (nowhere by default). Fails the test, naming `id`, when discovery finds no valid one.
    func process(for id: String, logger: Logger? = nil) throws -> AppExtensionProcess {
        let found = try discovery().snapshot().extensions.first { $0.bundleIdentifier == id }
        let identity = try #require(found?.identity, "no valid extension \(id): \(found?.problems ?? [])")
        var configuration = AppExtensionProcess.Configuration(
            identity: identity,
            hostBundlePath: hostPath,
            environment: world.environment
        )
        if let logger { configuration.logger = logger }
        return try AppExtensionProcess(configuration: configuration)
    }

    func state(of id: String) throws -> DiscoveredExtension.State? {
        try discovery().snapshot().extensions.first {
            $0.bundleIdentifier == id && !$0.problems.contains { $0.kind == .duplicateBundleIdentifier }
        }?.state
    }
}

/// One extension as `appex list --json` prints it.
struct ListedExtension: Decodable {
    var bundleIdentifier: String?
    var extensionPoint: String?
    var state: String
    var path: String
    var team: String?
    var problems: [String]
}
