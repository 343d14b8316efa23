import AppexCore
import AppexHost
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

@testable import AppexWindow

/// The window's pages in Debian's Chromium, headless (Selenium and chromium-driver): the real
/// server, the real registry and bundles on disk, and changes made in the page or in a shell.
@Suite(.timed, .tags(.browser)) struct WindowBrowserTests {
    let fixture: HostFixture
    init() throws { fixture = try HostFixture(points: ["HostAppFeature", "Second"]) }

    func browserWindow() async throws -> (TestWindow, Browser) {
        let page = try await ExtensionBrowserPage(
            hostBundleAt: fixture.hostPath,
            environment: fixture.world.environment
        )
        let window = try await TestWindow([page])
        let browser = try await Browser()
        try await browser.open(window.loginURL)
        try await browser.wait(for: "body[data-live='yes']")
        // A mark that a reload would wipe: the page must change without one.
        _ = try await browser.evaluate("window.appexMark = 'kept'; return 1")
        return (window, browser)
    }

    func row(_ bundle: String, _ state: String) -> String {
        "li[data-state='\(state)']:has(input[data-bundle='\(bundle)'])"
    }

    func listed(_ bundle: String) async throws -> String? {
        let output = try await appex("list", "--host", fixture.hostPath, "--json", in: fixture.world)
        #expect(output.status == 0, "\(output.standardError)")
        let all = try JSONDecoder().decode([ListedExtension].self, from: Data(output.standardOutput.utf8))
        return all.first { $0.bundleIdentifier == bundle }?.state
    }

    @Test(
        "the extension browser: a toggle in the page changes what `appex list` shows, and `appex enable` or `disable` in a shell changes the page without a reload"
    )
    func toggleBothWays() async throws {
        try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        try fixture.addExtension("Broken", id: "com.example.broken", inHost: false, unsigned: true)
        let (window, browser) = try await browserWindow()
        _ = window
        try await browser.wait(for: row("com.example.translate", "enabled"), containing: "ships inside the app")
        try await browser.wait(for: row("com.example.summarize", "unapproved"), containing: "not approved")

        try await browser.click("input[data-bundle='com.example.summarize']")
        try await browser.wait(for: row("com.example.summarize", "enabled"))
        #expect(try await listed("com.example.summarize") == "enabled")

        let disabled = try await appex(
            "disable",
            "--host",
            fixture.hostPath,
            "com.example.translate",
            in: fixture.world
        )
        #expect(disabled.status == 0, "\(disabled.standardError)")
        try await browser.wait(for: row("com.example.translate", "disabled"), containing: "the owner disabled it")
        #expect(
            try await browser.evaluate(
                "return document.querySelector(\"input[data-bundle='com.example.translate']\").checked"
            ) == "false"
        )
        let enabled = try await appex("enable", "--host", fixture.hostPath, "com.example.translate", in: fixture.world)
        #expect(enabled.status == 0, "\(enabled.standardError)")
        try await browser.wait(for: row("com.example.translate", "enabled"))
        #expect(try await browser.evaluate("return window.appexMark") == "\"kept\"")
        if let folder = ProcessInfo.processInfo.environment["APPEX_SCREENSHOTS"] {
            try await browser.screenshot(to: folder + "/extension-browser.png")
        }
    }

    @Test(
        "the extension browser: an extension installed on APPEX_EXTENSIONS_PATH appears unapproved without a reload, and once tampered with, invalid with its reason; an invalid one has no toggle"
    )
    func installAndTamper() async throws {
        let (window, browser) = try await browserWindow()
        _ = window
        try await browser.wait(for: "li.empty")
        let path = try fixture.addExtension("Summarize", id: "com.example.summarize", inHost: false)
        try await browser.wait(for: row("com.example.summarize", "unapproved"), containing: "installed from elsewhere")

        try Data("tampered".utf8).write(to: URL(fileURLWithPath: path + "/Info.plist"))
        try await browser.wait(for: "li[data-state='invalid']", containing: "signature")
        #expect(
            try await browser.evaluate(
                "return document.querySelectorAll(\"input[data-bundle='com.example.summarize']\").length"
            ) == "0"
        )
        try FileManager.default.removeItem(atPath: path)
        try await browser.wait(for: "li.empty")
        #expect(try await browser.evaluate("return window.appexMark") == "\"kept\"")
    }

    @Test(
        "the extension browser: an extension named with markup shows the markup as text; no script of it runs and no element of it exists"
    )
    func hostileName() async throws {
        let hostile = "<img src=x onerror=\"window.appexPwned=1\"><script>window.appexPwned=2</script>"
        try FixtureBundles.makeExtension(
            in: fixture.world.searchFolder,
            name: "Hostile",
            bundleIdentifier: "com.example.hostile",
            extensionPoint: HostFixture.point,
            info: ["CFBundleDisplayName": .string(hostile)],
            signedBy: fixture.world.team
        )
        let (window, browser) = try await browserWindow()
        _ = window
        let name = try await browser.wait(for: "li.extension strong.name")
        #expect(name == hostile)
        #expect(try await browser.evaluate("return window.appexPwned === undefined") == "true")
        #expect(try await browser.evaluate("return document.querySelectorAll('main img, main script').length") == "0")
    }

    @Test(
        "after logging in to a window, the browser sends its cookie to no other server on 127.0.0.1 (by any loopback name), and still to the window"
    )
    func cookieStaysWithItsWindow() async throws {
        let (window, browser) = try await browserWindow()
        // Another local server, which records the Host and the cookies of whatever it gets.
        let log = fixture.world.root.appending("other-server.log")
        let portFile = fixture.world.root.appending("other-server.port")
        let other = Process()
        other.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        other.arguments = ["-c", Self.recorder, portFile, log]
        other.standardOutput = FileHandle.nullDevice
        other.standardError = FileHandle.nullDevice
        try other.runWithSignalsUnblocked()
        defer { other.terminate() }
        #expect(await eventually(within: 10) { FileManager.default.fileExists(atPath: portFile) })
        let port = try String(contentsOfFile: portFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let addresses = ["127.0.0.1", "localhost", "other.localhost"].map { "http://\($0):\(port)/" }
        for address in addresses {
            try await browser.open(address)
            try await browser.wait(for: "body", containing: "recorded")
        }
        let recorded = try String(contentsOfFile: log, encoding: .utf8)
        #expect(recorded.split(separator: "\n").count >= addresses.count, "\(recorded)")
        #expect(!recorded.contains("appex-window"), "the other server got the window's cookie: \(recorded)")
        // The browser still holds it for the window's own address.
        try await browser.open(window.origin + "/extensions")
        try await browser.wait(for: "body[data-live='yes']")
    }

    /// A server on a port the kernel picks (written to argument 1) that records each request's
    /// Host and Cookie headers in a file (argument 2) and answers "recorded".
    static let recorder = """
        import http.server, sys
        port_file, log = sys.argv[1], sys.argv[2]
        class Recorder(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                with open(log, "a") as f:
                    f.write("Host: %s Cookie: %s\\n" % (self.headers.get("Host", ""), self.headers.get("Cookie", "")))
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(b"<p>recorded</p>")
            def log_message(self, *arguments):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
        with open(port_file + ".tmp", "w") as f:
            f.write(str(server.server_address[1]))
        import os
        os.rename(port_file + ".tmp", port_file)
        server.serve_forever()
        """

    @Test(
        "End session in the page: the page shows nothing of the window any more and says how to log in again, its next load is refused, and a second browser's session lives on"
    )
    func endSessionInThePage() async throws {
        try fixture.addExtension("Translate", id: "com.example.translate", inHost: true)
        let (window, browser) = try await browserWindow()
        let other = try await window.logInAgain()
        try await browser.wait(for: row("com.example.translate", "enabled"))
        try await browser.click("#end-session")
        try await browser.wait(for: "#window-status", containing: "You ended this session.")
        #expect(try await browser.text(of: "#window-status").contains("SIGUSR1"))
        #expect(try await browser.evaluate("return document.querySelectorAll('main *').length") == "0")
        #expect(try await browser.evaluate("return document.body.dataset.live") == "\"no\"")
        try await browser.open(window.origin + "/extensions")
        try await browser.wait(for: "body", containing: "401 Unauthorized")
        #expect(try await window.request("GET", "/extensions", headers: ["Cookie": other]).status == 200)
    }

    @Test("the extension browser: refusing to enable an invalid extension leaves the registry as it was and says why")
    func refusedToggle() async throws {
        try fixture.addExtension("Broken", id: "com.example.broken", inHost: false, unsigned: true)
        let page = try await ExtensionBrowserPage(
            hostBundleAt: fixture.hostPath,
            environment: fixture.world.environment
        )
        let error = await #expect(throws: AppexError.self) {
            try await page.perform(
                WindowAction(name: "set-enabled", fields: ["bundle": "com.example.broken", "checked": "true"])
            )
        }
        #expect(error?.code == .refused && error?.message.contains("invalid") == true)
        #expect(try fixture.state(of: "com.example.broken") == .invalid)
        let unknown = await #expect(throws: AppexError.self) {
            try await page.perform(WindowAction(name: "delete", fields: ["bundle": "com.example.broken"]))
        }
        #expect(unknown?.code == .invalidValue)
    }
}
