import AppexTestTiers
import AppexVocabulary
import AppexWidgetHost
import AppexWidgetKit
import Foundation
import Testing

/// The widget host's renderers: golden files of what they draw, what they refuse to let a widget
/// smuggle into a terminal or a page, and the view tree's wire form.
///
/// The golden files are in `Fixtures/Widgets/Golden/`. After a deliberate change to a renderer,
/// regenerate them and review the diff:
///
/// ```
/// APPEX_UPDATE_GOLDEN=1 swift test --filter WidgetRenderingTests
/// ```
///
/// With `APPEX_UPDATE_GOLDEN=1` the golden tests write what they drew instead of comparing it.
@Suite(.timed) struct WidgetRenderingTests {
    static let goldenFolder = fixturesFolder + "/Widgets/Golden"
    /// 2026-11-18 11:06:40 UTC: the moment every golden frame is drawn at.
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let utc = TimeZone(secondsFromGMT: 0) ?? .current

    // MARK: - Golden files

    /// One golden terminal drawing: a widget, a family and a width.
    struct TerminalCase: CustomTestStringConvertible, Sendable {
        let file: String
        let frame: @Sendable () -> WidgetFrame
        let width: Int?
        var testDescription: String { file }
    }

    static let terminalCases: [TerminalCase] = [
        TerminalCase(file: "terminal-contacts-systemSmall.txt", frame: { Samples.contacts(.systemSmall) }, width: nil),
        TerminalCase(file: "terminal-contacts-systemLarge.txt", frame: { Samples.contacts(.systemLarge) }, width: nil),
        TerminalCase(file: "terminal-weather-systemMedium.txt", frame: { Samples.weather(.systemMedium) }, width: nil),
        TerminalCase(file: "terminal-weather-systemSmall.txt", frame: { Samples.weather(.systemSmall) }, width: nil),
        TerminalCase(file: "terminal-weather-width60.txt", frame: { Samples.weather(.systemMedium) }, width: 60),
        TerminalCase(file: "terminal-agenda-systemLarge.txt", frame: { Samples.agenda(.systemLarge) }, width: nil),
        TerminalCase(
            file: "terminal-agenda-systemExtraLarge.txt",
            frame: { Samples.agenda(.systemExtraLarge) },
            width: nil
        ),
        TerminalCase(file: "terminal-agenda-systemSmall-cut.txt", frame: { Samples.agenda(.systemSmall) }, width: nil),
        TerminalCase(file: "terminal-battery-accessoryCircular.txt", frame: { Samples.battery() }, width: nil),
        TerminalCase(file: "terminal-next-accessoryRectangular.txt", frame: { Samples.nextEvent() }, width: nil),
        TerminalCase(file: "terminal-mail-accessoryInline.txt", frame: { Samples.mail() }, width: nil),
        TerminalCase(
            file: "terminal-mail-accessoryInline-status.txt",
            frame: { Samples.mail(status: true) },
            width: nil
        ),
        TerminalCase(file: "terminal-clocks-systemMedium.txt", frame: { Samples.clocks() }, width: nil),
        TerminalCase(file: "terminal-tokyo-systemSmall.txt", frame: { Samples.tokyo() }, width: nil),
        TerminalCase(file: "terminal-empty-systemSmall.txt", frame: { Samples.noContent() }, width: nil),
    ]

    @Test("the terminal renderer draws each sample as its golden file", arguments: terminalCases)
    func terminalGolden(_ sample: TerminalCase) throws {
        let renderer = TerminalRenderer(width: sample.width, timeZone: Self.utc)
        try Self.expectGolden(renderer.render(sample.frame()) + "\n", file: sample.file)
    }

    @Test("the terminal renderer with colours draws its golden file")
    func terminalColorGolden() throws {
        let renderer = TerminalRenderer(colors: true, timeZone: Self.utc)
        try Self.expectGolden(
            renderer.render(Samples.weather(.systemMedium)) + "\n",
            file: "terminal-weather-colors.txt"
        )
        try Self.expectGolden(
            renderer.render(Samples.contacts(.systemSmall)) + "\n",
            file: "terminal-contacts-colors.txt"
        )
    }

