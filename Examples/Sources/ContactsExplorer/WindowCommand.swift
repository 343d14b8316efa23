import AppexAuth
import AppexHost
import AppexSecureStore
import AppexWidgetHost
import AppexWindow
import ArgumentParser
import ContactsKit
import ContactsTranslation
import Foundation
import Synchronization

/// The app's window: a local web page with the contacts (and a search), a contact's detail with
/// the Translate scene of the translator the owner picks, the login status (log in in the
/// browser, log out, lock and unlock behind the passcode), and the extension browser.
struct WindowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "window",
        abstract:
            "Serve the app's window on the loopback interface: prints its one-time login link first; stops on SIGINT or SIGTERM.",
        discussion: "SIGUSR1 prints a new login link, for another browser."
    )

    @Option(
        help: ArgumentHelp(
            "Serve on this port (on [::1] and 127.0.0.1); by default the kernel picks a free one.",
            valueName: "PORT"
        )
    )
    var port: Int?

    @Flag(
        help:
            "Keep one session: a login link, once used, ends every other browser's session (by default each link used is a session of its own)."
    )
    var singleSession = false

    @Option(
        help: ArgumentHelp(
            "End a session after this many minutes with no page of it open and no request (default 480).",
            valueName: "MINUTES"
        )
    )
    var idleLimit = 480

    func run() async throws {
        try await reporting {
            let app = try App.launched()
            let home = ContactsPage(app: app)
            let browser = try await ExtensionBrowserPage(hostBundleAt: app.bundlePath, environment: app.environment)
            let window = try WindowServer(
                configuration: .init(
                    title: "ContactsExplorer",
                    port: port,
                    singleSession: singleSession,
                    idleLimit: .seconds(min(max(idleLimit, Int.min / 60), Int.max / 60) * 60)
                ),
                pages: [home, browser]
            )
            signal(SIGUSR1, SIG_IGN)
            let links = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .global())
            links.setEventHandler {
                if let url = window.newLoginURL() {
                    FileHandle.standardOutput.write(Data((url.absoluteString + "\n").utf8))
                }
            }
            links.resume()
            defer { links.cancel() }
            try await window.run(stopsOnSignals: true) { url in
                FileHandle.standardOutput.write(Data((url.absoluteString + "\n").utf8))
            }
            home.close()
            FileHandle.standardOutput.write(Data("window stopped\n".utf8))
        }
    }
}

/// The window's main page.
final class ContactsPage: WindowPage {
    let path = "/"
    let title = "Contacts"
    private let app: App

    private struct State {
        var query = ""
        var selected: String?
        var translator: String?
        var scene: SceneFrame?
        /// The secure store, open while unlocked (when a passcode is set).
        var unlocked: SecureStore?
        /// The sign-in page of a login in progress.
        var signInURL: URL?
        var message = ""
        var watchers: [Int: AsyncStream<WindowUpdate>.Continuation] = [:]
        var next = 0
    }

    private struct Unchecked: @unchecked Sendable { var state = State() }  // used under the lock only
    private let state = Mutex(Unchecked())
    private let processes = Mutex<[String: AppExtensionProcess]>([:])
    /// Held while a publish renders the parts and sends them: publishes from different tasks (an
    /// action's, a login's) then reach the pages in the order they read the state. Otherwise an
    /// older render could arrive last and replace a newer one (a sign-in link, once shown, was
    /// taken away again so under load).
    private let publishing = Mutex(())

    init(app: App) { self.app = app }

    /// Ends the translators' processes.
    func close() {
        for process in processes.withLock({ Array($0.values) }) { process.invalidate() }
    }

    func render() async throws(AppexError) -> Markup {
        .group([account(), .element("div", ["class": "columns"], [contacts(), detail()])])
    }

