import AppexTestTiers
import AppexTesting
import AppexVocabulary
import Foundation
import Testing

@testable import AppexWindow

/// `appex browse --host APP.app`: the extension browser of any host, as a window of its own.
@Suite(.timed) struct BrowseCommandTests {
    @Test(
        "`appex browse --host` serves the host's extension browser: its link logs in once, the page lists the host's extensions, a toggle approves one as `appex enable` does, and SIGTERM stops it"
    )
    func browseServesTheHostsExtensions() async throws {
        let fixture = try HostFixture()
        try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        // AppexWindow's article's line (`appex browse --host /opt/MyApp.app`), with this test's host for the example's path.
        let child = try LineChild(
            appexExecutable,
            ["browse", "--host", fixture.hostPath],
            environment: fixture.world.processVariables
        )
        // Ended however the test ends (a failed #require included): SIGTERM, then SIGKILL after 10 s.
        var stopped = false
        defer {
            if !stopped {
                kill(child.pid, SIGTERM)
                child.end()
            }
        }
        let link = try #require(await readLines([child], within: 30).first ?? nil)
        let window = try TestWindow(attachingTo: link)
        let cookie = try await window.logIn()
        #expect(try await window.request("GET", window.loginPath).status == 403)
        let page = try await window.request("GET", "/", headers: ["Cookie": cookie])
        #expect(page.status == 200 && page.body.contains("com.example.summarize"), "\(page.body.prefix(500))")
        #expect(try fixture.state(of: "com.example.summarize") == .unapproved)
        let toggled = try await window.request(
            "POST",
            "/action",
            headers: [
                "Cookie": cookie, "Origin": window.origin, "X-Appex-CSRF": try await window.csrf(cookie: cookie),
            ],
            body: "page=%2F&action=set-enabled&bundle=com.example.summarize&checked=true"
        )
        #expect(toggled.status == 204, "\(toggled.body)")
        #expect(try fixture.state(of: "com.example.summarize") == .enabled)
        kill(child.pid, SIGTERM)
        #expect(await readLines([child], within: 10).first == "extension browser stopped")
        child.end()
        stopped = true
    }

    @Test("`appex browse` for a folder that is no host app fails saying so, and serves nothing")
    func browseRefusesANonHost() async throws {
        let world = try AppexTestEnvironment()
        let missing = world.root.appending("Nowhere.app")
        let output = try await run(
            appexExecutable,
            ["browse", "--host", missing],
            environment: world.processVariables,
            timeout: 30
        )
        #expect(output.status != 0)
        #expect(output.standardOutput.isEmpty, "\(output.standardOutput)")
        #expect(output.standardError.hasPrefix("appex: "), "\(output.standardError)")
        #expect(output.standardError.contains("Nowhere.app"), "\(output.standardError)")
    }
}
