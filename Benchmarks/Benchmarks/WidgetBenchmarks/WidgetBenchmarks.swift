// Widget figures (issue 12), each beside its baseline measured in the same run:
//
// - widget.timeline.first: a widget shown for the first time: WidgetHost.refresh() launches the
//   benchmark widget extension (Fixtures/BenchWidget, linked as the appex-bundle plugin links a
//   widget: static Swift and C++ runtimes, in start order), which in that
//   one launch describes its widgets (a first launch must: the host knows no descriptors yet)
//   and answers the placeholder and the timeline (three entries); then the current entry is
//   drawn by the TerminalRenderer. Each sample is a new APPEX_HOME, so the host must fetch;
//   the host and its discovery's first snapshot are made before the measurement (a running
//   host has discovered its widgets before it shows one). Baseline: launch.first-reply's, a
//   posix_spawn of a C program until the byte it writes is read. Target: at most 5 ms more.
// - widget.render.terminal / widget.render.html: one entry of a list widget (a title, five rows
//   of symbol, name, spacer and relative date, a divider, a footer, a container background)
//   drawn by the TerminalRenderer / HTMLRenderer's fragment; the view tree is made once and
//   the frame's `now` is fixed. Baseline: Foundation's JSONEncoder encoding the same data (title,
//   five rows of name and date, footer). Target: at most 50 µs an entry.
// - widget.host.100 (issue 28): 100 widget extensions (the benchmark widget in 100 bundles, the
//   executable hard-linked) whose timelines are all due at once (each ended: the host is asked
//   for a moment three minutes later), brought up to date by one WidgetHost.refresh(): every
//   widget fetched again, the host's default configuration (4 fetches at once, processes kept
//   warm within 64 MiB). The first display is made before the timing. Baseline: 100 times
//   widget.timeline.first, measured in the same run (Scripts/bench.sh scales it). Target: at
//   most 0.5x: the host must overlap them.
// - widget.host.rss.20: the resident memory (VmRSS) of a widget-host process (a child,
//   Fixtures/BenchWidgetHostRSS, one per sample) once 20 widgets are shown: 20 extensions
//   launched, their timelines fetched, their frames drawn by both renderers. Baseline: the same
//   program's idle host (WidgetHost made over an empty apps folder, one states()). Recorded in
//   the custom metric "rss", in bytes. Target: at most 20 MB more.
import BenchChildren
import AppexBuild
import AppexCore
import AppexTesting
import AppexWidgetHost
import AppexWidgetKit
import Benchmark
import BenchSmoke
import BenchWidgetViews
import CPingPong
import Foundation

/// Apps folders holding the benchmark widget, made once per benchmark process.
final class WidgetWorld: Sendable {
    static let shared: WidgetWorld = {
        do { return try WidgetWorld() } catch {
            FileHandle.standardError.write(Data("cannot build the widget benchmarks' fixture: \(error)\n".utf8))
            exit(1)
        }
    }()

    let world: AppexTestEnvironment
    let binDirectory: String
    /// An apps folder with one app holding one widget extension.
    let oneWidget: String
    /// The widgets of widget.host.rss.20 and of widget.host.100 (4 and 10 in a smoke run).
    static let twenty = fixtureSize(20, smoke: 4)
    static let hundred = fixtureSize(100, smoke: 10)
    /// An apps folder with one app holding twenty widget extensions (one widget each).
    let twentyWidgets: String
    /// An empty apps folder.
    let noWidgets: String
    /// An apps folder with one app holding a hundred widget extensions (one widget each), the
    /// executable hard-linked.
    let hundredWidgets: String

