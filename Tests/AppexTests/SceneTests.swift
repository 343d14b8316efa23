import AppexCore
import AppexHost
import AppexTestTiers
import AppexTesting
import AppexWidgetHost
import AppexWidgetKit
import Foundation
import Testing

@testable import AppexWindow

/// UI extensions (seed 001's counterpart of its non-UI extension; ExtensionKit's scenes): the
/// fixture translator's scene, opened by a host, driven by events, drawn again with its state
/// kept, and shown in a real browser.
@Suite(.timed, .tags(.browser)) struct SceneTests {
    let fixture: HostFixture

    init() throws {
        fixture = try HostFixture(points: ["HostAppFeature", "SceneFeature"])
    }

    /// Declares SceneFeature, presenting user interface or not, and installs the translator.
    func install(presentsUserInterface: Bool = true) throws -> AppExtensionProcess {
        try Self.installTranslator(in: fixture, presentsUserInterface: presentsUserInterface)
        return try fixture.process(for: "com.example.scenetranslator")
    }

    /// Declares `fixture`'s SceneFeature, presenting user interface or not, and installs the
    /// fixture translator (`com.example.scenetranslator`) in its host.
    static func installTranslator(in fixture: HostFixture, presentsUserInterface: Bool = true) throws {
        try fixture.declarePoint(
            [ExtensionPointDeclaration.Key.presentsUserInterface: .boolean(presentsUserInterface)],
            name: "SceneFeature"
        )
        try FixtureBundles.bundle(
            executable: sceneExecutable,
            in: fixture.hostExtensions,
            name: "SceneTranslator",
            bundleIdentifier: "com.example.scenetranslator",
            signedBy: fixture.world.team
        )
    }

    @Test(
        "a UI extension's scene: opened by its identifier, its picker, switch, text field and button each change the scene's state, which is kept from one drawing to the next; the extension's own messages share the connection"
    )
    func sceneRoundTrip() async throws {
        let process = try install()
        defer { process.invalidate() }
        let scene = try await ExtensionScene(process: process, sceneID: "translate")
        #expect(scene.tree.texts.contains("Good morning"))
        #expect(scene.tree.texts.contains("Copied 0 times"))
        var texts = try await scene.send(.choose(control: 0, option: 1)).texts
        #expect(texts.contains("Bonjour"), "\(texts)")
        texts = try await scene.send(.toggle(control: 1)).texts
        #expect(texts.contains("Bonjour (formal)"), "\(texts)")
        texts = try await scene.send(.text(control: 2, "Ada")).texts
        #expect(texts.contains("Bonjour (formal) — Ada"), "\(texts)")
        _ = try await scene.send(.tap(control: 3))
        texts = try await scene.send(.tap(control: 3)).texts
        #expect(texts.contains("Copied 2 times") && texts.contains("Bonjour (formal) — Ada"), "\(texts)")
        let echo = try await process.send("hello", expecting: String.self)
        #expect(echo == "echo: hello")

        // A second copy of the scene has its own state, and shows what the host passed it.
        let second = try await ExtensionScene(process: process, sceneID: "translate", parameters: ["note": "Thanks"])
        #expect(second.tree.texts.contains("Thanks") && second.tree.texts.contains("Copied 0 times"))
        await second.close()
    }

    @Test(
        "a scene refuses by name: a scene the extension does not have, a control it does not show, an event the control does not take, an option the picker does not offer; the scene is unchanged"
    )
    func sceneRefusals() async throws {
        let process = try install()
        defer { process.invalidate() }
        let missing = await #expect(throws: AppexError.self) {
            _ = try await ExtensionScene(process: process, sceneID: "summarize")
        }
        #expect(missing?.code == .notFound && missing?.message.contains("translate") == true)
        let scene = try await ExtensionScene(process: process, sceneID: "translate")
        let before = scene.tree
        let noControl = await #expect(throws: AppexError.self) { try await scene.send(.tap(control: 40)) }
        #expect(noControl?.code == .notFound && noControl?.message.contains("not a control 40") == true)
        let wrongEvent = await #expect(throws: AppexError.self) { try await scene.send(.tap(control: 0)) }
        #expect(wrongEvent?.code == .invalidValue)
        let noOption = await #expect(throws: AppexError.self) { try await scene.send(.choose(control: 0, option: 9)) }
        #expect(noOption?.code == .invalidValue && noOption?.message.contains("3 options") == true)
        #expect(scene.tree == before)
    }

    @Test("a point declared with UserInterface(false) refuses a scene, naming the point and the key")
    func nonUIPointRefuses() async throws {
        let process = try install(presentsUserInterface: false)
        defer { process.invalidate() }
        let error = await #expect(throws: AppexError.self) {
            _ = try await ExtensionScene(process: process, sceneID: "translate")
        }
        #expect(error?.code == .refused)
        #expect(error?.message.contains("com.example.hostapp.SceneFeature") == true)
        #expect(error?.message.contains("EXPresentsUserInterface") == true)
    }

    @Test(
        "a scene in a real browser: choosing a language shows the new translation, the switch, the text field and the button each round-trip, the frame clips the scene, and nothing the extension sent is markup"
    )
    func sceneInBrowser() async throws {
        let process = try install()
        defer { process.invalidate() }
        let scene = try await ExtensionScene(process: process, sceneID: "translate")
        let window = try await TestWindow([ScenePage(scene: scene, path: "/translate")])
        let browser = try await Browser()
        try await browser.open(window.loginURL)
        try await browser.wait(for: "body[data-live='yes']")
        _ = try await browser.evaluate("window.appexMark = 'kept'; return 1")
        try await browser.wait(for: "section.scene", containing: "Good morning")
        _ = try await browser.evaluate(
            "const s = document.querySelector('section.scene select'); s.value = '1'; s.dispatchEvent(new Event('change', {bubbles: true})); return 1"
        )
        try await browser.wait(for: "section.scene", containing: "Bonjour")
        try await browser.click("section.scene button[role='switch']")
        try await browser.wait(for: "section.scene button[role='switch'][aria-checked='true']")
        try await browser.wait(for: "section.scene", containing: "Bonjour (formal)")
        _ = try await browser.evaluate(
            "const f = document.querySelector('section.scene input'); f.value = '<b>Ada</b>'; f.dispatchEvent(new Event('change', {bubbles: true})); return 1"
        )
        try await browser.wait(for: "section.scene", containing: "Bonjour (formal) — <b>Ada</b>")
        #expect(try await browser.evaluate("return document.querySelectorAll('section.scene b').length") == "0")
        try await browser.click("section.scene button.scene-button")
        try await browser.wait(for: "section.scene", containing: "Copied 1 times")
        let clipped = try await browser.evaluate(
            "const s = getComputedStyle(document.querySelector('section.scene')); return s.overflow + ' ' + s.contain"
        )
        #expect(clipped.contains("hidden"), "\(clipped)")
        #expect(try await browser.evaluate("return window.appexMark") == "\"kept\"")
        if let folder = ProcessInfo.processInfo.environment["APPEX_SCREENSHOTS"] {
            try await browser.screenshot(to: folder + "/scene.png")
        }
    }
}
