import AppexTestTiers
import AppexTesting
import Foundation
import Synchronization
import Testing

/// `appex widgets` as separate processes: each is a start of the widget host, so what one
/// fetched another shows without launching; `run` stays up, acts on an app's reload request at
/// once, and stops cleanly on SIGTERM.
@Suite(.serialized, .timed) struct WidgetCLITests {
    @Test(
        "timelines survive a restart of the widget host: a second `appex widgets show` shows them without launching the widget"
    )
    func showTwice() async throws {
        let widgets = try WidgetWorld()
        let first = try await run(
            appexExecutable,
            ["widgets", "show", "Steady"],
            environment: widgets.processVariables
        )
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains("Steady fetch 1"), "\(first.standardOutput)")
        #expect(first.standardOutput.contains("╭─ Steady widget"), "\(first.standardOutput)")
        #expect(!first.standardOutput.contains("\u{1B}"), "colour on a pipe")
        let second = try await run(
            appexExecutable,
            ["widgets", "show", "Steady"],
            environment: widgets.processVariables
        )
        #expect(second.standardOutput.contains("Steady fetch 1"), "\(second.standardOutput)")
        #expect(widgets.fetches("Steady") == 1)
    }

    @Test(
        "`appex widgets show KIND --html FILE` writes a self-contained page; an unknown kind exits 1 and names the kinds there are"
    )
    func showHTMLAndUnknownKind() async throws {
        let widgets = try WidgetWorld()
        let page = widgets.world.root.appending("widgets.html")
        let shown = try await run(
            appexExecutable,
            ["widgets", "show", "Steady", "--family", "systemMedium", "--html", page],
            environment: widgets.processVariables
        )
        #expect(shown.status == 0, "\(shown.standardError)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("family-systemMedium"))
        #expect(html.contains("Steady fetch 1"))
        #expect(!html.contains("<script"))
        let unknown = try await run(
            appexExecutable,
            ["widgets", "show", "Nope"],
            environment: widgets.processVariables
        )
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("no enabled widget of kind Nope"), "\(unknown.standardError)")
        #expect(unknown.standardError.contains("Steady"), "\(unknown.standardError)")
    }

    @Test("budget exhaustion is reported by `appex widgets list` (APPEX_WIDGET_RELOAD_BUDGET)")
    func budgetInList() async throws {
        let widgets = try WidgetWorld()
        var variables = widgets.processVariables
        variables["APPEX_WIDGET_RELOAD_BUDGET"] = "1"
        _ = try await run(appexExecutable, ["widgets", "show"], environment: variables)
        _ = try await widgets.appRequestsReload("Steady")
        let list = try await run(appexExecutable, ["widgets", "list"], environment: variables)
        #expect(list.status == 0, "\(list.standardError)")
        #expect(list.standardOutput.contains("Steady\tsystemSmall\tenabled/budget-exhausted"), "\(list.standardOutput)")
        #expect(list.standardOutput.contains("reload budget of 1 per day used up"), "\(list.standardOutput)")
        #expect(widgets.fetches("Steady") == 1)
    }

    @Test("`appex widgets run` redraws at once when the app asks for a reload, and stops cleanly on SIGTERM")
    func runActsOnReloadAndStops() async throws {
        let widgets = try WidgetWorld()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: appexExecutable)
        process.arguments = ["widgets", "run"]
        process.environment = widgets.processVariables
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.runWithSignalsUnblocked()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let screen = Screen(output.fileHandleForReading)
        #expect(await eventually(within: 20) { screen.text.contains("Steady fetch 1") })
        _ = try await widgets.appRequestsReload("Steady")
        let asked = Date()
        #expect(await eventually(within: 20) { screen.text.contains("Steady fetch 2") }, "\(screen.text)")
        #expect(Date().timeIntervalSince(asked) < 10)
        kill(process.processIdentifier, SIGTERM)
        #expect(await eventually(within: 10) { !process.isRunning })
        #expect(process.terminationStatus == 0)
        #expect(await eventually(within: 5) { screen.text.contains("widget host stopped") })
    }
}

/// Collects what a process writes, as it writes it.
final class Screen: Sendable {
    private let collected = Mutex("")
    init(_ handle: FileHandle) {
        handle.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                return
            }
            self?.collected.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
    }
    var text: String { collected.withLock { $0 } }
}
