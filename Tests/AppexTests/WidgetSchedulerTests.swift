import AppexCore
import AppexSystem
import AppexTestTiers
import AppexTesting
import AppexWidgetHost
import AppexWidgetKit
import Foundation
import Testing

/// The scheduler's rules on the caller's clock, with real widget processes: the minimum
/// interval between policy reloads, retry and recovery after a failure, one fetch for two
/// refreshes at once, budget taken only for what is fetched, the family asked for, reload
/// requests through a symlinked apps path and from the future, and the run loop's wake-up.
@Suite(.serialized, .timed) struct WidgetSchedulerTests {
    func host(
        _ widgets: WidgetWorld,
        minimumReloadInterval: Duration = .zero,
        retryInterval: Duration = .seconds(3600),
        environment: AppexEnvironment? = nil
    ) throws -> WidgetHost {
        var configuration = WidgetHost.Configuration(environment: environment ?? widgets.environment)
        configuration.deadline = .seconds(5)
        configuration.minimumReloadInterval = minimumReloadInterval
        configuration.retryInterval = retryInterval
        return try WidgetHost(configuration: configuration)
    }

    @Test("a policy's reload waits for the minimum interval since the last fetch")
    func minimumInterval() async throws {
        let widgets = try WidgetWorld()
        let host = try host(widgets, minimumReloadInterval: .seconds(300))
        // Each moment is taken from the real clock when it is used: a refresh under load takes
        // seconds, and the fetch's time is when it happened.
        _ = try await host.refresh()
        _ = try await host.refresh(now: Date().addingTimeInterval(3))
        #expect(widgets.fetches("AtEnd") == 1)
        _ = try await host.refresh(now: Date().addingTimeInterval(400))
        #expect(widgets.fetches("AtEnd") == 2)
        #expect(widgets.fetches("After") == 2)
    }

    @Test("after a failure a widget is retried only after the retry interval, and recovers")
    func retryAndRecovery() async throws {
        let widgets = try WidgetWorld()
        let host = try host(widgets, retryInterval: .seconds(600))
        _ = try await host.refresh()
        try widgets.setVictimMode("crash")
        _ = try await widgets.appRequestsReload("Victim")
        // Moments from the real clock when used (a refresh under load takes seconds): the app's
        // request is stamped with the real clock, and must be older than the attempt it caused.
        let crashed = try await host.refresh(now: Date().addingTimeInterval(1))
        guard case .stale = crashed.widget("Victim")?.health else {
            Issue.record("Victim is \(String(describing: crashed.widget("Victim")?.health)), not stale")
            return
        }
        try widgets.setVictimMode("ok")
        let waiting = try await host.refresh(now: Date().addingTimeInterval(10))
        #expect(widgets.fetches("Victim") == 2)
        guard case .stale = waiting.widget("Victim")?.health else {
            Issue.record("Victim was retried before the retry interval")
            return
        }
        let later = Date().addingTimeInterval(700)
        let recovered = try await host.refresh(now: later)
        #expect(widgets.fetches("Victim") == 3)
        #expect(recovered.widget("Victim")?.health == .current)
        #expect(recovered.widget("Victim")?.texts(at: later).first == "Victim fetch 3")
    }

    @Test("a widget whose first timeline fails shows its placeholder, stale with the reason")
    func placeholderWhenTheFirstTimelineFails() async throws {
        let widgets = try WidgetWorld()
        try widgets.setVictimMode("crash")
        let host = try host(widgets)
        let states = try await host.refresh()
        let victim = try #require(states.widget("Victim"))
        guard case .stale(let code, _, _) = victim.health else {
            Issue.record("Victim is \(victim.health), not stale")
            return
        }
        #expect(code == "interrupted")
        #expect(victim.entries.isEmpty)
        #expect(victim.frame().tree?.texts.first == "Victim placeholder")
        #expect(victim.statusLine?.contains("showing its placeholder") == true)
        // The widgets asked after it in the same launch were served by a relaunch.
        #expect(states.widget("Steady")?.health == .current)
    }