    @Test("the HTML renderer draws fragments and a page as their golden files")
    func htmlGolden() throws {
        let renderer = HTMLRenderer(timeZone: Self.utc)
        try Self.expectGolden(
            renderer.fragment(Samples.contacts(.systemSmall)),
            file: "fragment-contacts-systemSmall.html"
        )
        try Self.expectGolden(renderer.fragment(Samples.agenda(.systemLarge)), file: "fragment-agenda-systemLarge.html")
        try Self.expectGolden(renderer.fragment(Samples.clocks()), file: "fragment-clocks-systemMedium.html")
        let frames = [
            Samples.weather(.systemSmall), Samples.weather(.systemMedium), Samples.contacts(.systemLarge),
            Samples.battery(), Samples.nextEvent(), Samples.mail(status: true), Samples.noContent(),
        ]
        try Self.expectGolden(renderer.page(frames, title: "Widgets & <friends>"), file: "page.html")
    }

    // MARK: - What a widget cannot smuggle in

    @Test("the HTML escapes a hostile widget's texts, names and status, and drops its javascript: links")
    func htmlEscapesHostileWidget() {
        let html = HTMLRenderer(timeZone: Self.utc).page([Samples.hostile()], title: "<script>alert(0)</script>")
        #expect(!html.lowercased().contains("<script"))
        #expect(!html.lowercased().contains("javascript:"))
        #expect(!html.contains("alert(1)</"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&quot;quotes&quot; &amp; &#39;apostrophes&#39;"))
        #expect(html.contains("data-kind=\"evil&quot;&gt;&lt;b&gt;\""))
        #expect(html.contains("myapp://safe?a=1&amp;b=2"))
        let controls = html.unicodeScalars.filter { Self.isControl($0) && $0 != "\n" }
        #expect(controls.isEmpty, "control characters in the page: \(controls.map { $0.value })")
        #expect(html.contains("red \u{FFFD}[31m bell \u{FFFD} csi \u{FFFD}2J end"))
    }

    @Test("the terminal shows a hostile widget's escapes as U+FFFD, with colours off or on")
    func terminalEscapesHostileWidget() {
        let plain = TerminalRenderer(width: 60, timeZone: Self.utc).render(Samples.hostile())
        let plainControls = plain.unicodeScalars.filter { Self.isControl($0) && $0 != "\n" }
        #expect(plainControls.isEmpty, "control characters with colours off: \(plainControls.map { $0.value })")
        #expect(plain.contains("red \u{FFFD}[31m bell \u{FFFD} csi \u{FFFD}2J end"))
        #expect(plain.contains("<script>alert(1)</script>"))

        let colored = TerminalRenderer(width: 60, colors: true, timeZone: Self.utc).render(Samples.hostile())
        #expect(colored.contains("\u{1B}["), "colours on draws styles")
        #expect(Self.onlyOwnStyleSequences(colored), "an escape that is not an SGR sequence:\n\(colored)")
        let otherControls = colored.unicodeScalars.filter { Self.isControl($0) && $0 != "\n" && $0 != "\u{1B}" }
        #expect(otherControls.isEmpty)
    }

    @Test("links open only URLs whose scheme is not javascript, data, vbscript or file")
    func linkSchemes() {
        let refused = [
            "javascript:alert(1)", "JAVASCRIPT:alert(1)", " javascript:alert(1)", "\tjava\nscript:alert(1)",
            "\u{0}javascript:alert(1)", "\u{85}javascript:alert(1)", "data:text/html,<script>alert(1)</script>",
            "vbscript:msgbox(1)", "file:///etc/passwd", "FiLe:/etc/passwd", "no-scheme/path", "/relative:path", "",
            ":empty-scheme", "1http://digit.first",
        ]
        let allowed = ["https://example.com/a?b=1&c=2", "myapp://open/item", "mailto:ada@example.com", "x-app+v1.2:go"]
        let renderer = HTMLRenderer(timeZone: Self.utc)
        for url in refused + allowed {
            let node = ViewNode.link(destination: url, content: .text([TextRun(content: .verbatim("open"))]))
            let html = renderer.fragment(Self.frame(root: .widgetURL(url, node)))
            let opens = allowed.contains(url)
            #expect(html.contains("href=") == opens, "\(url.debugDescription): \(html)")
            #expect(html.contains("data-open-url=") == opens, "\(url.debugDescription)")
            #expect(html.contains(">open<"), "the content is drawn either way")
            #expect(html.components(separatedBy: "<a ").count == (opens ? 2 : 1), "links do not nest")
        }
    }

