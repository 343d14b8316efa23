import AppexCore
import AppexTestTiers
import AppexTesting
import AppexWidgetHost
import AppexWindow
import Foundation
import Testing

/// Live Activities: the fixture app (Tests/Fixtures/AppexFixtureWidgetApp) starts, updates and
/// ends a delivery with `Activity.request`, `update` and `end`; the widget host draws it with
/// the app's widget extension's `ActivityConfiguration` (Tests/Fixtures/AppexFixtureConfiguredWidget)
/// and shows it as a tile while it runs.
@Suite(.timed) struct WidgetActivityTests {
    /// Runs the app: `activity start|update|end …`.
    static func app(_ widgets: WidgetWorld, _ arguments: [String]) async throws -> String {
        let output = try await run(
            widgets.app + "/HostApp",
            ["activity"] + arguments,
            environment: widgets.processVariables
        )
        try #require(output.status == 0, "\(output)")
        return output.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "an app's Activity.request shows a tile drawn by its widget extension's ActivityConfiguration; update(_:) redraws it; end(_:dismissalPolicy: .immediate) removes it; none takes from the reload budget"
    )
    func requestUpdateEnd() async throws {
        let widgets = try WidgetConfigurationTests.world()
        let host = try widgets.host()
        let before = try await host.refresh()
        #expect(!before.contains { $0.key.kind.hasPrefix("activity:") }, "no activity runs: no tile")
        #expect(before.widget("Emoji") != nil)

        let id = try await Self.app(widgets, ["start", "42", "20"])
        let started = try await host.refresh()
        let kind = "activity:DeliveryAttributes#" + id
        let tile = try #require(started.widget(kind), "\(started.map(\.key.kind))")
        #expect(tile.texts() == ["Order 42", "20 min"])
        #expect(tile.health == .current && tile.budgetUsed == 0)
        #expect(tile.app == widgets.app)
        // Drawing it launched no widget's timeline: Emoji's budget is as it was.
        #expect(started.widget("Emoji")?.budgetUsed == before.widget("Emoji")?.budgetUsed)

        _ = try await Self.app(widgets, ["update", id, "5"])
        #expect(try await host.refresh().widget(kind)?.texts() == ["Order 42", "5 min"])
        // Nothing changed: nothing is drawn again (the state is the same drawing).
        let drawnAt = try host.states().widget(kind)?.fetchedAt
        #expect(try await host.refresh().widget(kind)?.fetchedAt == drawnAt)

        _ = try await Self.app(widgets, ["end", id, "immediate"])
        let ended = try await host.refresh()
        #expect(ended.widget(kind) == nil)
        let files =
            (try? FileManager.default.contentsOfDirectory(atPath: widgets.environment.home + "/Widgets/Activities"))
            ?? []
        #expect(files.isEmpty, "a dismissed activity's file is removed: \(files)")
    }

    @Test(
        "an activity ended with the default policy stays shown with its last content and takes no update; the widget desktop shows it as a tile"
    )
    func endedStaysAndDesktopShowsIt() async throws {
        let widgets = try WidgetConfigurationTests.world()
        let host = try widgets.host()
        let id = try await Self.app(widgets, ["start", "7", "12"])
        _ = try await Self.app(widgets, ["end", id])
        let kind = "activity:DeliveryAttributes#" + id
        let states = try await host.refresh()
        let tile = try #require(states.widget(kind))
        #expect(tile.texts() == ["Order 7", "12 min"])
        #expect(tile.descriptor.description == "Live Activity (ended)")
        // Ended: still among the app's activities until dismissed, and an update changes nothing.
        _ = try await Self.app(widgets, ["update", id, "1"])
        #expect(try await host.refresh().widget(kind)?.texts() == ["Order 7", "12 min"])

        let desktop = WidgetDesktop(host: try widgets.host())
        let window = try await TestWindow(desktop.pages)
        let cookie = try await window.logIn()
        let page = try await window.request("GET", "/", headers: ["Cookie": cookie])
        #expect(page.body.contains("data-widget=\"\(kind) (systemMedium) of"), "\(page.body)")
        #expect(page.body.contains("Order 7"))
    }

    @Test(
        "an activity whose content passes its stale date is drawn again with isStale, without an update; the host wakes at that date"
    )
    func goesStale() async throws {
        let widgets = try WidgetConfigurationTests.world()
        let host = try widgets.host()
        let id = try await Self.app(widgets, ["start", "9", "30", "600"])
        let kind = "activity:DeliveryAttributes#" + id
        let fresh = try #require(try await host.refresh().widget(kind))
        #expect(fresh.texts() == ["Order 9", "30 min"])
        // Its next change is the stale date, which wakes a running host (not 5 minutes later).
        let staleAt = try #require(fresh.nextReload)
        #expect(abs(staleAt.timeIntervalSinceNow - 600) < 30, "\(staleAt)")
        #expect(WidgetHost.nextDue([fresh], after: Date(), configuration: host.configuration) == staleAt)
        let later = try await host.refresh(now: staleAt.addingTimeInterval(1))
        #expect(later.widget(kind)?.texts() == ["Order 9", "late"])
    }

    @Test("an activity file that is not JSON, or names attributes no widget draws, shows nothing and stops nothing")
    func badFilesShowNothing() async throws {
        let widgets = try WidgetConfigurationTests.world()
        let folder = widgets.environment.home + "/Widgets/Activities"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "not json".write(toFile: folder + "/garbage.activity", atomically: true, encoding: .utf8)
        let unknown = """
            {"id":"u1","type":"NobodysAttributes","attributes":"{}","state":"{}","relevanceScore":0,\
            "activityState":"active","updatedAt":0,"revision":1}
            """
        try unknown.write(toFile: folder + "/u1.activity", atomically: true, encoding: .utf8)
        let notJSON = """
            {"id":"u2","type":"DeliveryAttributes","attributes":"{","state":"{}","relevanceScore":0,\
            "activityState":"active","updatedAt":0,"revision":1}
            """
        try notJSON.write(toFile: folder + "/u2.activity", atomically: true, encoding: .utf8)
        let host = try widgets.host()
        let states = try await host.refresh()
        #expect(states.widget("Emoji")?.texts() == ["😃", "mood happy", "color none"])
        #expect(!states.contains { $0.key.kind.contains("u1") })
        let broken = try #require(states.widget("activity:DeliveryAttributes#u2"))
        guard case .stale(let code, let reason, _) = broken.health else {
            Issue.record("\(broken.health)")
            return
        }
        #expect(code == "corrupt-value" && reason.contains("not JSON"), "\(reason)")
    }
}
