import AppexCore
import AppexFixtureInterfaces
import AppexHost
import AppexTestTiers
import AppexTesting
import AppexVocabulary
import Foundation
import Logging
import Testing

/// A launch checks its own bundle, the host, the search folders' listings and the owner's
/// decisions against the last snapshot, rather than taking a whole new snapshot (which stats
/// every bundle: a host launching n extensions did that n times). Every change that refused a
/// launch before still refuses it, whether it lands within a timestamp tick of the snapshot or
/// long after.
@Suite(.timed) struct LaunchCheckTests {
    /// The refusal of a launch through a discovery whose snapshot was taken before `change`;
    /// `nil` when the launch was allowed. `settled`: the change lands after the snapshot's
    /// timestamps can vouch for what it saw (so the check compares statuses), else at once.
    func launch(
        after change: (HostFixture, ExtensionDiscovery, AppExtensionIdentity) throws -> Void,
        inHost: Bool = true,
        settled: Bool
    ) async throws -> AppexError? {
        let fixture = try HostFixture()
        let tests = ExtensionProcessTests(fixture: fixture)
        let identity = try tests.installEcho(inHost: inHost)
        let discovery = try fixture.discovery()
        if !inHost { try discovery.setEnabled(true, bundleIdentifier: identity.bundleIdentifier) }
        // Past the 20 ms in which a timestamp cannot vouch for a file, then a snapshot that can.
        try await Task.sleep(for: .milliseconds(40))
        _ = try discovery.snapshot()
        let configuration = AppExtensionProcess.Configuration(
            identity: identity,
            hostBundlePath: fixture.hostPath,
            environment: fixture.world.environment,
            logger: Logger(label: "appex.test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        // Before the change, the launch is allowed and the extension answers.
        let before = try await AppExtensionProcess(configuration: configuration, discovery: discovery)
        #expect(try await before.send(EchoRequest(command: "echo", text: "hi"), expecting: EchoReply.self).text == "hi")
        before.invalidate()
        if settled { try await Task.sleep(for: .milliseconds(40)) }
        try change(fixture, discovery, identity)
        if settled { try await Task.sleep(for: .milliseconds(40)) }
        do {
            let after = try await AppExtensionProcess(configuration: configuration, discovery: discovery)
            after.invalidate()
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "a file added to the extension after the snapshot refuses its launch, at once or later",
        arguments: [false, true]
    )
    func tampered(settled: Bool) async throws {
        let error = try await launch(
            after: { _, _, identity in
                try FixtureBundles.write(Data("tampered".utf8), to: identity.bundlePath + "/Info.plist.extra")
            },
            settled: settled
        )
        #expect(error?.code == .refused)
        #expect(error?.message.contains("Info.plist.extra was added after the bundle was signed") == true)
    }

    @Test(
        "a bundle claiming the same identifier, added ahead of it in a search folder after the snapshot, refuses its launch",
        arguments: [false, true]
    )
    func duplicateOnSearchPath(settled: Bool) async throws {
        let error = try await launch(
            after: { fixture, _, _ in
                // "Aaa" sorts before "Echo": the newcomer takes precedence in the same folder.
                try fixture.addExtension("Aaa", id: "com.example.echo", inHost: false)
            },
            inHost: false,
            settled: settled
        )
        #expect(error?.code == .refused)
        #expect(error?.message.contains("Aaa.appex takes precedence") == true, "\(String(describing: error))")
    }

    @Test(
        "the owner disabling it from another process after the snapshot refuses its launch",
        arguments: [false, true]
    )
    func disabledElsewhere(settled: Bool) async throws {
        let error = try await launch(
            after: { fixture, _, identity in
                try fixture.discovery().setEnabled(false, bundleIdentifier: identity.bundleIdentifier)
            },
            settled: settled
        )
        #expect(error?.code == .refused)
        #expect(error?.message.contains("disabled") == true)
    }

    @Test("the extension's bundle removed after the snapshot refuses its launch", arguments: [false, true])
    func removed(settled: Bool) async throws {
        let error = try await launch(
            after: { _, _, identity in try FileManager.default.removeItem(atPath: identity.bundlePath) },
            settled: settled
        )
        #expect(error?.code == .refused)
    }

    @Test("an unrelated bundle added after the snapshot does not refuse the launch")
    func unrelatedNewcomer() async throws {
        let error = try await launch(
            after: { fixture, _, _ in try fixture.addExtension("Other", id: "com.example.other", inHost: true) },
            settled: true
        )
        #expect(error == nil)
    }
}
