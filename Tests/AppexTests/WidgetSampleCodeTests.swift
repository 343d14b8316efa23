import AppexCore
import AppexTestTiers
import AppexTesting
import AppexWidgetHost
import AppexWidgetKit
import Foundation
import Testing

/// Widget code written as WidgetKit sample code is (Tests/Fixtures/AppexFixtureSampleWidget:
/// a bundle with an `if #available` widget, family switches, interpolated dates, formatted
/// numbers, shapes, progress, gauges, overlays, links, previews) builds against AppexWidgetKit
/// — the build is the first test — and runs in the widget host as it would on Apple platforms.
@Suite(.timed) struct WidgetSampleCodeTests {
    static let executable = URL(fileURLWithPath: appexExecutable).deletingLastPathComponent()
        .appendingPathComponent("AppexFixtureSampleWidget").path

    @Test("sample-style widget code runs in the widget host: both widgets of its bundle, each family drawn")
    func sampleWidgetsRun() async throws {
        let widgets = try WidgetWorld()
        try FileManager.default.removeItem(atPath: widgets.app + "/Extensions/FixtureWidgets.appex")
        try FixtureBundles.bundle(
            executable: Self.executable,
            in: widgets.app + "/Extensions",
            name: "Heroes",
            bundleIdentifier: WidgetWorld.appIdentifier + ".heroes",
            signedBy: widgets.world.team
        )
        let host = try widgets.host()
        let small = try await host.refresh()
        #expect(Set(small.map(\.key.kind)) == ["Hero", "Leaderboard"])
        let hero = try #require(small.widget("Hero"))
        #expect(hero.health == .current, "\(hero.statusLine ?? "")")
        #expect(
            hero.descriptor.supportedFamilies == [.systemSmall, .systemMedium, .accessoryRectangular, .accessoryInline]
        )
        #expect(hero.entries.count == 3)
        #expect(hero.entries.first?.relevance?.score == 0.8)
        let texts = hero.texts(at: hero.entries[0].date)
        #expect(texts.contains("Spouty"), "\(texts)")
        #expect(texts.contains("Level 12"), "\(texts)")
        #expect(texts.contains("▰▰▰▰▰▰▰▰▱▱ 80%"), "\(texts)")
        #expect(hero.entries[0].tree?.widgetURL == "heroes://hero/Spouty")

        let medium = try await host.refresh(family: .systemMedium)
        let drawn = TerminalRenderer(width: 60).render(
            try #require(medium.widget("Hero")).frame(at: hero.entries[0].date)
        )
        #expect(drawn.contains("Level 12"), "\(drawn)")
        #expect(drawn.contains("Next battle"), "\(drawn)")
        let leaderboard = try #require(medium.widget("Leaderboard"))
        #expect(leaderboard.texts(at: leaderboard.entries[0].date).contains("#1"))

        let inline = try await host.refresh(family: .accessoryInline)
        let line = try #require(inline.widget("Hero")).texts(at: hero.entries[0].date)
        #expect(line.first?.hasPrefix("Spouty fights ") == true, "\(line)")
    }
}
