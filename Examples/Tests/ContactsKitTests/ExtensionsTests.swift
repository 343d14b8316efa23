import AppexCore
import AppexHost
import AppexTestTiers
import AppexTesting
import AppexWidgetHost
import ContactsKit
import Foundation
import Logging
import Testing

/// ContactsExplorer's extensions as the owner meets them: its own translator, answering in both
/// of seed 001's forms; Lingua Labs' translator and widget, off until approved (seed 004); and
/// the owner's enable and disable, reflected where the extension shows.
@Suite(.timed, .tags(.product)) struct ExtensionsTests {
    var explorer: ContactsExplorerTests
    let environment: AppexEnvironment

    init() throws {
        explorer = try ContactsExplorerTests()
        environment = explorer.widgetHostEnvironment
    }

    /// The kinds of the widgets the system's widget host shows after a refresh.
    func widgetKinds() async throws -> [String] {
        let host = try Product.widgetHost(environment)
        return try await host.refresh(family: .systemMedium).filter { $0.discovered.state == .enabled }.map(\.key.kind)
            .sorted()
    }

    /// The row `extensions list` prints for `bundleIdentifier`.
    func listed(_ bundleIdentifier: String, server: URL) throws -> String? {
        let list = try explorer.run(["extensions", "list"], server: server)
        #expect(list.status == 0, "\(list.err)")
        return list.out.split(separator: "\n").map(String.init).first { $0.contains(" \(bundleIdentifier)\t") }
    }

    /// The Translate scene of `bundleIdentifier`, opened for `note` as the app's window opens it.
    func translateScene(_ bundleIdentifier: String, note: String) async throws -> ExtensionScene {
        let discovery = try ExtensionDiscovery(hostBundleAt: explorer.app, environment: explorer.world.environment)
        let found = try discovery.snapshot().extensions.first { $0.bundleIdentifier == bundleIdentifier }
        let identity = try #require(found?.identity, "no valid \(bundleIdentifier)")
        let process = try await AppExtensionProcess(
            configuration: .init(
                identity: identity,
                hostBundlePath: explorer.app,
                environment: explorer.world.environment,
                // The host's log on standard error: the extension's own output, and how it ended,
                // beside a failed launch in the test's output.
                logger: Logger(label: "appex.extension", factory: { StreamLogHandler.standardError(label: $0) })
            )
        )
        return try await ExtensionScene(process: process, sceneID: "translate", parameters: ["note": note])
    }

    @Test(
        "both translators present the Translate point's scene (it is a UI point now): the note, a language picker and the translation; choosing another language shows it"
    )
    func translateScenes() async throws {
        func html(_ scene: ExtensionScene) -> String { HTMLRenderer().fragment(scene.frame(title: "Translate")) }
        let own = try await translateScene("com.myapp.MyApp.Translate", note: "Prefers email.")
        defer { own.process.invalidate() }
        #expect(html(own).contains("Préfère le courriel."), "\(html(own))")
        try await own.send(.choose(control: 0, option: 1))
        #expect(html(own).components(separatedBy: "Prefers email.").count == 3, "\(html(own))")

        let discovery = try ExtensionDiscovery(hostBundleAt: explorer.app, environment: explorer.world.environment)
        try discovery.setEnabled(true, bundleIdentifier: "com.lingualabs.translate")
        let lingua = try await translateScene("com.lingualabs.translate", note: "Prefers email.")
        defer { lingua.process.invalidate() }
        #expect(html(lingua).contains("Bevorzugt E-Mail.") && html(lingua).contains("Lingua Labs"), "\(html(lingua))")
        try await lingua.send(.choose(control: 0, option: 1))
        #expect(!html(lingua).contains("Bevorzugt E-Mail."), "\(html(lingua))")
    }

    @Test(
        "a contact's note translated by the app's own extension in both forms; another team's translator is offered only once the owner enables it, and no more once disabled"
    )
    func translators() async throws {
        let server = try TestServer.start()
        let user = try await TestServer.newAccount(contacts: 3)
        let session = try await TestServer.signIn(user)
        let first = try await ContactsAPI(server: server, send: session.send).page(
            modifiedSince: nil,
            cursor: nil,
            limit: 1
        )
        let id = try #require(first.contacts.first?.id)
        try await session.patch(id, "note", "Prefers email.")
        #expect(try explorer.logIn(user, server: server).status == 0)
        #expect(try explorer.run(["sync"], server: server).status == 0)

        #expect(try listed("com.myapp.MyApp.Translate", server: server)?.hasPrefix("enabled") == true)
        #expect(try listed("com.lingualabs.translate", server: server)?.hasPrefix("unapproved") == true)
        let own = try explorer.run(["translate", id], server: server)
        #expect(own.status == 0, "\(own.err)")
        #expect(own.out.contains("Translate (fr): Préfère le courriel."), "\(own.out)")
        #expect(!own.out.contains("(de)"))
        let actor = try explorer.run(["translate", id, "--connection"], server: server)
        #expect(actor.out.contains("Translate (fr): Préfère le courriel."), "\(actor.out) \(actor.err)")
        let refused = try explorer.run(["translate", id, "--with", "com.lingualabs.translate"], server: server)
        #expect(refused.status == 1 && refused.err.contains("unapproved"), "\(refused.err)")

        #expect(try explorer.run(["extensions", "enable", "com.lingualabs.translate"], server: server).status == 0)
        #expect(try listed("com.lingualabs.translate", server: server)?.hasPrefix("enabled") == true)
        let both = try explorer.run(["translate", id], server: server)
        #expect(both.out.contains("Translate (fr): Préfère le courriel."), "\(both.out) \(both.err)")
        #expect(both.out.contains("Lingua (de): Bevorzugt E-Mail."), "\(both.out) \(both.err)")
        // Lingua serves the session form only: asked for an exported actor, it is a named failure.
        let noActor = try explorer.run(
            ["translate", id, "--with", "com.lingualabs.translate", "--connection"],
            server: server
        )
        #expect(noActor.status == 1 && noActor.err.contains("ContactsExplorer:"), "\(noActor.err)")

        #expect(try explorer.run(["extensions", "disable", "com.lingualabs.translate"], server: server).status == 0)
        let again = try explorer.run(["translate", id], server: server)
        #expect(again.out.contains("(fr)") && !again.out.contains("(de)"), "\(again.out)")
    }

    @Test(
        "the app's settings turn its widget off and on in the widget host; another team's widget appears only once the owner enables it"
    )
    func widgets() async throws {
        let server = try TestServer.start()
        #expect(try await widgetKinds() == ["RecentContacts"])
        #expect(
            try listed("com.myapp.MyApp.RecentContacts", server: server)?.contains("widget, ships with the app") == true
        )

        #expect(
            try explorer.run(["extensions", "disable", "com.myapp.MyApp.RecentContacts"], server: server).status == 0
        )
        #expect(try await widgetKinds() == [])
        let shown = try explorer.run(["widgets"], server: server)
        #expect(shown.status == 0 && !shown.out.contains("Recent contacts"), "\(shown.out)")
        #expect(shown.err.contains("RecentContacts is disabled"), "\(shown.err)")
        #expect(
            try explorer.run(["extensions", "enable", "com.myapp.MyApp.RecentContacts"], server: server).status == 0
        )
        #expect(try await widgetKinds() == ["RecentContacts"])

        // Another team's widget is the owner's to approve, in the system's widget host (what
        // `appex widgets enable` does); the app's settings do not list it.
        #expect(try listed("com.lingualabs.widgets", server: server) == nil)
        let unknown = try explorer.run(["extensions", "enable", "com.lingualabs.widgets"], server: server)
        #expect(
            unknown.status == 1 && unknown.err.contains("has no extension com.lingualabs.widgets"),
            "\(unknown.err)"
        )
        let host = try Product.widgetHost(environment)
        #expect(try host.extensions().first { $0.bundleIdentifier == "com.lingualabs.widgets" }?.state == .unapproved)
        try host.setEnabled(true, bundleIdentifier: "com.lingualabs.widgets")
        #expect(try await widgetKinds() == ["RecentContacts", "WordOfTheDay"])
    }
}