    @Test("two refreshes at once fetch each widget once")
    func concurrentRefreshes() async throws {
        let widgets = try WidgetWorld()
        let host = try host(widgets)
        async let first = host.refresh()
        async let second = host.refresh()
        _ = try await (first, second)
        for kind in ["AtEnd", "After", "Never", "Steady", "Victim"] { #expect(widgets.fetches(kind) == 1, "\(kind)") }
        let states = try host.states()
        #expect(states.widget("Steady")?.budgetUsed == 1)
    }

    @Test("describing a new extension takes budget for its own widgets only")
    func newExtensionTakesItsOwnBudget() async throws {
        let widgets = try WidgetWorld()
        let host = try host(widgets)
        _ = try await host.refresh()
        try FixtureBundles.bundle(
            executable: widgetExecutable,
            in: widgets.app + "/Extensions",
            name: "MoreWidgets",
            bundleIdentifier: WidgetWorld.appIdentifier + ".more",
            signedBy: widgets.world.team
        )
        let states = try await host.refresh()
        let steadies = states.filter { $0.key.kind == "Steady" }
        #expect(steadies.count == 2)
        for steady in steadies {
            #expect(steady.budgetUsed == 1, "\(steady.key)")
            #expect(steady.health == .current, "\(steady.key)")
        }
    }

    @Test("the family asked for is shown from the first display; a family a widget lacks falls back to its first")
    func familyOnFirstDisplay() async throws {
        let widgets = try WidgetWorld()
        let host = try host(widgets)
        let medium = try await host.refresh(family: .systemMedium)
        #expect(medium.widget("Steady")?.key.family == .systemMedium)
        #expect(medium.widget("Steady")?.texts() == ["Steady fetch 1", "family systemMedium"])
        let large = try await host.refresh(family: .systemLarge)
        #expect(large.widget("Steady")?.key.family == .systemSmall)
        #expect(large.widget("Victim")?.key.family == .systemLarge)
    }

    @Test("an app's reload request matches its widgets when the apps path goes through a symbolic link")
    func symlinkedAppsPath() async throws {
        let widgets = try WidgetWorld()
        let link = widgets.world.root.appending("AppsLink")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: widgets.apps)
        var environment = widgets.environment
        environment.appsPath = [link]
        let host = try host(widgets, environment: environment)
        _ = try await host.refresh()
        var variables = widgets.processVariables
        variables["APPEX_APPS_PATH"] = link
        let output = try await run(link + "/FixtureApp.app/HostApp", ["reload", "Never"], environment: variables)
        #expect(output.status == 0, "\(output.standardError)")
        _ = try await host.refresh()
        #expect(widgets.fetches("Never") == 2)
    }

    @Test("a reload request dated in the future is acted on once, not every refresh until that day")
    func futureRequest() async throws {
        let widgets = try WidgetWorld()
        let host = try host(widgets)
        _ = try await host.refresh()
        let folder = widgets.environment.home + "/Widgets/Reloads"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let request = WidgetReloadRequest(
            kind: "Never",
            app: nil,
            requestedAt: Date().timeIntervalSince1970 + 86_400 * 10
        )
        try Data(request.encoded()).write(to: URL(fileURLWithPath: folder + "/future.request"))
        _ = try await host.refresh()
        _ = try await host.refresh()
        _ = try await host.refresh()
        #expect(widgets.fetches("Never") == 2)
    }

    @Test("a reload request is answered once by the refresh that reads it, even when that refresh's clock is behind")
    func requestAnsweredByItsRefresh() async throws {
        // The fetch that answers a request records its time on the refresh's clock, which starts
        // at the refresh's `now`; the request must count from that moment at the latest. (A
        // request stamped with the moment it was read looked newer than its own answer whenever
        // reading it took longer than the fetch, and was fetched again.)
        let widgets = try WidgetWorld()
        let host = try host(widgets)
        // The first display on a clock two seconds behind: its fetch is older than the request
        // and than the second refresh's moment, with no wait.
        _ = try await host.refresh(now: Date().addingTimeInterval(-2))
        let output = try await run(
            widgets.apps + "/FixtureApp.app/HostApp",
            ["reload", "Never"],
            environment: widgets.processVariables
        )
        #expect(output.status == 0, "\(output.standardError)")
        _ = try await host.refresh(now: Date().addingTimeInterval(-0.5))
        #expect(widgets.fetches("Never") == 2)
        _ = try await host.refresh()
        _ = try await host.refresh()
        #expect(widgets.fetches("Never") == 2)
    }

    @Test("a wake-up signalled from outside does not leave the next wait short (the run loop does not spin)")
    func wakeupDoesNotSpin() async {
        let wakeup = Wakeup()
        let outside = Task {
            try? await Task.sleep(for: .milliseconds(50))
            wakeup.signal()
        }
        await wakeup.wait(atMost: .seconds(10))
        await outside.value
        let started = ContinuousClock.now
        await wakeup.wait(atMost: .milliseconds(400))
        #expect(ContinuousClock.now - started >= .milliseconds(300))
    }

    @Test("a stopped wake-up ends the wait in progress and lets every later wait return at once")
    func stoppedWakeupReturns() async {
        let wakeup = Wakeup()
        let started = ContinuousClock.now
        // A 30-s wait, stopped about 20 ms in (or, if it has not begun, made already stopped):
        // either way it must end long before its timeout.
        let waiting = Task { await wakeup.wait(atMost: .seconds(30)) }
        try? await Task.sleep(for: .milliseconds(20))
        wakeup.stop()
        await waiting.value
        await wakeup.next()
        await wakeup.wait(atMost: .seconds(30))
        #expect(ContinuousClock.now - started < .seconds(5))
    }
}
