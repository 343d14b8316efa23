import AppexCore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

/// `appex bundle` and `appex sign` check what they make as `appex validate` does, and never print
/// success for a bundle it refuses: the problem is named, the exit code is 1, and nothing at the
/// destination changes.
@Suite(.timed) struct BundleCommandValidationTests {
    /// A team key written to `world`'s folder, and an app there declaring `com.example.maker.Translate`.
    static func app(in world: AppexTestEnvironment) async throws -> (key: String, app: String) {
        let key = world.root.appending("team.key")
        try world.team.write(to: key)
        let app = world.root.appending("Maker.app")
        let made = try await appex(
            "bundle",
            "--executable",
            widgetAppExecutable,
            "--output",
            app,
            "--identifier",
            "com.example.maker",
            "--extension-point",
            "Translate",
            "--key",
            key,
            in: world
        )
        try #require(made.status == 0, "\(made.standardError)")
        return (key, app)
    }

    @Test(
        "an extension bound to a point its app does not declare is not made in the app: exit 1 naming the point and the points declared, nothing written, a bundle it was to replace unchanged"
    )
    func undeclaredPointRefused() async throws {
        let world = try AppexTestEnvironment(prefix: "appex-bundle-check")
        let (key, app) = try await Self.app(in: world)
        let output = app + "/Extensions/Echo.appex"
        func bundle(_ binding: String, force: Bool = false) async throws -> ProcessOutput {
            let arguments = [
                "bundle", "--executable", echoExecutable, "--output", output, "--binding", binding, "--key", key,
                "--identifier", "com.example.maker.echo",
            ]
            return try await run(
                appexExecutable,
                arguments + (force ? ["--force"] : []),
                environment: world.processVariables
            )
        }
        let refused = try await bundle("com.example.maker.Missing")
        #expect(refused.status == 1)
        #expect(!refused.standardOutput.contains("made "), "\(refused.standardOutput)")
        #expect(refused.standardError.contains("invalid-bundle"), "\(refused.standardError)")
        #expect(
            refused.standardError.contains(
                "\(output)/Info.plist: extension point com.example.maker.Missing is not declared by host com.example.maker (it declares: com.example.maker.Translate)"
            ),
            "\(refused.standardError)"
        )
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try FileManager.default.contentsOfDirectory(atPath: app + "/Extensions") == [])

        // A valid one is made and says what it is; replacing it with an invalid one changes nothing.
        let made = try await bundle("com.example.maker.Translate")
        #expect(made.status == 0, "\(made.standardError)")
        #expect(
            made.standardOutput
                == "made \(output): com.example.maker.echo binds to com.example.maker.Translate, signed\n"
        )
        let before = try Data(contentsOf: URL(fileURLWithPath: output + "/Info.plist"))
        let replaced = try await bundle("com.example.maker.Missing", force: true)
        #expect(replaced.status == 1)
        #expect(replaced.standardError.contains("(the bundle there is unchanged)"), "\(replaced.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output + "/Info.plist")) == before)
        let validated = try await appex("validate", app, in: world)
        #expect(validated.status == 0, "\(validated.standardOutput)")
    }

    @Test("an executable the bundle could not run is refused by name, with no bundle made")
    func notExecutableRefused() async throws {
        let world = try AppexTestEnvironment(prefix: "appex-bundle-check")
        let script = world.root.appending("Plain")
        try Data("not a program\n".utf8).write(to: URL(fileURLWithPath: script))
        let output = world.root.appending("Plain.appex")
        let refused = try await appex(
            "bundle",
            "--executable",
            script,
            "--output",
            output,
            "--binding",
            "com.example.host.Feature",
            in: world
        )
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("\(output)/Plain"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test(
        "sign refuses a bundle with a problem a seal does not mend, writing no seal; a signed bundle that validate accepts is reported signed"
    )
    func signChecksTheBundle() async throws {
        let world = try AppexTestEnvironment(prefix: "appex-bundle-check")
        let (key, app) = try await Self.app(in: world)
        let output = app + "/Extensions/Echo.appex"
        let made = try await appex(
            "bundle",
            "--executable",
            echoExecutable,
            "--output",
            output,
            "--binding",
            "com.example.maker.Translate",
            in: world
        )
        #expect(made.status == 0, "\(made.standardError)")
        #expect(made.standardOutput.hasSuffix("binds to com.example.maker.Translate (unsigned)\n"))
        // Its executable loses its execute bit: no seal makes that runnable.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: output + "/AppexFixtureEcho")
        let refused = try await appex("sign", output, "--key", key, in: world)
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("was not signed"), "\(refused.standardError)")
        #expect(refused.standardError.contains("\(output)/AppexFixtureEcho"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: output + "/_CodeSignature"))

        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: output + "/AppexFixtureEcho")
        let signed = try await appex("sign", output, "--key", key, in: world)
        #expect(signed.status == 0, "\(signed.standardError)")
        #expect(signed.standardOutput.hasPrefix("signed \(output) for team \(world.team.teamIdentifier)"))
        #expect(AppexBundle.load(at: output).problems == [])
    }
}
