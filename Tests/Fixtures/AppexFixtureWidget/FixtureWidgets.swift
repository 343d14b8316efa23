import AppexWidgetKit
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A fixture widget extension with one widget per reload policy, a steady one, and a "victim"
/// that misbehaves as `$HOME/fixture-widget-mode` (its container) says (ok, crash, hang, memory, garbage,
/// oversize, hostile), or is interactive (interactive: a counter with a `Button(intent:)` and a
/// `Toggle(isOn:intent:)`, kept in its container). Every timeline it makes is logged, a line per kind, to
/// `$HOME/fixture-widget-fetches.log` (its container), so tests count launches; each entry says which
/// fetch of its kind it came from.
@main
struct FixtureWidgets: WidgetBundle {
    var body: some Widget {
        // The victim first: the widgets after it are asked in the same launch, after it failed.
        VictimWidget()
        PolicyWidget(kind: "AtEnd")
        PolicyWidget(kind: "After")
        PolicyWidget(kind: "Never")
        PolicyWidget(kind: "Steady")
    }
}

enum Fixture {
    /// Its container (`HOME`, set by the launcher): the one place its sandbox lets it write.
    static var home: String { ProcessInfo.processInfo.environment["HOME"] ?? "/tmp" }

    static var mode: String {
        let text = (try? String(contentsOfFile: home + "/fixture-widget-mode", encoding: .utf8)) ?? "ok"
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Logs a fetch of `kind` and returns how many there have been, this one included.
    static func logFetch(_ kind: String) -> Int {
        let path = home + "/fixture-widget-fetches.log"
        let line = kind + "\n"
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        if descriptor >= 0 {
            _ = line.withCString { write(descriptor, $0, strlen($0)) }
            close(descriptor)
        }
        let log = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return log.split(separator: "\n").filter { $0 == kind }.count
    }
}

struct FixtureEntry: TimelineEntry {
    let date: Date
    let text: String
    var link: URL? = nil
    /// The interactive victim's counter and star.
    var counter: Int? = nil
    var starred = false
}

/// The interactive victim's state, in its container.
enum Counter {
    static var path: String { Fixture.home + "/fixture-counter" }
    static var starPath: String { Fixture.home + "/fixture-starred" }
    static var count: Int { Int((try? String(contentsOfFile: path, encoding: .utf8)) ?? "0") ?? 0 }
    static var starred: Bool { FileManager.default.fileExists(atPath: starPath) }
}

/// Adds `by` to the interactive victim's counter.
struct AddIntent: AppIntent {
    static let title: LocalizedStringResource = "Add"
    @Parameter(title: "By") var by: Int

    init() {}
    init(by: Int) { self.by = by }

    func perform() async throws -> some IntentResult {
        try String(Counter.count + by).write(toFile: Counter.path, atomically: true, encoding: .utf8)
        return .result()
    }
}

/// Stars or unstars the interactive victim.
struct StarIntent: AppIntent {
    static let title: LocalizedStringResource = "Star"

    func perform() async throws -> some IntentResult {
        if Counter.starred {
            try FileManager.default.removeItem(atPath: Counter.starPath)
        } else {
            try "yes".write(toFile: Counter.starPath, atomically: true, encoding: .utf8)
        }
        return .result()
    }
}

struct FixtureView: View {
    var entry: FixtureEntry
    @Environment(\.widgetFamily) var family

    var body: some View {
        VStack(alignment: .leading) {
            Text(entry.text).font(.headline)
            if entry.counter != nil {
                Button("Add one", intent: AddIntent(by: 1))
                Toggle("Starred", isOn: entry.starred, intent: StarIntent())
            } else {
                Text("family \(family.rawValue)").foregroundStyle(.secondary)
            }
        }
        .widgetURL(entry.link)
        .containerBackground(.fill.tertiary, for: .widget)
    }
}

struct PolicyProvider: TimelineProvider {
    let kind: String

    func placeholder(in context: Context) -> FixtureEntry {
        FixtureEntry(date: Date(), text: "\(kind) placeholder")
    }

    func getSnapshot(in context: Context, completion: @escaping (FixtureEntry) -> Void) {
        completion(FixtureEntry(date: Date(), text: "\(kind) snapshot"))
    }