    @Test("hostile numbers and nesting are drawn without trapping, in boxes of even width")
    func hostileLayout() {
        let text = ViewNode.text([TextRun(content: .verbatim("x"), style: TextStyle(lineLimit: Int.min))])
        let numbers = [Double.nan, .infinity, -.infinity, -1e300, 1e300, 0, -0.0, .ulpOfOne]
        var children: [ViewNode] = []
        for number in numbers {
            let view = VStack(spacing: number) {
                Text("x").padding(number).frame(width: number, height: number)
                Text("x").frame(maxWidth: number, maxHeight: number, alignment: .bottomTrailing)
                HStack(spacing: number) {
                    Text("x")
                    Spacer(minLength: number)
                    Text("x")
                }
                Text(Date(timeIntervalSince1970: number), style: .timer)
                    + Text(Date(timeIntervalSince1970: number), style: .date)
                Text("x").background(Color(red: number, green: number, blue: number, opacity: number))
                Text("x").font(.system(size: number)).foregroundStyle(Color(white: number))
            }
            children.append(ViewTree(view).root)
        }
        children.append(.background(.hierarchical(.max), .styled(TextStyle(foreground: .fill(.max)), text)))
        // Nested stacks, flexible ones too: each level is laid out once, so depth costs no more
        // than breadth.
        var deep = text
        var tall = text
        var wide = text
        for _ in 0..<5_000 {
            deep = .stack(.horizontal, alignment: .center, spacing: nil, children: [deep, text])
            tall = .stack(.vertical, alignment: .center, spacing: nil, children: [tall, .spacer(minLength: nil)])
            wide = .stack(.horizontal, alignment: .center, spacing: nil, children: [.spacer(minLength: nil), wide])
        }
        children += [deep, tall, wide]
        let root = ViewNode.stack(.depth, alignment: .center, spacing: nil, children: children)
        for family in WidgetFamily.allCases {
            let frame = Self.frame(root: root, family: family)
            for renderer in [
                TerminalRenderer(timeZone: Self.utc), TerminalRenderer(width: 3), TerminalRenderer(width: Int.max),
            ] {
                Self.expectEvenBox(renderer.render(frame))
            }
            let html = HTMLRenderer(timeZone: Self.utc).fragment(frame)
            #expect(!html.contains("nan") && !html.contains("inf"), "numbers in the page are finite")
        }
    }

    // MARK: - Terminal geometry

    @Test("every line of a terminal box takes the same number of cells")
    func terminalLinesHaveEvenWidth() {
        var frames = Self.terminalCases.map { $0.frame() } + [Samples.hostile()]
        for family in WidgetFamily.allCases {
            frames += [Samples.contacts(family), Samples.weather(family), Samples.agenda(family)]
            frames.append(
                WidgetFrame(
                    kind: "k",
                    displayName: "東京 👩‍👩‍👧 Cafe\u{0301}",
                    family: family,
                    tree: Samples.tokyo().tree,
                    now: Self.now
                )
            )
        }
        for frame in frames {
            for width in [nil, 1, 8, 9, 13, 30, 61] {
                Self.expectEvenBox(TerminalRenderer(width: width, timeZone: Self.utc).render(frame))
                Self.expectEvenBox(TerminalRenderer(width: width, colors: true, timeZone: Self.utc).render(frame))
            }
        }
    }