    init() throws {
        world = try AppexTestEnvironment(prefix: "appex-bench-widgets")
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        binDirectory = URL(fileURLWithPath: me).deletingLastPathComponent().path
        oneWidget = try Self.makeApps(at: world.root.appending("OneWidget"), widgets: 1, binDirectory: binDirectory, team: world.team)
        twentyWidgets = try Self.makeApps(at: world.root.appending("TwentyWidgets"), widgets: Self.twenty, binDirectory: binDirectory, team: world.team)
        noWidgets = world.root.appending("NoWidgets")
        try FileManager.default.createDirectory(atPath: noWidgets, withIntermediateDirectories: true)
        hundredWidgets = world.root.appending("HundredWidgets")
        let app = hundredWidgets + "/BenchApp.app"
        try FixtureBundles.makeHostApp(at: app, bundleIdentifier: "com.example.benchapp", extensionPoints: [], signedBy: world.team)
        // The executable as `appex bundle` ships it (without the libcurl it never calls), once.
        let shipped = world.root.appending("BenchWidget")
        let built = try Data(contentsOf: URL(fileURLWithPath: binDirectory + "/BenchWidget"))
        try (UnusedCurl.removed(from: built) ?? built).write(to: URL(fileURLWithPath: shipped))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: shipped)
        for index in 0..<Self.hundred {
            let bundle = try FixtureBundles.makeExtension(in: app + "/Extensions", name: "BenchWidget\(index)",
                                                          bundleIdentifier: "com.example.benchapp.widget\(index)",
                                                          extensionPoint: "com.apple.widgetkit-extension",
                                                          info: ["CFBundleExecutable": .string("BenchWidget")])
            // Hard-linked: a hundred copies of a 30 MB executable would be 3 GB written.
            try FileManager.default.removeItem(atPath: bundle + "/BenchWidget")
            try FileManager.default.linkItem(atPath: shipped, toPath: bundle + "/BenchWidget")
            try AppexBundle.sign(at: bundle, with: world.team)
        }
        // 1.7 GB of bundles were just written (21 copies of an 82 MB executable): on the disk
        // before any sample, or their writeback runs beside the launches measured.
        sync()
    }

    /// An apps folder at `folder` with `BenchApp.app`, whose `Extensions/` holds `widgets` copies
    /// of the BenchWidget extension under different identifiers, all signed by `team`.
    static func makeApps(at folder: String, widgets: Int, binDirectory: String, team: SigningKey) throws -> String {
        let app = folder + "/BenchApp.app"
        try FixtureBundles.makeHostApp(at: app, bundleIdentifier: "com.example.benchapp", extensionPoints: [], signedBy: team)
        for index in 0..<widgets {
            try FixtureBundles.bundle(executable: binDirectory + "/BenchWidget", in: app + "/Extensions", name: "BenchWidget\(index)",
                                      bundleIdentifier: "com.example.benchapp.widget\(index)", signedBy: team)
        }
        return folder
    }

    /// Runs BenchWidgetHostRSS in `mode` over `apps`; returns the widgets it showed and its VmRSS
    /// in bytes.
    func hostResidentMemory(_ mode: String, apps: String) throws -> (widgets: Int, bytes: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binDirectory + "/BenchWidgetHostRSS")
        process.arguments = [mode, apps]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var fields: [String: Int] = [:]
        for field in text.split(whereSeparator: \.isWhitespace) {
            let parts = field.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
        }
        guard process.terminationStatus == 0, let widgets = fields["widgets"], let kilobytes = fields["rss_kb"] else {
            preconditionFailure("BenchWidgetHostRSS \(mode) failed (status \(process.terminationStatus)): \(text)")
        }
        return (widgets, kilobytes * 1024)
    }
}

/// Removes `path`, again if something ended in the background removed a file under it meanwhile:
/// the widget host ends a refresh's extension processes after the refresh returns, and SQLite
/// drops a database's -shm file when the last connection (the process's discovery) closes.
func removeTree(_ path: String) throws {
    for attempt in 1...5 {
        do {
            try FileManager.default.removeItem(atPath: path)
            return
        } catch where attempt < 5 {
            usleep(5_000)
        }
    }
}

/// The data of a list entry, as an app would send it as JSON: the render figures' baseline.
struct ListEntryData: Codable {
    struct Row: Codable {
        var name: String
        var date: Date
    }
    var title: String
    var rows: [Row]
    var footer: String

    init(_ entry: BenchListEntry) {
        title = entry.title
        rows = entry.rows.map { Row(name: $0.name, date: $0.date) }
        footer = entry.footer
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 100,
                                           maxDuration: .seconds(5), maxIterations: 20_000)

    // MARK: - First display

    // In microseconds: a difference of a few milliseconds is the figure, so whole milliseconds
    // would round it by as much as the target allows.
    let launches = Benchmark.Configuration(timeUnits: .microseconds, warmupIterations: 3, maxIterations: 100)

    Benchmark("widget.timeline.first", configuration: launches) { benchmark in
        let world = WidgetWorld.shared
        let renderer = TerminalRenderer()
        for _ in benchmark.scaledIterations {
            let home = world.world.root.appending("Home-\(UUID().uuidString)")
            let environment = AppexEnvironment(home: home, appsPath: [world.oneWidget])
            do {
                let host = try WidgetHost(configuration: WidgetHost.Configuration(environment: environment))
                let found = try host.states().count
                precondition(found == 1, "the benchmark widget extension is not found")
                benchmark.startMeasurement()
                let states = try await host.refresh()
                let drawing = renderer.render(states[0].frame())
                benchmark.stopMeasurement()
                precondition(states.count == 1 && states[0].health == .current && !states[0].entries.isEmpty,
                             "the benchmark widget has no timeline: \(states.map { ($0.key, $0.health) })")
                blackHole(drawing)
            }
            try removeTree(home)
            try? FileManager.default.removeItem(atPath: environment.keysDirectory)
        }
    }

