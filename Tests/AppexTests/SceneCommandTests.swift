import AppexCore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

/// `appex scene`: a UI extension's scene tried from a shell, with no host written: opened as its
/// host would, driven by events, drawn after each; a refusal named.
@Suite(.timed) struct SceneCommandTests {
    let fixture: HostFixture
    init() throws { fixture = try HostFixture(points: ["HostAppFeature", "SceneFeature"]) }

    func install() throws { try SceneTests.installTranslator(in: fixture) }

    @Test("`appex scene` opens a scene with its parameters, sends each --event in order and draws the scene after each")
    func drivesTheScene() async throws {
        try install()
        let result = try await appex(
            "scene",
            "--host",
            fixture.hostPath,
            "com.example.scenetranslator",
            "translate",
            "--parameter",
            "note=Thanks",
            "--event",
            "choose:0:1",
            "--event",
            "toggle:1",
            "--event",
            "text:2:Ada",
            "--event",
            "tap:3",
            in: fixture.world
        )
        #expect(result.status == 0, "\(result.standardError)")
        let drawings = result.standardOutput.components(separatedBy: "after ")
        #expect(drawings.count == 5, "\(result.standardOutput)")
        #expect(drawings.first?.contains("Thanks") == true && drawings.first?.contains("╭") == true)
        #expect(drawings.last?.hasPrefix("tap:3:") == true)
        #expect(drawings.last?.contains("Copied 1 times") == true, "\(drawings.last ?? "")")
        #expect(drawings.last?.contains("[fr] Thanks (formal) — Ada") == true, "\(drawings.last ?? "")")
    }

    @Test("`appex scene` names a refusal (a control the scene does not show, an event it cannot read) and exits 1")
    func refusalIsNamed() async throws {
        try install()
        let missing = try await appex(
            "scene",
            "--host",
            fixture.hostPath,
            "com.example.scenetranslator",
            "translate",
            "--event",
            "tap:99",
            in: fixture.world
        )
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("not-found"), "\(missing.standardError)")
        let unread = try await appex(
            "scene",
            "--host",
            fixture.hostPath,
            "com.example.scenetranslator",
            "translate",
            "--event",
            "press:1",
            in: fixture.world
        )
        #expect(unread.status == 1)
        #expect(unread.standardError.contains("--event press:1 is not"), "\(unread.standardError)")
    }
}
