import AppexBuild
import AppexCommandCore
import AppexCore
import AppexSystem
import AppexVocabulary
import AppexWidgetHost
import AppexWidgetKit
import AppexWindow
import ArgumentParser
import Foundation

struct Widgets: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The system's widget host: list, show, reload, enable and disable widgets, or keep them current.",
        discussion: """
            Widgets are found in the apps on APPEX_APPS_PATH (default ~/Applications): each app's \
            Extensions/*.appex that binds to com.apple.widgetkit-extension (or the legacy \
            com.apple.widget-extension). Widgets on APPEX_EXTENSIONS_PATH are unapproved until enabled. \
            A widget extension is launched only when a timeline is needed; timelines, budgets and reload \
            requests live under $APPEX_HOME/Widgets. APPEX_WIDGET_RELOAD_BUDGET sets the daily reload \
            budget per widget (default 40).
            """,
        subcommands: [
            WidgetsList.self, WidgetsShow.self, WidgetsReload.self, WidgetsEnable.self, WidgetsDisable.self,
            WidgetsOpen.self, WidgetsRun.self, WidgetsServe.self, WidgetsConfigure.self,
        ]
    )
}

/// The options every widgets command that draws takes.
struct WidgetDrawingOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The family to show: systemSmall, systemMedium, systemLarge, systemExtraLarge, accessoryCircular, accessoryRectangular, accessoryInline (default: each widget's first).",
            valueName: "F"
        )
    )
    var family: String?

    @Option(help: ArgumentHelp("The box's width in cells (default: the family's).", valueName: "N"))
    var width: Int?

    @Option(help: ArgumentHelp("Also write the widgets as a self-contained HTML page to FILE.", valueName: "FILE"))
    var html: String?

    func widgetFamily() throws -> WidgetFamily? { try Self.widgetFamily(named: family) }

    /// The family `name` (nil: none asked for), or an error that lists them.
    static func widgetFamily(named family: String?) throws -> WidgetFamily? {
        guard let family else { return nil }
        guard let value = WidgetFamily(rawValue: family) else {
            throw fail(
                AppexError(
                    .refused,
                    "\(family) is not a widget family (one of: \(WidgetFamily.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            )
        }
        return value
    }
}

enum WidgetCommands {
    /// A widget host for the process's environment.
    static func host() throws -> WidgetHost {
        var configuration = WidgetHost.Configuration()
        if let text = ProcessInfo.processInfo.environment["APPEX_WIDGET_RELOAD_BUDGET"] {
            guard let budget = Int(text), budget >= 0 else {
                throw fail(AppexError(.refused, "APPEX_WIDGET_RELOAD_BUDGET=\(text) is not a count"))
            }
            configuration.dailyReloadBudget = budget
        }
        return try reporting { () throws(AppexError) in try WidgetHost(configuration: configuration) }
    }

    /// The states to draw: every enabled widget's, or those of `kind`.
    static func select(_ states: [WidgetState], kind: String?, host: WidgetHost) throws -> [WidgetState] {
        let shown = states.filter { $0.discovered.state == .enabled && !$0.key.kind.isEmpty }
        guard let kind else { return shown }
        let matching = shown.filter { $0.key.kind == kind }
        if matching.isEmpty {
            let known = shown.map(\.key.kind).joined(separator: ", ")
            throw fail(
                AppexError(
                    .notFound,
                    "no enabled widget of kind \(kind) (enabled: \(known.isEmpty ? "none" : known); searched \(host.searchDescription))",
                    context: AppexError.Context(widgetKind: kind)
                )
            )
        }
        return matching
    }

    /// The owner's decision about a widget extension, said back.
    static func setEnabled(_ enabled: Bool, _ bundleIdentifier: String) throws {
        let host = try host()
        try reporting { () throws(AppexError) in try host.setEnabled(enabled, bundleIdentifier: bundleIdentifier) }
        print("\(enabled ? "enabled" : "disabled") \(bundleIdentifier)")
    }

    static func draw(_ states: [WidgetState], options: WidgetDrawingOptions, now: Date) throws -> String {
        let renderer = TerminalRenderer(width: options.width, colors: Terminal.standardOutputIsTerminal)
        if let html = options.html {
            let page = HTMLRenderer().page(states.map { $0.frame(at: now) }, title: "Widgets")
            do { try page.write(toFile: html, atomically: true, encoding: .utf8) } catch {
                throw fail(
                    AppexError(
                        .fileSystem,
                        "cannot write \(html)",
                        context: AppexError.Context(path: html),
                        underlyingError: error
                    )
                )
            }
        }
        return states.map { renderer.render($0.frame(at: now)) }.joined(separator: "\n")
    }
}

struct WidgetsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List widgets: kind, family, health, entries, next reload, budget used, extension."
    )

    @Flag(help: "Also list widget extensions that are disabled, unapproved or invalid, with why.")
    var all = false

    @Flag(help: "Print JSON.")
    var json = false

    struct Record: Encodable {
        var kind: String
        var displayName: String
        var family: String
        var extensionIdentifier: String
        var state: String
        var health: String
        var status: String?
        var entries: Int
        var fetchedAt: Date?
        var nextReload: Date?
        var policy: String?
        var budgetUsed: Int
        var budgetLimit: Int
        var app: String?
    }

    func run() async throws {
        let host = try WidgetCommands.host()
        let states = try await reporting { () async throws(AppexError) in try await host.refresh() }
        var records = states.filter { !$0.key.kind.isEmpty }.map { state in
            Record(
                kind: state.key.kind,
                displayName: state.descriptor.displayName,
                family: state.key.family.rawValue,
                extensionIdentifier: state.key.extensionIdentifier,
                state: state.discovered.state.rawValue,
                health: Self.name(of: state.health),
                status: state.statusLine,
                entries: state.entries.count,
                fetchedAt: state.fetchedAt,
                nextReload: state.nextReload,
                policy: state.policy,
                budgetUsed: state.budgetUsed,
                budgetLimit: state.budgetLimit,
                app: state.app
            )
        }
        let others =
            all ? try reporting { () throws(AppexError) in try host.extensions() }.filter { $0.state != .enabled } : []
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            struct Listing: Encodable {
                var widgets: [Record]
                var otherExtensions: [Other]
            }
            struct Other: Encodable {
                var bundleIdentifier: String?
                var path: String
                var state: String
                var extensionPoint: String?
                var problems: [String]
                var note: String?
            }
            let listing = Listing(
                widgets: records,
                otherExtensions: others.map {
                    Other(
                        bundleIdentifier: $0.bundleIdentifier,
                        path: $0.path,
                        state: $0.state.rawValue,
                        extensionPoint: $0.extensionPoint,
                        problems: $0.problems.map(\.description),
                        note: $0.note
                    )
                }
            )
            print(String(decoding: try encoder.encode(listing), as: UTF8.self))
            return
        }
        records.sort { ($0.kind, $0.extensionIdentifier) < ($1.kind, $1.extensionIdentifier) }
        if records.isEmpty && others.isEmpty {
            print("no widgets (searched \(host.searchDescription))")
        }
        for record in records {
            let next = record.nextReload.map { ISO8601DateFormatter().string(from: $0) } ?? "-"
            print(
                "\(record.kind)\t\(record.family)\t\(record.state)/\(record.health)\t\(record.entries) entries\tnext reload \(next)\tbudget \(record.budgetUsed)/\(record.budgetLimit)\t\(record.extensionIdentifier)"
            )
            if let status = record.status { print("  \(status)") }
        }
        for other in others {
            print("\(other.bundleIdentifier ?? "?")\t\(other.state.rawValue)\t\(other.path)")
            if let note = other.note { print("  \(note)") }
            for problem in other.problems { print("  - \(problem)") }
        }
    }

    static func name(of health: WidgetState.Health) -> String {
        switch health {
        case .current: "current"
        case .notLoaded: "not-loaded"
        case .stale: "stale"
        case .budgetExhausted: "budget-exhausted"
        }
    }
}

