import AppexCore
import AppexHost
import AppexTestTiers
import AppexTesting
import AppexWidgetHost
import AppexWidgetKit
import Foundation
import Testing

/// The system's widget host with real widget extension processes: discovery in apps on the apps
/// path, the scheduler's reload policies, reload requests from the containing app's process,
/// the daily budget, and isolation of a widget that crashes, hangs or answers garbage.
@Suite(.serialized, .timed) struct WidgetHostTests {
    @Test("a widget inside an app on the apps path is found, described and shown with its timeline")
    func findsAndShowsWidgets() async throws {
        let widgets = try WidgetWorld()
        let host = try widgets.host()
        let states = try await host.refresh()
        #expect(Set(states.map(\.key.kind)) == ["AtEnd", "After", "Never", "Steady", "Victim"])
        for state in states {
            #expect(state.health == .current, "\(state.key): \(state.statusLine ?? "")")
            #expect(state.discovered.origin == .app)
            #expect(state.app == widgets.app)
        }
        let steady = try #require(states.widget("Steady"))
        #expect(steady.descriptor.displayName == "Steady widget")
        #expect(steady.key.family == .systemSmall)
        #expect(steady.texts() == ["Steady fetch 1", "family systemSmall"])
        // A placeholder is asked for only when a first timeline fails (see WidgetSchedulerTests).
        #expect(steady.placeholder == nil)
        // One launch answered every widget: each kind was fetched once.
        for kind in ["AtEnd", "After", "Never", "Steady", "Victim"] { #expect(widgets.fetches(kind) == 1) }
    }

    @Test(
        "a widget extension replaced by another build shows the new build's timelines at the next refresh, its stored ones still current"
    )
    func replacedExtensionReloads() async throws {
        let widgets = try WidgetWorld()
        let host = try widgets.host()
        let first = try await host.refresh()
        #expect(first.widget("Steady")?.texts().first == "Steady fetch 1")
        _ = try await host.refresh()
        #expect(widgets.fetches("Steady") == 1, "nothing is due yet")
        // The developer's loop: rebuilt, bundled again in place (what `appex widgets show` meets
        // after `swift package appex-bundle`).
        _ = try FixtureBundles.bundle(
            executable: widgetExecutable,
            in: widgets.app + "/Extensions",
            name: "FixtureWidgets",
            bundleIdentifier: WidgetWorld.widgetsIdentifier,
            signedBy: widgets.world.team
        )
        let after = try await host.refresh()
        #expect(widgets.fetches("Steady") == 2)
        #expect(after.widget("Steady")?.texts().first == "Steady fetch 2", "the old build's timeline is shown")
        #expect(after.widget("Steady")?.health == .current)
    }

    @Test("each reload policy: .atEnd and .after fetch again when due, .never does not, and nothing launches before")
    func reloadPolicies() async throws {
        let widgets = try WidgetWorld()
        let host = try widgets.host()
        let start = Date()
        _ = try await host.refresh(now: start)
        _ = try await host.refresh(now: start)
        for kind in ["AtEnd", "After", "Never", "Steady"] { #expect(widgets.fetches(kind) == 1, "\(kind)") }

        // Before the second entry's date, the host advances to it without launching anything.
        let first = try #require(try host.states(now: start).widget("AtEnd"))
        try #require(first.entries.count == 2)
        let (one, two) = (first.entries[0].date, first.entries[1].date)
        #expect(first.texts(at: one).first == "AtEnd fetch 1 first")
        #expect(first.texts(at: two.addingTimeInterval(-0.001)).first == "AtEnd fetch 1 first")
        #expect(first.texts(at: two).first == "AtEnd fetch 1 second")
        #expect(first.nextEntryDate(after: one) == two)

        let later = try await host.refresh(now: Date().addingTimeInterval(3))
        #expect(widgets.fetches("AtEnd") == 2)
        #expect(widgets.fetches("After") == 2)
        #expect(widgets.fetches("Never") == 1)
        #expect(widgets.fetches("Steady") == 1)
        #expect(later.widget("After")?.texts(at: Date().addingTimeInterval(3)).first == "After fetch 2")
    }

    @Test(
        "a reload requested by the containing app's process (WidgetCenter) fetches that kind once, at the next refresh"
    )
    func reloadFromTheApp() async throws {
        let widgets = try WidgetWorld()
        let host = try widgets.host()
        _ = try await host.refresh()
        let output = try await widgets.appRequestsReload("Never")
        #expect(output.status == 0, "\(output.standardError)")
        let reloads = widgets.environment.home + "/Widgets/Reloads"
        #expect(try FileManager.default.contentsOfDirectory(atPath: reloads).count == 1)
        let states = try await host.refresh()
        #expect(widgets.fetches("Never") == 2)
        #expect(widgets.fetches("Steady") == 1)
        #expect(states.widget("Never")?.texts().first == "Never fetch 2")
        #expect(try FileManager.default.contentsOfDirectory(atPath: reloads).isEmpty)
        _ = try await host.refresh()
        #expect(widgets.fetches("Never") == 2)
    }

    @Test("a running widget host acts on the app's reload request at once")
    func runningHostActsOnReload() async throws {
        let widgets = try WidgetWorld()
        let host = try widgets.host()
        let updates = host.updates(rescan: .seconds(600))
        var iterator = updates.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.widget("Steady")?.texts().first == "Steady fetch 1")
        let output = try await widgets.appRequestsReload(nil)
        #expect(output.status == 0, "\(output.standardError)")
        let started = Date()
        var reloaded = false
        while !reloaded, Date().timeIntervalSince(started) < 20, let states = await iterator.next() {
            reloaded = states.widget("Steady")?.texts().first == "Steady fetch 2"
        }
        #expect(reloaded)
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test(
        "a widget that used its daily reload budget keeps its last timeline and says so, until the budget renews at midnight UTC on the environment's clock"
    )
    func budgetExhaustion() async throws {
        let widgets = try WidgetWorld()
        let clock = widgets.environment.clock
        let host = try widgets.host(budget: 2)
        _ = try await host.refresh()
        try clock.advance(by: .seconds(3))
        _ = try await host.refresh()
        try clock.advance(by: .seconds(3))
        let states = try await host.refresh()
        #expect(widgets.fetches("AtEnd") == 2)
        let atEnd = try #require(states.widget("AtEnd"))
        guard case .budgetExhausted(let limit, _) = atEnd.health else {
            Issue.record("AtEnd is \(atEnd.health), not out of budget")
            return
        }
        #expect(limit == 2)
        #expect(atEnd.budgetUsed == 2)
        #expect(atEnd.statusLine?.contains("reload budget of 2 per day used up") == true)
        #expect(atEnd.texts(at: clock.now).first == "AtEnd fetch 2 second")
        #expect(states.widget("Steady")?.health == .current)
        // Another process sees it too: the state is on disk.
        let other = try widgets.host(budget: 2)
        #expect(try other.states().widget("AtEnd")?.statusLine == atEnd.statusLine)
        // Past midnight UTC on the environment's clock (no waiting), the budget is new.
        let seconds = clock.now.timeIntervalSince1970
        try clock.advance(by: .seconds(((seconds / 86_400).rounded(.down) + 1) * 86_400 - seconds + 1))
        let renewed = try #require(try await host.refresh().widget("AtEnd"))
        #expect(widgets.fetches("AtEnd") == 3)
        #expect(renewed.budgetUsed == 1, "\(renewed.health)")
    }

    struct Misbehaviour: Sendable, CustomTestStringConvertible {
        var mode: String
        var code: String
        var reason: String
        var testDescription: String { mode }
    }

    @Test(
        "a widget that crashes, goes past its memory limit, hangs or answers garbage keeps its last good timeline, stale with the reason; the others are unaffected",
        arguments: [
            Misbehaviour(mode: "crash", code: "interrupted", reason: "crashed"),
            Misbehaviour(
                mode: "memory",
                code: "interrupted",
                reason: "ended past its memory limit of 128 MiB (memory-limit)"
            ),
            Misbehaviour(mode: "hang", code: "deadline-exceeded", reason: "did not answer within"),
            Misbehaviour(mode: "garbage", code: "protocol-violation", reason: "garbage"),
            Misbehaviour(mode: "oversize", code: "view-tree-too-large", reason: "widget Victim"),
        ]
    )
    func isolation(_ misbehaviour: Misbehaviour) async throws {
        let widgets = try WidgetWorld()
        let host = try widgets.host(deadline: .seconds(2))
        _ = try await host.refresh()
        try widgets.setVictimMode(misbehaviour.mode)
        _ = try await widgets.appRequestsReload(nil)
        let states = try await host.refresh()
        let victim = try #require(states.widget("Victim"))
        guard case .stale(let code, let reason, _) = victim.health else {
            Issue.record("Victim is \(victim.health), not stale")
            return
        }
        #expect(code == misbehaviour.code, "\(reason)")
        #expect(reason.contains(misbehaviour.reason), "\(reason)")
        #expect(victim.texts().first == "Victim fetch 1")
        #expect(victim.statusLine?.contains("showing its last good timeline") == true)
        for kind in ["AtEnd", "After", "Never", "Steady"] {
            #expect(states.widget(kind)?.health == .current, "\(kind)")
            #expect(states.widget(kind)?.texts().first?.hasPrefix("\(kind) fetch 2") == true, "\(kind)")
        }
    }

    @Test(
        "where no memory cgroup holds a widget's limit, RLIMIT_AS does (128 MiB plus the reserve): the fixture widgets, which map Foundation, all run under it, and an allocation past it is refused while the widget lives on"
    )
    func memoryLimitWithoutCgroup() async throws {
        let widgets = try WidgetWorld()
        let host = try widgets.host(addressSpaceLimit: true)
        let first = try await host.refresh()
        for kind in ["AtEnd", "After", "Never", "Steady", "Victim"] {
            #expect(
                first.widget(kind)?.health == .current,
                "\(kind): \(String(describing: first.widget(kind)?.health))"
            )
        }
        try widgets.setVictimMode("memory")
        _ = try await widgets.appRequestsReload(nil)
        let states = try await host.refresh()
        let victim = try #require(states.widget("Victim"))
        #expect(victim.health == .current, "\(victim.health)")
        #expect(victim.texts().first == "Victim fetch 2 refused", "\(victim.texts())")
    }

    @Test("timelines survive a restart of the widget host: a new host shows them without launching anything")
    func timelinesSurviveRestart() async throws {
        let widgets = try WidgetWorld()
        do {
            let host = try widgets.host()
            _ = try await host.refresh()
        }
        let restarted = try widgets.host()
        let states = try await restarted.refresh()
        #expect(states.widget("Steady")?.texts().first == "Steady fetch 1")
        #expect(widgets.fetches("Steady") == 1)
    }

    @Test("a widget from APPEX_EXTENSIONS_PATH is unapproved and never launched until the owner enables it")
    func unapprovedUntilEnabled() async throws {
        let widgets = try WidgetWorld()
        try FileManager.default.removeItem(atPath: widgets.app + "/Extensions/FixtureWidgets.appex")
        try FixtureBundles.bundle(
            executable: widgetExecutable,
            in: widgets.world.searchFolder,
            name: "Elsewhere",
            bundleIdentifier: "org.example.elsewhere.widgets",
            signedBy: SigningKey.generate()
        )
        let host = try widgets.host()
        let before = try await host.refresh()
        #expect(before.count == 1)
        #expect(before.first?.health == .notLoaded)
        #expect(before.first?.discovered.state == .unapproved)
        #expect(widgets.fetches("Steady") == 0)
        try host.setEnabled(true, bundleIdentifier: "org.example.elsewhere.widgets")
        let after = try await host.refresh()
        #expect(after.widget("Steady")?.texts().first == "Steady fetch 1")
    }

    @Test("a tap opens the containing app with the widget's URL; javascript: URLs are refused")
    func tapOpensTheApp() async throws {
        let widgets = try WidgetWorld()
        let host = try widgets.host()
        let states = try await host.refresh()
        let steady = try #require(states.widget("Steady"))
        let opened = try host.open(from: steady)
        #expect(opened.url.absoluteString == "fixture://widget/Steady?fetch=1")
        let file = widgets.environment.home + "/opened-url"
        #expect(await eventually(within: 10) { FileManager.default.fileExists(atPath: file) })
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "fixture://widget/Steady?fetch=1")
        #expect(throws: AppexError.self) {
            try host.open(URL(string: "javascript:alert(1)"), from: steady)
        }
    }

    @Test(
        "real-world widget Info.plists (WidgetKit and Today) are recognised as widgets; other extensions in an app are not"
    )
    func realWorldWidgetPlists() async throws {
        let widgets = try WidgetWorld()
        let folder = RealWorldFixtureTests.folder
        let cases = [
            (
                "NetNewsWireWidget", "Ranchero-Software__NetNewsWire__Widget__Info.plist",
                "com.apple.widgetkit-extension"
            ),
            (
                "RecentContacts",
                "forcedotcom__SalesforceMobileSDK-iOS__native__SampleApps__MobileSyncExplorer__RecentContactsTodayExtension__Info.plist",
                "com.apple.widget-extension"
            ),
            ("Share", "Ranchero-Software__NetNewsWire__Mac__ShareExtension__Info.plist", "com.apple.share-services"),
        ]
        for (name, file, _) in cases {
            let bundle = widgets.app + "/Extensions/\(name).appex"
            try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: folder + "/" + file, toPath: bundle + "/Info.plist")
        }
        let host = try widgets.host()
        let found = try host.extensions()
        for (name, _, point) in cases.prefix(2) {
            let widget = try #require(found.first { $0.path.hasSuffix("/\(name).appex") }, "\(name)")
            #expect(widget.extensionPoint == point)
            // Their build settings are unexpanded, so they are listed as invalid, with why.
            #expect(widget.state == .invalid)
            #expect(widget.problems.contains { $0.kind == .unexpandedBuildSetting })
        }
        #expect(!found.contains { $0.path.hasSuffix("/Share.appex") })
        // The invalid ones do not stop the valid widgets.
        #expect(try await host.refresh().widget("Steady")?.health == .current)
    }

    @Test("a preview shows the provider's snapshot, and is neither stored nor counted against the budget")
    func previewIsASnapshot() async throws {
        let widgets = try WidgetWorld()
        let host = try widgets.host()
        let steady = try #require(try await host.refresh().widget("Steady"))
        let frame = try await host.preview(steady)
        #expect(frame.tree?.texts.first == "Steady snapshot")
        #expect(frame.status == "preview")
        let after = try #require(try host.states().widget("Steady"))
        #expect(after.budgetUsed == steady.budgetUsed)
        #expect(after.texts().first == "Steady fetch 1")
        #expect(widgets.fetches("Steady") == 1)
    }
}