    func updates() -> AsyncStream<WindowUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: WindowUpdate.self)
        let number = state.withLock { box in
            defer { box.state.next += 1 }
            box.state.watchers[box.state.next] = continuation
            return box.state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.state.watchers.removeValue(forKey: number) }
        }
        return stream
    }

    func perform(_ action: WindowAction) async throws(AppexError) {
        do {
            try await handle(action)
        } catch let error as AppexError {
            throw error
        } catch {
            throw AppexError(.invalidValue, "\(error)")
        }
        publish()
    }

    private func handle(_ action: WindowAction) async throws {
        let value = action.fields["value"] ?? ""
        switch action.name {
        case "search":
            state.withLock { $0.state.query = String(value.prefix(200)) }
        case "select":
            let id = action.fields["contact"] ?? ""
            state.withLock { $0.state.selected = id }
            try await openScene()
        case "translator":
            state.withLock { $0.state.translator = action.fields["bundle"] }
            try await openScene()
        case "scene":
            guard let scene = state.withLock({ $0.state.scene }) else {
                throw AppexError(.notFound, "no translator is shown")
            }
            try await scene.perform(action)
        case "logout":
            try await app.host(unlocked: unlockedStore()).login.logout()
            try app.publishLoggedIn(false)
            say("Logged out.")
        case "login":
            try startLogin()
        case "lock":
            state.withLock { $0.state.unlocked = nil }
            say("Locked: the session's tokens stay behind the passcode.")
        case "unlock":
            let store = try app.secureStore()
            do { try store.open(passcode: value) } catch {
                say("That passcode did not open the store.")
                return
            }
            state.withLock { $0.state.unlocked = store }
            say("Unlocked.")
        default:
            throw AppexError(.invalidValue, "the contacts page has no action \(action.name)")
        }
    }

    // MARK: - Parts

    private func say(_ message: String) { state.withLock { $0.state.message = message } }

    private func unlockedStore() throws -> SecureStore? {
        guard try app.secureStore().status().hasPasscode else { return nil }
        guard let store = state.withLock({ $0.state.unlocked }) else {
            throw AppexError(.refused, "the session is behind the passcode: unlock first")
        }
        return store
    }

    /// The login status, and what can be done about it.
    private func account() -> Markup {
        let (signIn, message, unlocked) = state.withLock {
            ($0.state.signInURL, $0.state.message, $0.state.unlocked != nil)
        }
        let loggedIn = (try? app.isLoggedIn()) ?? false
        let hasPasscode = (try? app.secureStore().status().hasPasscode) ?? false
        var children: [Markup] = [
            .element("strong", [:], [.text(loggedIn ? "Logged in" : "Logged out")])
        ]
        if loggedIn {
            children.append(.element("button", ["type": "button", "data-action": "logout"], [.text("Log out")]))
        } else {
            children.append(.element("button", ["type": "button", "data-action": "login"], [.text("Log in")]))
        }
        if let signIn {
            children.append(
                .element("a", ["href": signIn.absoluteString, "target": "_blank"], [.text("Open the sign-in page")])
            )
        }
        if hasPasscode {
            if unlocked {
                children.append(.element("button", ["type": "button", "data-action": "lock"], [.text("Lock")]))
            } else {
                children.append(
                    .element(
                        "input",
                        [
                            "type": "password", "data-action": "unlock", "placeholder": "Passcode",
                            "aria-label": "Passcode",
                        ]
                    )
                )
            }
        }
        children.append(.element("span", ["class": "message"], [.text(message)]))
        return .element("section", ["id": "account", "class": "card account"], children)
    }

    /// The contacts, filtered by the search.
    private func contacts() -> Markup {
        let (query, selected) = state.withLock { ($0.state.query, $0.state.selected) }
        let all = (try? app.store().contacts()) ?? []
        let shown =
            query.isEmpty
            ? all
            : all.filter { contact in
                [contact.name, contact.company, contact.email].contains { $0.localizedCaseInsensitiveContains(query) }
            }
        let rows: [Markup] = shown.prefix(200).map { contact in
            .element(
                "li",
                contact.id == selected ? ["class": "selected"] : [:],
                [
                    .element(
                        "button",
                        ["type": "button", "data-action": "select", "data-contact": contact.id],
                        [.text(contact.name)]
                    ),
                    .element("span", ["class": "company"], [.text(contact.company)]),
                ]
            )
        }
        return .element(
            "section",
            ["id": "contacts", "class": "card contacts"],
            [
                .element(
                    "input",
                    [
                        "type": "search", "data-action": "search", "value": query, "placeholder": "Search",
                        "aria-label": "Search",
                    ]
                ),
                .element("p", ["class": "count"], [.text("\(shown.count) of \(all.count) contacts")]),
                .element("ul", [:], rows),
            ]
        )
    }

    /// The selected contact, and its note's translation by the chosen translator.
    private func detail() -> Markup {
        let (selected, translator, scene) = state.withLock { ($0.state.selected, $0.state.translator, $0.state.scene) }
        guard let selected, let contact = try? app.store().contact(id: selected) else {
            return .element("section", ["id": "detail", "class": "card detail"], [.text("Choose a contact.")])
        }
        var children: [Markup] = [
            .element("h2", [:], [.text(contact.name)]),
            .element(
                "p",
                [:],
                [
                    .text(
                        [contact.company, contact.email, contact.phone].filter { !$0.isEmpty }.joined(separator: " · ")
                    )
                ]
            ),
            .element("p", ["class": "note"], [.text(contact.note.isEmpty ? "No note." : contact.note)]),
        ]
        let choices = translators().map { identity in
            Markup.element(
                "button",
                [
                    "type": "button", "data-action": "translator", "data-bundle": identity.bundleIdentifier,
                    "class": identity.bundleIdentifier
                        == (translator ?? scene?.scene.process.configuration.identity.bundleIdentifier) ? "chosen" : "",
                ],
                [.text(identity.localizedName)]
            )
        }
        if !choices.isEmpty { children.append(.element("div", ["class": "translators"], choices)) }
        if let scene { children.append(scene.markup()) }
        return .element("section", ["id": "detail", "class": "card detail"], children)
    }

    // MARK: - Translators

    /// The enabled translators, the app's own first.
    private func translators() -> [AppExtensionIdentity] {
        let found =
            (try? ExtensionDiscovery(hostBundleAt: app.bundlePath, environment: app.environment).snapshot().extensions)
            ?? []
        return found.filter { $0.state == .enabled && $0.extensionPoint == app.translatePoint.identifier.description }
            .compactMap(\.identity)
            .sorted {
                ($0.bundleIdentifier.hasPrefix("com.myapp") ? 0 : 1, $0.bundleIdentifier) < (
                    $1.bundleIdentifier.hasPrefix("com.myapp") ? 0 : 1, $1.bundleIdentifier
                )
            }
    }

    /// Opens the chosen translator's scene for the selected contact's note.
    private func openScene() async throws {
        let (selected, chosen, old) = state.withLock { ($0.state.selected, $0.state.translator, $0.state.scene) }
        guard let selected else { return }
        let contact = try app.store().contact(id: selected)
        let available = translators()
        guard let identity = available.first(where: { $0.bundleIdentifier == chosen }) ?? available.first else {
            state.withLock { $0.state.scene = nil }
            return
        }
        let process = try await process(for: identity)
        let scene = try await ExtensionScene(process: process, sceneID: "translate", parameters: ["note": contact.note])
        state.withLock {
            $0.state.scene = SceneFrame(scene: scene, title: identity.localizedName)
            $0.state.translator = identity.bundleIdentifier
        }
        await old?.scene.close()
    }

    private func process(for identity: AppExtensionIdentity) async throws -> AppExtensionProcess {
        if let running = processes.withLock({ $0[identity.bundleIdentifier] }) { return running }
        let process = try await AppExtensionProcess(
            configuration: .init(identity: identity, hostBundlePath: app.bundlePath, environment: app.environment)
        )
        processes.withLock { $0[identity.bundleIdentifier] = process }
        return process
    }

    // MARK: - Login

    private func startLogin() throws {
        let host = try app.host(unlocked: unlockedStore())
        let app = self.app
        Task { [weak self] in
            do {
                _ = try await host.login.authorizationCode { [weak self] url in
                    self?.state.withLock { $0.state.signInURL = url }
                    self?.publish()
                }
                try app.publishLoggedIn(true)
                self?.state.withLock {
                    $0.state.signInURL = nil
                    $0.state.message = "Logged in."
                }
            } catch {
                self?.state.withLock {
                    $0.state.signInURL = nil
                    $0.state.message = "The sign-in did not finish: \(error)"
                }
            }
            self?.publish()
        }
    }

    /// Sends every open page the page's parts as they are now.
    private func publish() {
        publishing.withLock { _ in
            let updates = [
                WindowUpdate(id: "account", markup: account()), WindowUpdate(id: "contacts", markup: contacts()),
                WindowUpdate(id: "detail", markup: detail()),
            ]
            for watcher in state.withLock({ Array($0.state.watchers.values) }) {
                for update in updates { watcher.yield(update) }
            }
        }
    }
}