struct WidgetsShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show widgets as the widget host draws them now, fetching timelines that are due."
    )

    @Argument(help: ArgumentHelp("A widget kind (default: every enabled widget).", valueName: "KIND"))
    var kind: String?

    @OptionGroup var options: WidgetDrawingOptions

    @Flag(help: "Show each widget's snapshot (the provider's preview, with sample data) instead of its timeline.")
    var preview = false

    func run() async throws {
        let host = try WidgetCommands.host()
        let family = try options.widgetFamily()
        if preview {
            // The widgets must be known (described) first: a refresh does that, and fetches what is due.
            let shown = try WidgetCommands.select(
                try await reporting { () async throws(AppexError) in try await host.refresh(family: family) },
                kind: kind,
                host: host
            )
            let renderer = TerminalRenderer(width: options.width, colors: Terminal.standardOutputIsTerminal)
            for state in shown {
                let frame = try await reporting { () async throws(AppexError) in try await host.preview(state) }
                print(renderer.render(frame))
            }
            return
        }
        let states = try await reporting { () async throws(AppexError) in
            try await host.refresh(family: family)
        }
        let shown = try WidgetCommands.select(states, kind: kind, host: host)
        if shown.isEmpty {
            print("no widgets to show (searched \(host.searchDescription))")
            return
        }
        print(try WidgetCommands.draw(shown, options: options, now: Date()))
    }
}