    @Test(
        "grapheme clusters of every length are drawn whole, in the title, the text and the status: up to 12 UTF-8 bytes kept in a cell, longer ones (a family, a tagged flag) once per drawing"
    )
    func graphemesOfEveryLength() throws {
        // UTF-8 bytes: 1; 3 (an accent); 8 (a flag); 11 and 12 (the most a cell keeps); 13; 18 (a
        // family); 28 (a tagged flag); 26 (two skin tones).
        let clusters = [
            "a", "e\u{0301}", "🇯🇵", "👩\u{200D}👧", "e\u{0301}\u{0301}\u{0301}\u{0301}\u{20DD}", "❤️\u{200D}🔥",
            "👩‍👩‍👧", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "👨🏻‍🤝‍👨🏿",
        ]
        #expect(clusters.map(\.utf8.count) == [1, 3, 8, 11, 12, 13, 18, 28, 26])
        for cluster in clusters { #expect(cluster.count == 1, "\(cluster.debugDescription) is one cluster") }
        let text = clusters.joined(separator: " ") + " " + clusters.reversed().joined(separator: " ")
        var frame = Self.frame(root: .text([TextRun(content: .verbatim(text))]), family: .systemExtraLarge)
        frame.displayName = clusters[6] + " " + clusters[7]
        frame.status = clusters[8] + " and " + clusters[5]
        let drawn = TerminalRenderer(timeZone: Self.utc).render(frame)
        #expect(drawn.contains(text), "the text:\n\(drawn)")
        #expect(drawn.contains("╭─ " + clusters[6] + " " + clusters[7] + " ─"), "the title:\n\(drawn)")
        #expect(drawn.contains("⚠ " + clusters[8] + " and " + clusters[5]), "the status:\n\(drawn)")
        Self.expectEvenBox(drawn)
    }

    @Test("each family is drawn at its size, and the status line grows a one-line family")
    func familySizes() {
        for family in WidgetFamily.allCases {
            let size = TerminalRenderer.cellSize(of: family)
            let lines = TerminalRenderer(timeZone: Self.utc).render(Samples.weather(family)).split(separator: "\n")
            #expect(lines.count == size.rows, "\(family)")
            #expect(lines.allSatisfy { Self.cells($0) == size.columns }, "\(family)")
        }
        #expect(TerminalRenderer.cellSize(of: .systemSmall) == TerminalRenderer.CellSize(columns: 24, rows: 8))
        let inline = TerminalRenderer().render(Samples.mail(status: true)).split(separator: "\n")
        #expect(inline.count == TerminalRenderer.cellSize(of: .accessoryInline).rows + 1)
        #expect(inline[2].hasPrefix("│ ⚠ stale: "))
        let wide = TerminalRenderer(width: 33).render(Samples.weather(.systemSmall)).split(separator: "\n")
        #expect(wide.allSatisfy { Self.cells($0) == 33 })
    }

    @Test("a frame without a view says there is no content yet, dimmed with colours on")
    func noContent() {
        let plain = TerminalRenderer().render(Samples.noContent())
        #expect(plain.contains("No content yet"))
        #expect(plain.contains("⚠ waiting for the f…"))
        #expect(TerminalRenderer(colors: true).render(Samples.noContent()).contains("\u{1B}[2mNo content yet\u{1B}[0m"))
        #expect(HTMLRenderer().fragment(Samples.noContent()).contains("No content yet"))
    }

    @Test("dates in texts are drawn against the frame's moment")
    func dates() {
        let now = Self.now
        let cases: [(Date, Text.DateStyle, String)] = [
            (now, .time, "11:06 AM"), (now, .date, "November 18, 2026"),
            (now.addingTimeInterval(-7_500), .relative, "2 hr 5 min ago"),
            (now.addingTimeInterval(300), .relative, "in 5 min"),
            (now.addingTimeInterval(45), .relative, "in 45 sec"),
            (now.addingTimeInterval(-93_600), .relative, "1 day 2 hr ago"),
            (now, .relative, "now"), (now.addingTimeInterval(7_300), .offset, "+2 hours"),
            (now.addingTimeInterval(-86_400), .offset, "-1 day"), (now.addingTimeInterval(299.9), .timer, "4:59"),
            (now.addingTimeInterval(-3_723), .timer, "1:02:03"),
        ]
        let renderer = HTMLRenderer(timeZone: Self.utc)
        for (date, style, expected) in cases {
            let frame = WidgetFrame(
                kind: "k",
                displayName: "D",
                family: .systemSmall,
                tree: ViewTree(Text(date, style: style)),
                now: now
            )
            #expect(renderer.fragment(frame).contains(">\(expected)</span>"), "\(expected)")
            #expect(
                TerminalRenderer(width: 40, timeZone: Self.utc).render(frame).contains(" \(expected) "),
                "\(expected)"
            )
        }
    }

