import AppexTestTiers
import AppexWidgetKit
import Foundation
import Testing

/// The HTML that `appex widgets show --html` writes, read by a real browser (headless
/// Chromium, which `Scripts/setup.sh` installs): what a hostile widget sends stays text, and each
/// family is drawn at its size.
@Suite(.serialized, .timed) struct WidgetBrowserTests {
    static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The DOM Chromium builds from `page`, after its scripts ran, serialized.
    static func dom(of page: String) async throws -> String {
        let chromium = try #require(Self.chromium, "no Chromium: Scripts/setup.sh installs Debian's chromium")
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "appex-chromium-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: profile) }
        let output = try await run(
            chromium,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)",
                "--virtual-time-budget=2000", "--dump-dom", URL(fileURLWithPath: page).absoluteString,
            ],
            environment: ProcessInfo.processInfo.environment,
            timeout: 120
        )
        #expect(output.status == 0, "chromium failed: \(output.standardError.suffix(2000))")
        return output.standardOutput
    }

    @Test("a hostile widget's markup, quotes, escapes and javascript: link stay text in a real browser")
    func hostileWidgetStaysText() async throws {
        let widgets = try WidgetWorld()
        try widgets.setVictimMode("hostile")
        let page = widgets.world.root.appending("widgets.html")
        let shown = try await run(
            appexExecutable,
            ["widgets", "show", "--html", page],
            environment: widgets.processVariables
        )
        #expect(shown.status == 0, "\(shown.standardError)")
        let dom = try await Self.dom(of: page)
        #expect(dom.contains("<title>Widgets</title>"), "the widget's script ran or the title changed")
        #expect(!dom.contains("pwned</title>"))
        #expect(!dom.lowercased().contains("<script"), "a script element in the DOM")
        #expect(!dom.lowercased().contains("<img"), "an img element in the DOM")
        #expect(!dom.lowercased().contains("javascript:"), "a javascript: URL in the DOM")
        #expect(
            dom.contains("&lt;script&gt;document.title='pwned'&lt;/script&gt;"),
            "the hostile text is not shown as text"
        )
        #expect(!dom.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        // The well-behaved widgets are on the page too.
        #expect(dom.contains("Steady fetch 1"))
    }

    @Test("each family is drawn at its size in a real browser")
    func familiesAtTheirSizes() async throws {
        let widgets = try WidgetWorld()
        // Victim supports the four system families (the default).
        let families: [WidgetFamily] = [.systemSmall, .systemMedium, .systemLarge, .systemExtraLarge]
        var measured: [String] = []
        for family in families {
            let page = widgets.world.root.appending("\(family).html")
            let shown = try await run(
                appexExecutable,
                ["widgets", "show", "Victim", "--family", family.rawValue, "--html", page],
                environment: widgets.processVariables
            )
            #expect(shown.status == 0, "\(shown.standardError)")
            // A copy that measures itself: the page's own policy allows no script, so the copy
            // drops it and appends one that writes each widget's size into the DOM.
            var html = try String(contentsOfFile: page, encoding: .utf8)
            html = html.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.contains("Content-Security-Policy") }.joined(separator: "\n")
            html = html.replacingOccurrences(
                of: "</body>",
                with: """
                    <script>document.body.setAttribute('data-sizes', Array.from(document.querySelectorAll('article')).map(a => { const r = a.getBoundingClientRect(); return Math.round(r.width) + 'x' + Math.round(r.height); }).join(','));</script></body>
                    """
            )
            let measuring = widgets.world.root.appending("\(family)-measured.html")
            try html.write(toFile: measuring, atomically: true, encoding: .utf8)
            let dom = try await Self.dom(of: measuring)
            let size = family.displaySize
            let expected = "\(Int(size.width))x\(Int(size.height))"
            let found = dom.components(separatedBy: "data-sizes=\"").dropFirst().first?.prefix { $0 != "\"" } ?? ""
            measured.append("\(family): \(found)")
            #expect(found == Substring(expected), "\(family) is drawn at \(found), not \(expected)")
        }
        print(measured.joined(separator: "; "))
    }
}