struct WidgetsReload: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Ask for new timelines of widgets of KIND (default: every widget), as WidgetCenter does."
    )

    @Argument(help: ArgumentHelp("A widget kind.", valueName: "KIND"))
    var kind: String?

    func run() throws {
        try reporting { () throws(AppexError) in try WidgetCenter.shared.requestReload(ofKind: kind) }
        print("reload requested for \(kind.map { "widgets of kind \($0)" } ?? "every widget")")
    }
}

struct WidgetsEnable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable",
        abstract: "Enable a widget extension (approve one found on APPEX_EXTENSIONS_PATH)."
    )

    @Argument(help: ArgumentHelp("The widget extension's bundle identifier.", valueName: "BUNDLE-ID"))
    var bundleIdentifier: String

    func run() throws { try WidgetCommands.setEnabled(true, bundleIdentifier) }
}

struct WidgetsDisable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable",
        abstract: "Disable a widget extension: it is no longer launched or shown."
    )

    @Argument(help: ArgumentHelp("The widget extension's bundle identifier.", valueName: "BUNDLE-ID"))
    var bundleIdentifier: String

    func run() throws { try WidgetCommands.setEnabled(false, bundleIdentifier) }
}

struct WidgetsOpen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Tap a widget: open its containing app with its widgetURL (or --url, a Link's destination)."
    )

    @Argument(help: ArgumentHelp("A widget kind.", valueName: "KIND"))
    var kind: String

    @Option(help: ArgumentHelp("The URL to open (default: the current entry's widgetURL).", valueName: "URL"))
    var url: String?

    func run() async throws {
        let host = try WidgetCommands.host()
        let states = try reporting { () throws(AppexError) in try host.states() }
        guard let state = try WidgetCommands.select(states, kind: kind, host: host).first else { return }
        let given = try url.map { text in
            guard let url = URL(string: text) else { throw fail(AppexError(.refused, "\(text) is not a URL")) }
            return url
        }
        let opened = try reporting { () throws(AppexError) in try host.open(given, from: state) }
        print("opened \(opened.app) with \(opened.url.absoluteString) (pid \(opened.processIdentifier))")
    }
}