    @Test("the page is self-contained: no script, nothing loaded from anywhere")
    func pageIsSelfContained() {
        let frames = Self.terminalCases.map { $0.frame() } + [Samples.hostile()]
        let page = HTMLRenderer(timeZone: Self.utc).page(frames, title: "All")
        let lower = page.lowercased()
        #expect(lower.hasPrefix("<!doctype html>\n"))
        #expect(lower.contains("<meta charset=\"utf-8\">"))
        for forbidden in ["<script", "http://", "https://", "url(", "@import", "<link", "<iframe", "<img", "<object"] {
            #expect(!lower.contains(forbidden), "the page contains \(forbidden)")
        }
        // Every `<` in the page starts one of the renderer's tags (a widget's are escaped): their
        // attributes are the renderer's few, none loads anything (`src`) or runs anything (`on…`).
        // (`data-timer` is a timer's date, a number the renderer wrote: the window's page ticks it.)
        let allowed: Set<String> = [
            "lang", "charset", "http-equiv", "content", "name", "class", "style", "href", "data-open-url", "data-kind",
            "role", "aria-label", "data-timer",
        ]
        for tag in page.matches(of: /<[^>]*>/) {
            let names = tag.output.replacing(/"[^"]*"/, with: "\"\"")
            for attribute in names.matches(of: /\s([A-Za-z-]+)=/) {
                #expect(
                    allowed.contains(String(attribute.output.1)),
                    "an attribute \(attribute.output.1) in \(tag.output)"
                )
            }
        }
        for family in WidgetFamily.allCases {
            let size = family.displaySize
            #expect(page.contains(".family-\(family){width:\(Int(size.width))px;height:\(Int(size.height))px}"))
        }
    }

    // MARK: - The wire form

    @Test("a view tree survives its encoding")
    func viewTreeRoundTrip() throws {
        for frame in [Samples.contacts(.systemSmall), Samples.agenda(.systemLarge), Samples.tokyo(), Samples.hostile()]
        {
            let tree = try #require(frame.tree)
            #expect(try ViewTree(decoding: tree.encoded()) == tree)
        }
    }

    @Test("a view tree of an unknown version is refused as a protocol violation")
    func viewTreeUnknownVersion() throws {
        var bytes = try #require(Samples.contacts(.systemSmall).tree).encoded()
        bytes[0] = ViewTree.currentVersion &+ 1
        do {
            _ = try ViewTree(decoding: bytes)
            Issue.record("a tree of version \(bytes[0]) was read")
        } catch {
            #expect(error.code == .protocolViolation)
            #expect(error.code.name == "protocol-violation")
        }
        #expect(throws: AppexError.self) { try ViewTree(decoding: []) }
    }

    @Test("a view tree larger than the limit is refused")
    func viewTreeTooLarge() {
        let bytes = [ViewTree.currentVersion] + [UInt8](repeating: 0, count: ViewTree.byteLimit)
        do {
            _ = try ViewTree(decoding: bytes)
            Issue.record("a tree of \(bytes.count) bytes was read")
        } catch {
            #expect(error.code == .viewTreeTooLarge)
        }
    }

    // MARK: - Helpers

    /// A frame of `root`, drawn at ``now``.
    static func frame(root: ViewNode, family: WidgetFamily = .systemMedium) -> WidgetFrame {
        WidgetFrame(kind: "k", displayName: "Test", family: family, tree: ViewTree(root: root), now: now)
    }

    /// C0, DEL and C1.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Whether every ESC in `output` starts an SGR sequence: `ESC [`, digits and semicolons, `m`.
    static func onlyOwnStyleSequences(_ output: String) -> Bool {
        let scalars = Array(output.unicodeScalars)
        var index = 0
        while index < scalars.count {
            defer { index += 1 }
            guard scalars[index] == "\u{1B}" else { continue }
            guard index + 1 < scalars.count, scalars[index + 1] == "[" else { return false }
            index += 2
            while index < scalars.count, ("0"..."9").contains(scalars[index]) || scalars[index] == ";" { index += 1 }
            guard index < scalars.count, scalars[index] == "m" else { return false }
        }
        return true
    }

    /// `line` without SGR sequences.
    static func withoutStyles(_ line: Substring) -> String {
        var result = ""
        var inSequence = false
        for scalar in line.unicodeScalars {
            if scalar == "\u{1B}" {
                inSequence = true
            } else if inSequence {
                if scalar == "m" { inSequence = false }
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The cells `line` takes in a terminal: two for emoji and East Asian wide characters, none
    /// for combining marks, one for the rest. Written apart from the renderer's own count.
    static func cells(_ line: Substring) -> Int {
        withoutStyles(line).reduce(0) { total, character in
            let scalars = character.unicodeScalars
            let first = scalars.first?.value ?? 0
            let wide =
                scalars.contains { $0.properties.isEmojiPresentation }
                || (scalars.contains("\u{FE0F}") && scalars.first?.properties.isEmoji == true)
                || (0x3000...0x30FF).contains(first) || (0x4E00...0x9FFF).contains(first)
                || (0xFF00...0xFF60).contains(first)
            let zero = scalars.allSatisfy {
                [.nonspacingMark, .enclosingMark, .format].contains($0.properties.generalCategory)
            }
            return total + (wide ? 2 : zero ? 0 : 1)
        }
    }

    /// Expects a box whose lines all take as many cells as its first.
    static func expectEvenBox(_ box: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = box.split(separator: "\n", omittingEmptySubsequences: false)
        let width = cells(lines[0])
        #expect(lines.count >= 3, sourceLocation: sourceLocation)
        #expect(
            lines.first?.hasPrefix("╭") == true && lines.last?.hasPrefix("╰") == true,
            sourceLocation: sourceLocation
        )
        for line in lines where cells(line) != width {
            Issue.record(
                "a line of \(cells(line)) cells in a box \(width) wide:\n\(box)",
                sourceLocation: sourceLocation
            )
            return
        }
    }

    /// Compares `output` with the golden file `file`, or writes it there when
    /// `APPEX_UPDATE_GOLDEN=1`.
    static func expectGolden(_ output: String, file: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let path = goldenFolder + "/" + file
        if ProcessInfo.processInfo.environment["APPEX_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(atPath: goldenFolder, withIntermediateDirectories: true)
            try Data(output.utf8).write(to: URL(fileURLWithPath: path))
            return
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            Issue.record(
                "no golden file \(path): run with APPEX_UPDATE_GOLDEN=1 to write it",
                sourceLocation: sourceLocation
            )
            return
        }
        let expected = String(decoding: data, as: UTF8.self)
        #expect(
            output == expected,
            "\(file) differs from what was drawn:\n\(output)\nexpected:\n\(expected)",
            sourceLocation: sourceLocation
        )
    }
}