    Benchmark("widget.timeline.first.baseline", configuration: launches) { benchmark in
        let path = BareChild.path(of: "FirstByte")
        for _ in benchmark.scaledIterations {
            var nanoseconds: UInt64 = 0
            benchmark.startMeasurement()
            precondition(cpingpong_spawn_first_byte(path, &nanoseconds) == 0)
            benchmark.stopMeasurement()
        }
    }

    // MARK: - Rendering one entry

    let now = Date(timeIntervalSince1970: 1_750_000_000)
    let entry = BenchListEntry.sample(at: now)
    let frame = WidgetFrame(kind: "BenchList", displayName: "Recently active", family: .systemLarge,
                            tree: ViewTree(BenchListView(entry: entry), family: .systemLarge), now: now)
    let utc = TimeZone(identifier: "UTC") ?? .current
    let data = ListEntryData(entry)
    let json: @Sendable (Benchmark) throws -> Void = { benchmark in
        let encoder = JSONEncoder()
        for _ in benchmark.scaledIterations { blackHole(try encoder.encode(data)) }
    }

    Benchmark("widget.render.terminal") { benchmark in
        let renderer = TerminalRenderer(timeZone: utc)
        for _ in benchmark.scaledIterations { blackHole(renderer.render(frame)) }
    }

    Benchmark("widget.render.terminal.baseline") { try json($0) }

    Benchmark("widget.render.html") { benchmark in
        let renderer = HTMLRenderer(timeZone: utc)
        for _ in benchmark.scaledIterations { blackHole(renderer.fragment(frame)) }
    }

    Benchmark("widget.render.html.baseline") { try json($0) }

    // MARK: - At scale

    Benchmark("widget.host.100", configuration: .init(timeUnits: .microseconds, warmupIterations: 1,
                                                      maxDuration: .seconds(60), maxIterations: 5)) { benchmark in
        let world = WidgetWorld.shared
        let environment = AppexEnvironment(home: world.world.root.appending("Home100-\(UUID().uuidString)"),
                                           appsPath: [world.hundredWidgets])
        var configuration = WidgetHost.Configuration(environment: environment)
        configuration.dailyReloadBudget = 1_000_000
        configuration.minimumReloadInterval = .zero
        let host = try WidgetHost(configuration: configuration)
        defer { host.endWarmProcesses() }
        var moment = Date()
        let shown = try await host.refresh(now: moment)  // the first display, untimed
        let hundred = WidgetWorld.hundred
        precondition(shown.count == hundred && shown.allSatisfy { $0.health == .current },
                     "the hundred widgets are not all shown: \(shown.filter { $0.health != .current }.map { ($0.key, $0.health) })")
        for _ in benchmark.scaledIterations {
            moment = moment.addingTimeInterval(180)  // every timeline (three entries a minute apart, .atEnd) ended
            benchmark.startMeasurement()
            let states = try await host.refresh(now: moment)
            benchmark.stopMeasurement()
            let fetched = states.filter { $0.health == .current && ($0.fetchedAt.map { $0 >= moment } ?? false) }
            precondition(fetched.count == hundred, "\(fetched.count) of the \(hundred) widgets were fetched again")
        }
    }

    // MARK: - The host's memory

    // A child process per sample; its VmRSS, in bytes.
    let rss = BenchmarkMetric.custom("rss", polarity: .prefersSmaller, useScalingFactor: false)
    let memory = Benchmark.Configuration(metrics: [rss], warmupIterations: 1, maxDuration: .seconds(60), maxIterations: 10)

    Benchmark("widget.host.rss.20", configuration: memory) { benchmark in
        let shown = try WidgetWorld.shared.hostResidentMemory("shown", apps: WidgetWorld.shared.twentyWidgets)
        precondition(shown.widgets == WidgetWorld.twenty, "the host showed \(shown.widgets) widgets, not \(WidgetWorld.twenty)")
        benchmark.measurement(rss, shown.bytes)
    }

    Benchmark("widget.host.rss.20.baseline", configuration: memory) { benchmark in
        let idle = try WidgetWorld.shared.hostResidentMemory("idle", apps: WidgetWorld.shared.noWidgets)
        benchmark.measurement(rss, idle.bytes)
    }

    applySmokeModeIfAsked()  // last: every benchmark above runs once under Scripts/bench.sh --smoke
}
