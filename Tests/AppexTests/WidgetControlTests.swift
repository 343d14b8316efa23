import AppexCore
import AppexTestTiers
import AppexTesting
import AppexWidgetHost
import AppexWindow
import Foundation
import Testing

/// Controls (iOS 18): the fixture's `ControlWidget`s (Tests/Fixtures/AppexFixtureConfiguredWidget)
/// — a `ControlWidgetToggle` whose `ControlValueProvider` reads a lamp and whose `SetValueIntent`
/// sets it, and a `ControlWidgetButton` — shown as small tiles and performed through the host.
@Suite(.timed) struct WidgetControlTests {
    @Test(
        "a control switch shows its provider's value; using it performs its SetValueIntent with the new value and the tile shows the value read again; a control button performs its intent"
    )
    func toggleAndButton() async throws {
        let widgets = try WidgetConfigurationTests.world()
        // A budget of one, spent on the first display: a reload after an intent is free.
        let host = try widgets.host(budget: 1)
        let states = try await host.refresh()
        let lamp = try #require(states.widget("Lamp"))
        #expect(lamp.descriptor.displayName == "Lamp" && lamp.descriptor.description == "Turns the lamp on and off.")
        #expect(lamp.key.family == .systemSmall)
        #expect(lamp.texts() == ["Lamp", "Off"])
        let controls = try #require(lamp.entry(at: Date())?.tree?.controls)
        #expect(controls.count == 1)

        try await host.performIntent(0, of: lamp)
        let on = try #require(try await host.refresh().widget("Lamp"))
        #expect(on.texts() == ["Lamp", "On"])
        try await host.performIntent(0, of: on)
        #expect(try await host.refresh().widget("Lamp")?.texts() == ["Lamp", "Off"])

        let bell = try #require(try host.states().widget("Bell"))
        #expect(bell.texts() == ["Ring"])
        try await host.performIntent(0, of: bell)
        try await host.performIntent(0, of: bell)
        let container = widgets.environment.home + "/Containers/" + WidgetWorld.appIdentifier + ".configured"
        #expect(try String(contentsOfFile: container + "/rings", encoding: .utf8) == "ring\nring\n")
    }

    @Test("the widget desktop draws a control as a switch or a button the page can use")
    func desktopShowsControls() async throws {
        let widgets = try WidgetConfigurationTests.world()
        let desktop = WidgetDesktop(host: try widgets.host())
        let window = try await TestWindow(desktop.pages)
        let cookie = try await window.logIn()
        let page = try await window.request("GET", "/", headers: ["Cookie": cookie])
        let lamp = try #require(page.body.range(of: "data-widget=\"Lamp (systemSmall) of"))
        let tile = String(page.body[lamp.lowerBound...].prefix(3000))
        #expect(tile.contains("data-intent=\"0\""), "\(tile)")
        #expect(tile.contains("role=\"switch\"") || tile.contains("aria-checked=\"false\""), "\(tile)")
        // Both, exactly: a switch that is off.
        #expect(tile.contains("role=\"switch\"") && tile.contains("aria-checked=\"false\""), "\(tile)")
        #expect(page.body.contains("data-widget=\"Bell (systemSmall) of"))
        let bell = try #require(page.body.range(of: "data-widget=\"Bell (systemSmall) of"))
        let bellTile = String(page.body[bell.lowerBound...].prefix(1500))
        #expect(bellTile.contains("data-intent=\"0\"") && !bellTile.contains("role=\"switch\""), "\(bellTile)")
    }
}