// MARK: - Samples

/// The widgets the golden files draw.
enum Samples {
    struct Contact: Identifiable {
        let id: Int
        let name: String
    }

    static let contactList = [
        Contact(id: 1, name: "Ada Lovelace"), Contact(id: 2, name: "Grace Brewster Murray Hopper"),
        Contact(id: 3, name: "Katherine Johnson"),
    ]

    struct ContactsView: View {
        let updated: Date
        var body: some View {
            VStack(alignment: .leading) {
                Label("Contacts", systemImage: "person.2.fill").font(.headline)
                Divider()
                ForEach(Samples.contactList) { contact in
                    Text(contact.name).lineLimit(1)
                }
                Spacer()
                Text("Updated ") + Text(updated, style: .relative).italic()
            }
            .font(.caption)
            .foregroundStyle(.secondary)
            .padding()
            .containerBackground(.fill.tertiary, for: .widget)
            .widgetURL(URL(string: "contacts://list"))
        }
    }

    static func contacts(_ family: WidgetFamily) -> WidgetFrame {
        let view = ContactsView(updated: WidgetRenderingTests.now.addingTimeInterval(-7_500))
        return WidgetFrame(
            kind: "com.example.contacts",
            displayName: "Contacts",
            family: family,
            tree: ViewTree(view, family: family),
            now: WidgetRenderingTests.now
        )
    }