struct WidgetsRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract:
            "Stay up as the widget host: keep timelines current and redraw when they change; stops on SIGINT or SIGTERM."
    )

    @OptionGroup var options: WidgetDrawingOptions

    func run() async throws {
        let host = try WidgetCommands.host()
        let family = try options.widgetFamily()
        let updates = host.updates(family: family)
        let task = Task {
            for await states in updates {
                let shown = states.filter { $0.discovered.state == .enabled && !$0.key.kind.isEmpty }
                let drawing = (try? WidgetCommands.draw(shown, options: options, now: Date())) ?? ""
                var screen = Terminal.standardOutputIsTerminal ? "\u{1B}[H\u{1B}[2J" : ""
                screen += "widgets at \(ISO8601DateFormatter().string(from: Date()))\n\(drawing)\n"
                // Written at once, unbuffered: a pipe sees each redraw as it happens.
                FileHandle.standardOutput.write(Data(screen.utf8))
            }
        }
        let signals = Terminal.onStopRequest { _ in task.cancel() }
        await task.value
        withExtendedLifetime(signals) {}
        FileHandle.standardOutput.write(Data("widget host stopped\n".utf8))
    }
}

struct WidgetsServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract:
            "Stay up as the widget host and serve the widget desktop: a local web page, current without reload, with the widget settings.",
        discussion: """
            Binds [::1] and 127.0.0.1 on one port (the kernel picks it, unless --port names one) and \
            prints the login link on the first line of standard output: open it in a browser. The link works once (it buys a session of its own); \
            the page then follows every timeline, reload, enable and disable by itself. SIGUSR1 \
            (`systemctl --user reload`) prints a new link, for another browser. A session ends with its page's \
            End session, after --idle-limit minutes with no page of it open, or (--single-session) when a newer \
            link is used. Stops on SIGINT or SIGTERM.
            """
    )

    @Option(
        help: ArgumentHelp(
            "Show each widget in this family when it supports it: systemSmall, systemMedium, systemLarge, systemExtraLarge, accessoryCircular, accessoryRectangular or accessoryInline.",
            valueName: "FAMILY"
        )
    )
    var family: String?

    @OptionGroup var window: WindowOptions

    @Option(
        help: ArgumentHelp(
            "Watch this Swift package: on each change of its sources, swift build (debug) and make again each installed widget whose executable the build changed; the desktop shows the new build by itself.",
            valueName: "PACKAGE"
        )
    )
    var watch: String?

    @Option(help: ArgumentHelp("With --watch: the team key the widgets are signed with.", valueName: "KEY"))
    var key: String?

    func validate() throws {
        // Bundled again without the key, a signed widget would be refused by the host.
        if (watch == nil) != (key == nil) {
            throw ValidationError(
                "--watch PACKAGE and --key KEY go together: the widgets are signed again as they are bundled"
            )
        }
    }

    func run() async throws {
        let host = try WidgetCommands.host()
        let family = try WidgetDrawingOptions.widgetFamily(named: family)
        let desktop = WidgetDesktop(host: host, family: family)
        if let watch, !FileManager.default.fileExists(atPath: AppexBundle.normalized(watch) + "/Package.swift") {
            throw fail(
                AppexError(
                    .notFound,
                    "--watch \(watch) is no Swift package (no Package.swift there)",
                    context: .init(path: watch)
                )
            )
        }
        var watching: Task<Void, any Error>?
        if let watch {
            let key = try key.map { path in try reporting { () throws(AppexError) in try SigningKey(contentsOf: path) }
            }
            let watcher = WidgetWatch(package: AppexBundle.normalized(watch), key: key, host: host)
            watching = Task {
                do { try await watcher.run() } catch let error as AppexError { report(error) }
            }
        }
        defer { watching?.cancel() }
        try await window.serve(desktop.pages, title: "Widgets", stopped: "widget desktop stopped")
    }
}
