import AppexCore
import AppexTestTiers
import AppexTesting
import AppexWidgetHost
import Foundation
import Testing

/// Widget processes kept warm after their timelines, as WidgetKit keeps them: reused within
/// the warm period, ended when it or the memory budget runs out, and never reused after a crash.
@Suite(.serialized, .timed) struct WarmWidgetTests {
    static let widgets = WidgetWorld.widgetsIdentifier

    /// Whether a process `pid` exists (a zombie counts as gone).
    static func isRunning(_ pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
        return !status.contains("State:\tZ")
    }

    @Test(
        "a widget's process stays up after its timelines for the warm period: a reload within it is answered by the same process; past it the process has ended and the next reload launches another"
    )
    func reusedWithinThePeriod() async throws {
        let widgets = try WidgetWorld()
        let host = try widgets.host(warmPeriod: .seconds(2))
        _ = try await host.refresh()
        let first = try #require(host.warmProcessIdentifiers[Self.widgets], "no process was kept warm")
        #expect(host.warmProcessCount == 1)
        #expect(Self.isRunning(first))
        _ = try await widgets.appRequestsReload("Steady")
        let reloaded = try await host.refresh()
        #expect(reloaded.widget("Steady")?.texts().first == "Steady fetch 2")
        #expect(host.warmProcessIdentifiers[Self.widgets] == first, "the reload did not reuse the warm process")
        // Past the warm period (from its last answer), the process ends on its own.
        #expect(await eventually(within: 10) { !Self.isRunning(first) }, "the warm process outlived its period")
        #expect(host.warmProcessCount == 0)
        _ = try await widgets.appRequestsReload("Steady")
        let again = try await host.refresh()
        #expect(again.widget("Steady")?.texts().first == "Steady fetch 3")
        let second = try #require(host.warmProcessIdentifiers[Self.widgets])
        #expect(second != first)
    }

    @Test(
        "a warm process killed while idle is not reused: the next reload launches a new one and the widget stays current"
    )
    func killedWhileIdle() async throws {
        let widgets = try WidgetWorld()
        let host = try widgets.host()
        _ = try await host.refresh()
        let first = try #require(host.warmProcessIdentifiers[Self.widgets])
        kill(first, SIGKILL)
        #expect(await eventually(within: 10) { host.warmProcessIdentifiers[Self.widgets] == nil })
        _ = try await widgets.appRequestsReload("Steady")
        let states = try await host.refresh()
        let steady = try #require(states.widget("Steady"))
        #expect(steady.health == .current, "\(steady.health)")
        #expect(steady.texts().first == "Steady fetch 2")
        let second = try #require(host.warmProcessIdentifiers[Self.widgets])
        #expect(second != first)
    }

    @Test(
        "a warm process that crashes while answering is a cold one's crash: its widget is stale with the reason, the others current, and the next fetch launches a new process"
    )
    func crashWhileAnswering() async throws {
        let widgets = try WidgetWorld()
        let host = try widgets.host(deadline: .seconds(2))
        _ = try await host.refresh()
        let first = try #require(host.warmProcessIdentifiers[Self.widgets])
        try widgets.setVictimMode("crash")
        _ = try await widgets.appRequestsReload(nil)
        let states = try await host.refresh()
        let victim = try #require(states.widget("Victim"))
        guard case .stale(let code, let reason, _) = victim.health else {
            Issue.record("Victim is \(victim.health), not stale")
            return
        }
        #expect(code == "interrupted" && reason.contains("crashed"), "\(reason)")
        #expect(victim.texts().first == "Victim fetch 1")
        #expect(!Self.isRunning(first), "the crashed process was the warm one")
        // The widgets after the victim were asked by the process launched again after the crash;
        // it is not kept (a cold launch's would not be either): the next fetch starts afresh.
        for kind in ["AtEnd", "After", "Never", "Steady"] {
            #expect(states.widget(kind)?.health == .current, "\(kind)")
        }
        #expect(host.warmProcessIdentifiers[Self.widgets] == nil)
        try widgets.setVictimMode("ok")
        _ = try await widgets.appRequestsReload("Victim")
        let recovered = try await host.refresh()
        #expect(recovered.widget("Victim")?.health == .current)
        #expect(host.warmProcessIdentifiers[Self.widgets].map { $0 != first } == true)
    }

    @Test("nothing is kept warm past the memory budget, or with a warm period of zero")
    func budgetAndZeroPeriod() async throws {
        let widgets = try WidgetWorld()
        let overBudget = try widgets.host(warmMemoryBudget: 1 << 20)  // less than any process
        _ = try await overBudget.refresh()
        #expect(overBudget.warmProcessCount == 0)
        let never = try widgets.host(warmPeriod: .zero)
        _ = try await widgets.appRequestsReload(nil)
        _ = try await never.refresh()
        #expect(never.warmProcessCount == 0)
    }
}