    struct WeatherView: View {
        @Environment(\.widgetFamily) var family
        let now: Date
        var body: some View {
            HStack {
                VStack(alignment: .leading) {
                    Text("Cupertino").font(.headline)
                    Text("21°").font(.largeTitle).bold()
                    Text("Partly cloudy with a light breeze from the west").foregroundStyle(.secondary).lineLimit(2)
                }
                if family != .systemSmall {
                    Spacer()
                    VStack(alignment: .trailing) {
                        Image(systemName: "cloud.sun.fill").foregroundStyle(.yellow)
                        Text(now, style: .time)
                        Text("H 24° L 12°").foregroundColor(.red)
                    }
                }
            }
            .containerBackground(.fill.tertiary, for: .widget)
        }
    }

    static func weather(_ family: WidgetFamily) -> WidgetFrame {
        WidgetFrame(
            kind: "com.example.weather",
            displayName: "Weather",
            family: family,
            tree: ViewTree(WeatherView(now: WidgetRenderingTests.now), family: family),
            now: WidgetRenderingTests.now
        )
    }

    struct Event: Identifiable {
        let id: Int
        let title: String
        let start: Date
    }

    struct AgendaView: View {
        let events: [Event]
        var body: some View {
            VStack(alignment: .leading, spacing: 4) {
                HStack {
                    Text("Today").font(.title)
                    Spacer()
                    Image(systemName: "calendar")
                }
                ForEach(events) { event in
                    HStack(spacing: 8) {
                        Text(event.start, style: .time).monospacedDigit().frame(width: 64, alignment: .leading)
                        Text(event.title).lineLimit(1)
                        Spacer()
                        Text(event.start, style: .relative).foregroundStyle(.secondary)
                    }
                }
                Divider()
                ZStack(alignment: .leading) {
                    Text("················")
                    Text("Free after 17:00")
                }
                Link(destination: URL(string: "agenda://today") ?? URL(fileURLWithPath: "/")) {
                    Label("Open agenda", systemImage: "arrow.right.circle.fill")
                }
                Text(timerInterval: WidgetRenderingTests.now...WidgetRenderingTests.now.addingTimeInterval(3_723))
            }
            .padding()
        }
    }

    static func agenda(_ family: WidgetFamily) -> WidgetFrame {
        let now = WidgetRenderingTests.now
        let events = [
            Event(id: 1, title: "Stand-up", start: now.addingTimeInterval(300)),
            Event(id: 2, title: "Design review of the widget host renderers", start: now.addingTimeInterval(7_500)),
            Event(id: 3, title: "Lunch", start: now.addingTimeInterval(10_800)),
            Event(id: 4, title: "Dentist", start: now.addingTimeInterval(21_600)),
        ]
        return WidgetFrame(
            kind: "com.example.agenda",
            displayName: "Agenda for Wednesday, November 18",
            family: family,
            tree: ViewTree(AgendaView(events: events), family: family),
            now: now
        )
    }

    struct BatteryView: View {
        var body: some View {
            ZStack {
                Color.green
                VStack(spacing: 0) {
                    Image(systemName: "battery.100")
                    Text("72%").bold()
                }
            }
        }
    }

    static func battery() -> WidgetFrame {
        WidgetFrame(
            kind: "com.example.battery",
            displayName: "Battery",
            family: .accessoryCircular,
            tree: ViewTree(BatteryView(), family: .accessoryCircular),
            now: WidgetRenderingTests.now
        )
    }