    func getTimeline(in context: Context, completion: @escaping (Timeline<FixtureEntry>) -> Void) {
        let fetch = Fixture.logFetch(kind)
        let now = Date()
        let link = URL(string: "fixture://widget/\(kind)?fetch=\(fetch)")
        switch kind {
        case "AtEnd":
            let entries = [
                FixtureEntry(date: now, text: "\(kind) fetch \(fetch) first", link: link),
                FixtureEntry(date: now.addingTimeInterval(1), text: "\(kind) fetch \(fetch) second", link: link),
            ]
            completion(Timeline(entries: entries, policy: .atEnd))
        case "After":
            completion(
                Timeline(
                    entries: [FixtureEntry(date: now, text: "\(kind) fetch \(fetch)", link: link)],
                    policy: .after(now.addingTimeInterval(1))
                )
            )
        default:
            completion(
                Timeline(entries: [FixtureEntry(date: now, text: "\(kind) fetch \(fetch)", link: link)], policy: .never)
            )
        }
    }
}

struct PolicyWidget: Widget {
    var kind = "Steady"

    init() {}
    init(kind: String) { self.kind = kind }

    var body: some WidgetConfiguration {
        StaticConfiguration(kind: kind, provider: PolicyProvider(kind: kind)) { entry in
            FixtureView(entry: entry)
        }
        .configurationDisplayName("\(kind) widget")
        .description("Reloads \(kind).")
        .supportedFamilies([.systemSmall, .systemMedium])
    }
}

struct VictimProvider: TimelineProvider {
    func placeholder(in context: Context) -> FixtureEntry { FixtureEntry(date: Date(), text: "Victim placeholder") }

    func snapshot(in context: Context) async -> FixtureEntry { FixtureEntry(date: Date(), text: "Victim snapshot") }

    func timeline(in context: Context) async -> Timeline<FixtureEntry> {
        let fetch = Fixture.logFetch("Victim")
        switch Fixture.mode {
        case "crash":
            // A fault: process 1 of its own PID namespace ignores a signal it sends itself.
            signal(SIGSEGV, SIG_DFL)
            UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 0
        case "hang":
            try? await Task.sleep(for: .seconds(3600))
        case "memory":
            // 2 GiB touched, sixteen times a widget's default limit: a memory cgroup ends the
            // process; the address-space fallback refuses the allocation, and it says so.
            let bytes = 2 << 30
            if let memory = malloc(bytes) {
                memset(memory, 1, bytes)
                free(memory)
                return Timeline(
                    entries: [FixtureEntry(date: Date(), text: "Victim fetch \(fetch) touched")],
                    policy: .never
                )
            }
            return Timeline(
                entries: [FixtureEntry(date: Date(), text: "Victim fetch \(fetch) refused")],
                policy: .never
            )
        case "garbage":
            // Bytes that are no frame, straight onto the host's connection.
            var bytes = [UInt8](repeating: 0xEE, count: 64)
            _ = write(3, &bytes, bytes.count)
            try? await Task.sleep(for: .seconds(3600))
        default:
            break
        }
        if Fixture.mode == "interactive" {
            let entry = FixtureEntry(
                date: Date(),
                text: "Victim count \(Counter.count)",
                counter: Counter.count,
                starred: Counter.starred
            )
            return Timeline(entries: [entry], policy: .never)
        }
        if Fixture.mode == "hostile" {
            // What a hostile widget would draw: markup, quotes, terminal escapes, a script URL.
            let text =
                "<script>document.title='pwned'</script><img src=x onerror=alert(1)> \"q\" & 'a' \u{1B}[31mred\u{07}"
            return Timeline(
                entries: [FixtureEntry(date: Date(), text: text, link: URL(string: "javascript:alert(1)"))],
                policy: .never
            )
        }
        let text = Fixture.mode == "oversize" ? String(repeating: "x", count: 1000) : "Victim fetch \(fetch)"
        return Timeline(entries: [FixtureEntry(date: Date(), text: text)], policy: .never)
    }
}

struct VictimWidget: Widget {
    var body: some WidgetConfiguration {
        StaticConfiguration(kind: "Victim", provider: VictimProvider()) { entry in
            if entry.text.count > 500 {
                // Oversize: 200 copies of a 1,000-character text, far over 64 KiB.
                VStack { ForEach(0..<200) { _ in Text(entry.text) } }
            } else {
                FixtureView(entry: entry)
            }
        }
        .configurationDisplayName("Victim")
    }
}
