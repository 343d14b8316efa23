import AppexCore
import AppexTestTiers
import AppexTesting
import AppexWidgetHost
import AppexWidgetKit
import Foundation
import Testing

@testable import AppexWindow

/// The widget desktop (`appex widgets serve`'s pages) in Debian's Chromium, headless: the real
/// widget host launching the fixture widgets, the real registry, the containing app opened by a
/// tap, and changes made in the page or in a shell.
@Suite(.timed, .tags(.browser)) struct WidgetDesktopTests {
    let widgets: WidgetWorld
    init() throws { widgets = try WidgetWorld() }

    func tile(_ kind: String) -> String { "section.widget-tile[data-widget^='\(kind) ']" }

    func open() async throws -> (TestWindow, Browser, WidgetDesktop) {
        let desktop = WidgetDesktop(host: try widgets.host())
        let window = try await TestWindow(desktop.pages)
        let browser = try await Browser(width: 1200, height: 900)
        try await browser.open(window.loginURL)
        try await browser.wait(for: "body[data-live='yes']")
        _ = try await browser.evaluate("window.appexMark = 'kept'; return 1")
        return (window, browser, desktop)
    }

    /// AtEnd's entries are a second apart (and it reloads at its last): the entry shown now
    /// gives way to the next by itself, within a second of that one's date.
    func expectNextEntry(in browser: Browser) async throws {
        let shown = try await browser.wait(
            for: "\(tile("AtEnd")) .font-headline",
            containing: "AtEnd fetch",
            within: 30
        )
        try await browser.waitUntilGone("\(tile("AtEnd")) .font-headline", containing: shown, within: 2.2)
    }

    @Test(
        "the widget desktop: every enabled widget shows at its family's size, a new entry reaches the page by itself within 1 s of its date, a WidgetCenter reload shows the next timeline, and a tap opens the containing app with the link tapped"
    )
    func liveDesktop() async throws {
        let (window, browser, desktop) = try await open()
        _ = (window, desktop)
        try await expectNextEntry(in: browser)
        try await browser.wait(for: tile("Steady"), containing: "Steady fetch 1")
        let size = try await browser.evaluate(
            "const r = document.querySelector(\"\(tile("Steady")) article\").getBoundingClientRect(); return Math.round(r.width) + 'x' + Math.round(r.height)"
        )
        #expect(size == "\"170x170\"", "a systemSmall widget's size")

        let reload = try await widgets.appRequestsReload("Steady")
        #expect(reload.status == 0, "\(reload.standardError)")
        try await browser.wait(for: tile("Steady"), containing: "Steady fetch 2", within: 10)

        try await browser.click("\(tile("Steady")) [data-open-url]")
        let opened = widgets.environment.home + "/opened-url"
        #expect(
            await eventually(within: 10) {
                (try? String(contentsOfFile: opened, encoding: .utf8)) == "fixture://widget/Steady?fetch=2"
            },
            "the app was not opened with the link tapped"
        )
        #expect(try await browser.evaluate("return window.appexMark") == "\"kept\"")
        if let folder = ProcessInfo.processInfo.environment["APPEX_SCREENSHOTS"] {
            try await browser.screenshot(to: folder + "/widget-desktop.png")
        }
    }

    @Test(
        "a widget written in C (Examples/Polyglot/C/widget.c, libc only), bundled and signed as a Swift one, shows on appex widgets show and on the widget desktop in Chromium"
    )
    func widgetInC() async throws {
        let executable = widgets.world.root.appending("CWidget")
        let compiled = try await run(
            try #require(ConformanceTests.compiler, "no C compiler (clang or cc) on PATH"),
            ["-O2", "-Wall", "-Werror", "-o", executable, ConformanceTests.polyglot("C/widget.c")],
            environment: widgets.processVariables
        )
        #expect(compiled.status == 0, "\(compiled.standardError)")
        let key = widgets.world.root.appending("team.key")
        try widgets.world.team.write(to: key)
        let made = try await run(
            appexExecutable,
            [
                "bundle", "--executable", executable, "--output", widgets.app + "/Extensions/CWidget.appex",
                "--identifier", "com.example.fixtureapp.cwidget", "--binding", "com.apple.widgetkit-extension",
                "--key", key,
            ],
            environment: widgets.processVariables
        )
        #expect(made.status == 0, "\(made.standardError)")

        let shown = try await run(
            appexExecutable,
            ["widgets", "show", "CHello"],
            environment: widgets.processVariables
        )
        #expect(shown.status == 0, "\(shown.standardError)")
        #expect(shown.standardOutput.contains("C hello"), "\(shown.standardOutput)")
        #expect(shown.standardOutput.contains("Hello from C"), "\(shown.standardOutput)")
        #expect(shown.standardOutput.contains("libc only, pid"), "\(shown.standardOutput)")

        let (window, browser, desktop) = try await open()
        _ = (window, desktop)
        try await browser.wait(for: tile("CHello"), containing: "Hello from C", within: 30)
        try await browser.wait(for: tile("CHello"), containing: "libc only, pid")
        if let folder = ProcessInfo.processInfo.environment["APPEX_SCREENSHOTS"] {
            try await browser.screenshot(to: folder + "/widget-desktop-c.png")
        }
    }

    @Test(
        "after the window stops, the page says so in words within 5 s, marks it once (in its header, in no tile), and a tap sends nothing and shows no browser error"
    )
    func stoppedWindow() async throws {
        let (window, browser, desktop) = try await open()
        _ = desktop
        try await browser.wait(for: tile("Steady"), containing: "Steady fetch 1", within: 30)
        window.stop()
        let said = try await browser.wait(
            for: "#window-status",
            containing:
                "The window stopped: its server is no longer running. Open the link it prints when it starts again.",
            within: 5
        )
        #expect(!said.contains("TypeError"), "\(said)")
        let marked = try await browser.evaluate(
            "return [...document.querySelectorAll('header')].filter(h => getComputedStyle(h, '::after').content.includes('stopped')).length"
        )
        #expect(marked == "1", "headers marked stopped: \(marked)")

        // Another process takes the dead window's port, ready to stream a fake page to it and to
        // take whatever it sends: the page asks it for nothing, shows nothing of it, and a tap
        // sends it nothing.
        let log = widgets.world.root.appending("taker.log")
        let taker = Process()
        taker.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        taker.arguments = ["-c", Self.portTaker, "\(window.port)", log]
        taker.standardOutput = FileHandle.nullDevice
        taker.standardError = FileHandle.nullDevice
        try taker.runWithSignalsUnblocked()
        defer { taker.terminate() }
        #expect(await eventually(within: 10) { FileManager.default.fileExists(atPath: log) }, "the port was not taken")
        try await Task.sleep(for: .seconds(5))  // EventSource retries after 3 s when it may
        _ = try await browser.evaluate("document.getElementById('window-status').textContent = ''; return 1")
        try await browser.click("\(tile("Steady")) [data-open-url]")
        let again = try await browser.wait(for: "#window-status", containing: "The window stopped")
        #expect(!again.contains("TypeError"), "\(again)")
        try await Task.sleep(for: .seconds(1))
        let body = try await browser.evaluate("return document.body.textContent")
        #expect(!body.contains("FAKE"), "\(body)")
        let asked = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(asked.isEmpty, "the page sent the port's new owner: \(asked)")
    }

    /// A server that takes a port (argument 1), records every request it gets in a file
    /// (argument 2, made once it listens) and answers an event stream with a fake page.
    static let portTaker = """
        import http.server, sys, time
        port, log = int(sys.argv[1]), sys.argv[2]
        class Taker(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                with open(log, "a") as f:
                    f.write(self.command + " " + self.path + " " + self.headers.get("Cookie", "") + "\\n")
                self.send_response(200)
                if self.path.startswith("/events"):
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    self.wfile.write(b'event: replace\\ndata: {"id":"page","html":"<main id=\\\\"page\\\\">FAKE sign in</main>"}\\n\\n')
                    self.wfile.flush()
                    time.sleep(30)
                else:
                    self.send_header("Content-Type", "text/html")
                    self.end_headers()
                    self.wfile.write(b"<main id=page>FAKE</main>")
            do_POST = do_GET
            def log_message(self, *arguments):
                pass
        http.server.ThreadingHTTPServer.allow_reuse_address = True
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Taker)
        open(log, "a").close()
        server.serve_forever()
        """

    @Test("the widget desktop's first page, opened as the host starts, already shows its widgets (it waits for them)")
    func firstPageWaits() async throws {
        let desktop = WidgetDesktop(host: try widgets.host())
        let window = try await TestWindow(desktop.pages)
        let cookie = try await window.logIn()
        let page = try await window.request("GET", "/", headers: ["Cookie": cookie])
        #expect(page.status == 200)
        #expect(page.body.contains("class=\"widget-tile\"") && !page.body.contains("Loading widgets"))
    }

    @Test(
        "an empty widget desktop (no widget installed) answers its first page at once and says how to add a widget, not \"Loading\""
    )
    func emptyDesktopAnswersAtOnce() async throws {
        try FileManager.default.removeItem(atPath: widgets.app + "/Extensions/FixtureWidgets.appex")
        let desktop = WidgetDesktop(host: try widgets.host())
        let window = try await TestWindow(desktop.pages)
        let cookie = try await window.logIn()
        let started = ContinuousClock.now
        let page = try await window.request("GET", "/", headers: ["Cookie": cookie])
        let waited = ContinuousClock.now - started
        #expect(page.status == 200)
        // It waited for the host's first (empty) states, not DesktopModel's 10-s limit.
        #expect(waited < .seconds(3), "the first page took \(waited)")
        #expect(!page.body.contains("Loading widgets"), "\(page.body)")
        #expect(page.body.contains("No widget is installed. Make one with appex new widget NAME"), "\(page.body)")
        // Its icon is in the document: a browser asks for no /favicon.ico (a 404 in its log).
        #expect(page.body.contains("<link rel=\"icon\" href=\"data:image/svg+xml,"), "\(page.body)")
    }

    @Test(
        "the widget desktop follows the system's theme: a light or a dark wallpaper and page, the widgets themselves light in both, as on a home screen"
    )
    func lightAndDark() async throws {
        let desktop = WidgetDesktop(host: try widgets.host())
        let window = try await TestWindow(desktop.pages)
        for dark in [false, true] {
            let link = dark ? try #require(window.server?.newLoginURL()?.absoluteString) : window.loginURL
            let browser = try await Browser(width: 1200, height: 760, dark: dark)
            try await browser.open(link)
            try await browser.wait(for: "\(tile("Steady")) footer.tile-label")
            #expect(
                try await browser.evaluate("return matchMedia('(prefers-color-scheme: dark)').matches") == "\(dark)"
            )
            let wallpaper = try await browser.evaluate(
                "return getComputedStyle(document.getElementById('desktop')).backgroundImage"
            )
            // The gradient's first colour: #1c2a4a in the dark, #8fb8f0 in the light.
            #expect(wallpaper.contains(dark ? "rgb(28, 42, 74)" : "rgb(143, 184, 240)"), "\(wallpaper)")
            let page = try await browser.evaluate("return getComputedStyle(document.body).backgroundColor")
            let widget = try await browser.evaluate(
                "return getComputedStyle(document.querySelector(\"\(tile("Steady")) .widget\")).backgroundColor"
            )
            #expect(widget == "\"rgb(255, 255, 255)\"", "\(widget)")
            #expect(dark ? page != "\"rgb(255, 255, 255)\"" : page == "\"rgb(255, 255, 255)\"", "\(page)")
            if let folder = ProcessInfo.processInfo.environment["APPEX_SCREENSHOTS"] {
                try await browser.screenshot(to: folder + "/widget-desktop-\(dark ? "dark" : "light").png")
            }
        }
    }

    /// Sets `values` in the `Info.plist` of the bundle at `path` (signed again by the caller).
    static func setInfo(at path: String, _ values: [String: PropertyListValue]) throws {
        let file = path + "/" + AppexBundle.File.info
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        let info = BundleInfo(data: Array(data), file: file, role: .hostApp)
        try PropertyListFormat.xml.encode(info.values.merging(values) { _, new in new })
            .write(to: URL(fileURLWithPath: file))
    }

    /// A 1×1 PNG: an app's icon.
    static let icon = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    )

    @Test(
        "under each tile, whose widget it is: its app's name with the icon its Info.plist names, else a monogram; one widget from two apps names each app; an icon outside its bundle is not read"
    )
    func tileLabels() async throws {
        try Self.setInfo(
            at: widgets.app,
            ["CFBundleDisplayName": .string("Fixture App"), "CFBundleIconFile": .string("AppIcon")]
        )
        try #require(Self.icon).write(to: URL(fileURLWithPath: widgets.app + "/AppIcon.png"))
        try AppexBundle.sign(at: widgets.app, with: widgets.world.team)
        // The same widgets in another app, whose icon is the first app's, outside its own bundle.
        let other = widgets.apps + "/OtherApp.app"
        try FixtureBundles.makeHostApp(at: other, bundleIdentifier: "com.example.otherapp", extensionPoints: [])
        try Self.setInfo(
            at: other,
            ["CFBundleDisplayName": .string("Other App"), "CFBundleIconFile": .string("../FixtureApp.app/AppIcon.png")]
        )
        try AppexBundle.sign(at: other, with: widgets.world.team)
        try FixtureBundles.bundle(
            executable: widgetExecutable,
            in: other + "/Extensions",
            name: "FixtureWidgets",
            bundleIdentifier: "com.example.otherapp.widgets",
            signedBy: widgets.world.team
        )
        let desktop = WidgetDesktop(host: try widgets.host())
        let window = try await TestWindow(desktop.pages)
        let cookie = try await window.logIn()
        let page = try await window.request("GET", "/", headers: ["Cookie": cookie]).body
        /// The markup of the tile of widget `kind` of `extensionIdentifier`, up to the next tile.
        func tile(_ kind: String, of extensionIdentifier: String) throws -> Substring {
            let start = try #require(
                page.range(of: "data-widget=\"\(kind) (systemSmall) of \(extensionIdentifier)\""),
                "no \(kind) tile of \(extensionIdentifier): \(page.prefix(2000))"
            )
            let rest = page[start.upperBound...]
            return rest[..<(rest.range(of: "<section ")?.lowerBound ?? rest.endIndex)]
        }
        let own = try tile("Steady", of: WidgetWorld.widgetsIdentifier)
        #expect(own.contains("<img class=\"app-icon\" src=\"data:image/png;base64,"), "\(own)")
        #expect(own.contains("<span>Fixture App</span>"), "\(own)")
        let others = try tile("Steady", of: "com.example.otherapp.widgets")
        #expect(others.contains("<span class=\"app-icon monogram\""), "\(others)")
        #expect(!others.contains("<img"), "\(others)")
        #expect(others.contains("<span>Other App</span>"), "\(others)")
    }

    @Test(
        "the widget desktop: a tap's URL must be one the widget shows now; a forged one opens nothing and says why"
    )
    func forgedOpen() async throws {
        let desktop = WidgetDesktop(host: try widgets.host())
        let page = try #require(desktop.pages.first { $0.path == "/" })
        let updates = page.updates()
        _ = await firstElement(
            of: updates.filter { $0.markup.html.contains("Steady fetch") },
            within: 30,
            "the Steady widget on the desktop"
        )
        let key = "Steady (systemSmall) of \(WidgetWorld.widgetsIdentifier)"
        let error = await #expect(throws: AppexError.self) {
            try await page.perform(WindowAction(name: "open", fields: ["key": key, "url": "fixture://elsewhere"]))
        }
        #expect(error?.code == .refused && error?.message.contains("fixture://elsewhere") == true)
        #expect(!FileManager.default.fileExists(atPath: widgets.environment.home + "/opened-url"))
    }

    @Test(
        "the widget desktop: a widget that crashes shows its stale mark while the others keep updating; turning its extension off in the settings empties the desktop without a reload, and `appex widgets enable` in a shell brings it back"
    )
    func crashAndSettings() async throws {
        try widgets.setVictimMode("crash")
        let (window, browser, desktop) = try await open()
        _ = desktop
        try await browser.wait(for: "\(tile("Victim"))[data-health='stale']", containing: "stale", within: 30)
        // Marked under the tile too, beside whose widget it is.
        try await browser.wait(for: "\(tile("Victim")) footer.tile-label .mark-stale", containing: "stale")
        try await expectNextEntry(in: browser)

        try await browser.openTab(window.origin + "/settings")
        let row = "li:has(input[data-bundle='\(WidgetWorld.widgetsIdentifier)'])"
        try await browser.wait(for: "\(row)[data-state='enabled']", containing: "ships inside an app")
        try await browser.click("input[data-bundle='\(WidgetWorld.widgetsIdentifier)']")
        try await browser.wait(for: "\(row)[data-state='disabled']")
        try await browser.showTab(0)
        try await browser.wait(for: "#desktop p.empty", containing: "No widgets are enabled")

        let enabled = try await run(
            appexExecutable,
            ["widgets", "enable", WidgetWorld.widgetsIdentifier],
            environment: widgets.processVariables
        )
        #expect(enabled.status == 0, "\(enabled.standardError)")
        try await browser.wait(for: tile("Steady"), within: 30)
        #expect(try await browser.evaluate("return window.appexMark") == "\"kept\"")
        try await browser.showTab(1)
        try await browser.wait(for: "\(row)[data-state='enabled']")
    }

    @Test("the widget desktop: a hostile widget's markup and script URL show as text; nothing of it runs")
    func hostileWidget() async throws {
        try widgets.setVictimMode("hostile")
        let (window, browser, desktop) = try await open()
        let text = try await browser.wait(for: tile("Victim"), containing: "<script>", within: 30)
        #expect(text.contains("<img src=x onerror=alert(1)>"))
        #expect(try await browser.evaluate("return document.title === 'Widgets \u{2014} Appex'") == "true")
        #expect(try await browser.evaluate("return document.querySelectorAll('main script, main img').length") == "0")
        #expect(
            try await browser.evaluate("return document.querySelectorAll('main [href^=\"javascript\"]').length") == "0"
        )
        // A widget's links carry no href: only the host opens them, after checking them.
        #expect(
            try await browser.evaluate("return document.querySelectorAll('section.widget-tile a[href]').length") == "0"
        )
        let page = try #require(desktop.pages.first { $0.path == "/" })
        let key = "Victim (systemSmall) of \(WidgetWorld.widgetsIdentifier)"
        let error = await #expect(throws: AppexError.self) {
            try await page.perform(WindowAction(name: "open", fields: ["key": key, "url": "javascript:alert(1)"]))
        }
        #expect(error?.code == .refused)
        _ = window
    }

    @Test(
        "`appex widgets serve` prints its login link first, serves the desktop with it once, prints a new link on SIGUSR1, and stops cleanly on SIGTERM"
    )
    func serveCommand() async throws {
        let child = try LineChild(appexExecutable, ["widgets", "serve"], environment: widgets.processVariables)
        let firstLine = await readLines([child], within: 30)
        let first = try #require(firstLine.first ?? nil)
        let window = try TestWindow(attachingTo: first)
        let cookie = try await window.logIn()
        let page = try await window.request("GET", "/", headers: ["Cookie": cookie])
        #expect(page.status == 200 && page.body.contains("id=\"desktop\""))
        #expect(try await window.request("GET", window.loginPath).status == 403, "the link works once")

        kill(child.pid, SIGUSR1)
        let secondLine = await readLines([child], within: 10)
        let second = try #require(secondLine.first ?? nil)
        #expect(second != first && second.hasPrefix(window.origin + "/login?token="))
        let again = try TestWindow(attachingTo: second)
        #expect(try await again.request("GET", again.loginPath).status == 303)

        // A page left open (its event stream) does not hold the window up when it is stopped.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = [
            "python3", "-c",
            "import socket,time\ns=socket.create_connection(('127.0.0.1',\(window.port)))\ns.sendall(b'GET /events?page=/ HTTP/1.1\\r\\nHost: \(window.hostName):\(window.port)\\r\\nCookie: \(cookie)\\r\\n\\r\\n')\nprint(s.recv(100)[:12].decode(), flush=True)\ntime.sleep(60)",
        ]
        let holderOutput = Pipe()
        holder.standardOutput = holderOutput
        try holder.runWithSignalsUnblocked()
        defer { holder.terminate() }
        let opened = await withTimeout(seconds: 20) {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(returning: holderOutput.fileHandleForReading.availableData)
                }
            }
        }
        #expect(String(decoding: opened ?? Data(), as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        kill(child.pid, SIGTERM)
        let last = await readLines([child], within: 10)
        #expect(last.first == "widget desktop stopped")
        child.end()
        #expect(child.process.terminationStatus == 0)
    }

    @Test(
        "the widget desktop: a configurable widget's tile has Edit widget, a form made from its intent's parameters; a field changed there, or a preset picked, configures the widget and its tile shows it; a value it does not take is refused in the page, and nothing changes; a countdown moves with no new entry"
    )
    func editWidget() async throws {
        let configured = try WidgetConfigurationTests.world()
        let desktop = WidgetDesktop(host: try configured.host())
        let window = try await TestWindow(desktop.pages)
        _ = window
        let browser = try await Browser(width: 1200, height: 900)
        try await browser.open(window.loginURL)
        try await browser.wait(for: "body[data-live='yes']")
        try await browser.wait(for: tile("Emoji"), containing: "mood happy", within: 30)
        // The SiriKit widget's countdown moves every second with no new entry.
        let countdown = "\(tile("Hero")) [data-timer]"
        let first = try await browser.wait(for: countdown, containing: ":")
        try await browser.waitUntilGone(countdown, containing: first, within: 3)
        let form = "\(tile("Emoji")) details.edit-widget"
        try await browser.click("\(form) summary")
        let labels = try await browser.text(of: "\(form) form")
        for label in ["Favorite Emoji", "Count", "Shout", "Mood", "Color", "Party"] {
            #expect(labels.contains(label), "\(labels)")
        }
        func set(_ parameter: String, _ value: String) async throws {
            _ = try await browser.evaluate(
                "const f = document.querySelector(\"\(form) [data-parameter='\(parameter)']\"); f.value = '\(value)'; f.dispatchEvent(new Event('change', {bubbles: true})); return 1"
            )
        }
        try await set("favoriteEmoji", "🤩")
        try await browser.wait(for: tile("Emoji"), containing: "🤩", within: 10)
        try await set("mood", "sleepy")
        try await browser.wait(for: tile("Emoji"), containing: "mood sleepy", within: 10)
        // The form shows the configuration now (the tile was drawn again).
        #expect(
            try await browser.evaluate("return document.querySelector(\"\(form) [data-parameter='mood']\").value")
                == "\"sleepy\""
        )
        // Still open: a redraw of the tile keeps its form as the person left it.
        #expect(try await browser.evaluate("return document.querySelector(\"\(form)\").open") == "true")
        // A field being typed in keeps its text and its focus through a redraw that a change made
        // elsewhere (a shell's `appex widgets configure`) causes.
        _ = try await browser.evaluate(
            "const f = document.querySelector(\"\(form) [data-parameter='favoriteEmoji']\"); f.focus(); f.value = 'half'; return 1"
        )
        let placed = try #require(try configured.host().states().widget("Emoji"))
        try configured.host().configure(placed, setting: ["count": "2"])
        try await browser.wait(for: tile("Emoji"), containing: "🤩🤩", within: 10)
        #expect(
            try await browser.evaluate(
                "return document.activeElement.dataset.parameter + '=' + document.activeElement.value"
            ) == "\"favoriteEmoji=half\""
        )
        #expect(try await browser.evaluate("return document.querySelector(\"\(form)\").open") == "true")
        try await browser.click("\(form) button[data-preset='Party']")
        try await browser.wait(for: tile("Emoji"), containing: "🎉🎉🎉", within: 10)
        // A value the widget does not take (a forged option): refused, in the page, and nothing changes.
        _ = try await browser.evaluate(
            "const f = document.querySelector(\"\(form) [data-parameter='color']\"); const o = document.createElement('option'); o.value = 'Pink'; f.appendChild(o); f.value = 'Pink'; f.dispatchEvent(new Event('change', {bubbles: true})); return 1"
        )
        try await browser.wait(
            for: "#window-status",
            containing: "takes one of \"Red\", \"Green\", \"Blue\"",
            within: 10
        )
        let emoji = try #require(try configured.host().states().widget("Emoji"))
        #expect(try configured.host().configuration(of: emoji.key)["color"] == "null", "the preset left no colour")
        if let folder = ProcessInfo.processInfo.environment["APPEX_SCREENSHOTS"] {
            if try await browser.evaluate("return document.querySelector(\"\(form)\").open") != "true" {
                try await browser.click("\(form) summary")
            }
            try await browser.screenshot(to: folder + "/widget-edit.png")
            let dark = try await Browser(width: 1200, height: 900, dark: true)
            try await dark.open(try #require(window.server?.newLoginURL()?.absoluteString))
            try await dark.wait(for: tile("Emoji"), containing: "mood happy")
            try await dark.click("\(form) summary")
            try await dark.screenshot(to: folder + "/widget-edit-dark.png")
        }
    }

    @Test(
        "the widget desktop: an interactive widget's Button(intent:) and Toggle(isOn:intent:) run their intents in the widget's extension, and the page shows the next entry by itself"
    )
    func interactiveWidget() async throws {
        try widgets.setVictimMode("interactive")
        let (window, browser, desktop) = try await open()
        _ = window
        try await browser.wait(for: tile("Victim"), containing: "Victim count 0", within: 30)
        try await browser.wait(for: "\(tile("Victim")) button.intent-toggle.off[aria-checked='false']")
        try await browser.click("\(tile("Victim")) button.intent-button")
        try await browser.wait(for: tile("Victim"), containing: "Victim count 1", within: 10)
        try await browser.click("\(tile("Victim")) button.intent-toggle")
        try await browser.wait(for: "\(tile("Victim")) button.intent-toggle.on[aria-checked='true']", within: 10)
        try await browser.click("\(tile("Victim")) button.intent-button")
        try await browser.wait(for: tile("Victim"), containing: "Victim count 2", within: 10)
        #expect(try await browser.evaluate("return window.appexMark") == "\"kept\"")
        // A tap drawn on an entry the widget no longer shows performs nothing.
        let page = try #require(desktop.pages.first { $0.path == "/" })
        let key = "Victim (systemSmall) of \(WidgetWorld.widgetsIdentifier)"
        let stale = await #expect(throws: AppexError.self) {
            try await page.perform(WindowAction(name: "intent", fields: ["key": key, "intent": "0", "entry": "12345"]))
        }
        #expect(stale?.code == .refused && stale?.message.contains("changed since the page drew it") == true)
        try await browser.wait(for: tile("Victim"), containing: "Victim count 2")
        if let folder = ProcessInfo.processInfo.environment["APPEX_SCREENSHOTS"] {
            try await browser.screenshot(to: folder + "/widget-interactive.png")
        }
    }

    @Test(
        "an interactive widget's controls are numbered as the HTML draws them; a control number the entry does not show is refused by name, and nothing runs"
    )
    func controlNumbers() async throws {
        try widgets.setVictimMode("interactive")
        let host = try widgets.host()
        let victim = try #require(try await host.refresh().widget("Victim"))
        let html = HTMLRenderer().fragment(victim.frame())
        #expect(html.contains("data-intent=\"0\"") && html.contains("data-intent=\"1\""))
        #expect(!html.contains("data-intent=\"2\""))
        let tree = try #require(victim.entry(at: Date())?.tree)
        #expect(tree.controls.map(\.kind) == [.button, .toggleOff])
        let terminal = TerminalRenderer().render(victim.frame())
        #expect(terminal.contains("Add one") && terminal.contains("[ ] Starred"))
        let error = await #expect(throws: AppexError.self) { try await host.performIntent(2, of: victim) }
        #expect(error?.code == .notFound && error?.message.contains("2 controls") == true)
        #expect(
            !FileManager.default.fileExists(
                atPath: widgets.environment.home + "/Containers/\(WidgetWorld.widgetsIdentifier)/fixture-counter"
            )
        )
        try await host.performIntent(0, of: victim)
        let counter = widgets.environment.home + "/Containers/\(WidgetWorld.widgetsIdentifier)/fixture-counter"
        #expect((try? String(contentsOfFile: counter, encoding: .utf8)) == "1")
    }
}