    struct NextEventView: View {
        let start: Date
        var body: some View {
            VStack(alignment: .leading) {
                Text("Dentist").font(.headline)
                Text(start, style: .relative)
                Text("Bring the insurance card")
            }
            .frame(maxWidth: .infinity, alignment: .leading)
        }
    }

    static func nextEvent() -> WidgetFrame {
        let now = WidgetRenderingTests.now
        return WidgetFrame(
            kind: "com.example.next",
            displayName: "Next",
            family: .accessoryRectangular,
            tree: ViewTree(NextEventView(start: now.addingTimeInterval(300)), family: .accessoryRectangular),
            now: now
        )
    }

    static func mail(status: Bool = false) -> WidgetFrame {
        WidgetFrame(
            kind: "com.example.mail",
            displayName: "Mail",
            family: .accessoryInline,
            tree: ViewTree(Label("3 new messages from Ada, Grace and Katherine", systemImage: "envelope.fill")),
            status: status ? "stale: the extension did not answer for 2 hours" : nil,
            now: WidgetRenderingTests.now
        )
    }

    struct ClocksView: View {
        let now: Date
        var body: some View {
            HStack(alignment: .top) {
                VStack {
                    Text("Offset").font(.caption)
                    Text(now.addingTimeInterval(7_200), style: .offset)
                }
                Divider()
                VStack {
                    Text("Timer").font(.caption)
                    Text(now.addingTimeInterval(299), style: .timer)
                }
                Divider()
                VStack {
                    Text("Date").font(.caption)
                    Text(now, style: .date)
                }
            }
        }
    }

    static func clocks() -> WidgetFrame {
        WidgetFrame(
            kind: "com.example.clocks",
            displayName: "Clocks",
            family: .systemMedium,
            tree: ViewTree(ClocksView(now: WidgetRenderingTests.now), family: .systemMedium),
            status: "reload budget used up until 12:00",
            now: WidgetRenderingTests.now
        )
    }

    struct TokyoView: View {
        var body: some View {
            VStack(alignment: .leading) {
                Text("東京の天気 ☀️").bold()
                Text("晴れ時々くもり、夕方から雨")
                Text("Cafe\u{0301} 👩‍👩‍👧 🇯🇵 ok")
            }
        }
    }

    static func tokyo() -> WidgetFrame {
        WidgetFrame(
            kind: "com.example.tokyo",
            displayName: "天気予報",
            family: .systemSmall,
            tree: ViewTree(TokyoView()),
            now: WidgetRenderingTests.now
        )
    }

    struct HostileView: View {
        var body: some View {
            VStack {
                Text("<script>alert(1)</script>")
                Text("\"quotes\" & 'apostrophes'")
                Text("red \u{1B}[31m bell \u{07} csi \u{9B}2J end")
                Link("javascript link", destination: URL(string: "javascript:alert(2)") ?? URL(fileURLWithPath: "/"))
                Link("safe link", destination: URL(string: "myapp://safe?a=1&b=2") ?? URL(fileURLWithPath: "/"))
                Image(systemName: "<img src=x onerror=alert(3)>")
                Label("\u{1B}]0;retitled\u{07}", systemImage: "\"><script>")
                Text("\u{202E}reversed\u{202C} \u{7F}\u{0}")
            }
            .widgetURL(URL(string: "javascript:alert(1)"))
        }
    }

    static func hostile() -> WidgetFrame {
        WidgetFrame(
            kind: "evil\"><b>",
            displayName: "<b>Evil</b>\u{1B}]0;title\u{07}",
            family: .systemLarge,
            tree: ViewTree(HostileView(), family: .systemLarge),
            status: "\u{1B}[2J<script>x</script>",
            now: WidgetRenderingTests.now
        )
    }

    static func noContent() -> WidgetFrame {
        WidgetFrame(
            kind: "com.example.empty",
            displayName: "Empty",
            family: .systemSmall,
            tree: nil,
            status: "waiting for the first timeline",
            now: WidgetRenderingTests.now
        )
    }
}
