import AppexCore
import AppexStore
import AppexTestTiers
import AppexTesting
import AppexWidgetHost
import ContactsKit
import Foundation
import Testing

/// The RecentContacts widget in `ContactsExplorer.app/Extensions/`, launched by the system's
/// widget host (`WidgetHost`) as a real extension process, against the real server.
@Suite(.timed, .tags(.product)) struct RecentContactsWidgetTests {
    var explorer: ContactsExplorerTests
    let environment: AppexEnvironment

    init() throws {
        explorer = try ContactsExplorerTests()
        environment = explorer.widgetHostEnvironment
    }

    /// The widget as the host draws it after a refresh at `now`.
    func drawn(_ host: WidgetHost, now: Date = Date()) async throws -> String {
        let states = try await host.refresh(now: now, family: .systemLarge)
        let widget = try #require(states.first { $0.key.kind == "RecentContacts" }, "\(states.map(\.key))")
        return TerminalRenderer(width: 60, colors: false).render(widget.frame(at: now))
    }

    @Test(
        "before login it asks nothing of the server and says so; after login and sync it shows the recent contacts, fresh from the server; show moves one first"
    )
    func beforeAndAfterLogin() async throws {
        let server = try TestServer.start()
        let user = try await TestServer.newAccount(contacts: 30)
        let host = try Product.widgetHost(environment)
        let before = try await drawn(host)
        #expect(before.contains("Log in to ContactsExplorer"), "\(before)")
        #expect(!(try await TestServer.stats()).keys.contains { $0.hasPrefix(user.username + ".") })
        // Two contacts named apart from all others, changed last: B, then A, are the newest.
        let session = try await TestServer.signIn(user)
        let first = try await ContactsAPI(server: server, send: session.send).page(
            modifiedSince: nil,
            cursor: nil,
            limit: 2
        )
        try await session.patch(first.contacts[0].id, "name", "Sentinel Beta")
        try await session.patch(first.contacts[1].id, "name", "Sentinel Alpha")
        let login = try explorer.logIn(user, server: server)
        #expect(login.status == 0, "\(login.err)")
        #expect(try explorer.run(["sync"], server: server).status == 0)
        let listed = try await TestServer.stats()["\(user.username).contacts.list.200"] ?? 0
        let after = try await drawn(host)
        let alpha = try #require(after.range(of: "Sentinel Alpha"), "\(after)")
        let beta = try #require(after.range(of: "Sentinel Beta"), "\(after)")
        #expect(alpha.lowerBound < beta.lowerBound, "the newest change first: \(after)")
        // Its eight contacts, fresh from the server in one request.
        var stats = try await TestServer.stats()
        #expect(stats["\(user.username).contacts.list.200"] == listed + 1, "\(stats)")
        #expect(stats["\(user.username).contacts.get.200"] == nil, "\(stats)")
        // Beta used now: it comes first.
        #expect(try explorer.run(["show", first.contacts[0].id], server: server).status == 0)
        let shown = try await drawn(host)
        let alphaNow = try #require(shown.range(of: "Sentinel Alpha"), "\(shown)")
        let betaNow = try #require(shown.range(of: "Sentinel Beta"), "\(shown)")
        #expect(betaNow.lowerBound < alphaNow.lowerBound, "\(shown)")
        stats = try await TestServer.stats()
        #expect(stats["\(user.username).contacts.list.200"] == listed + 2, "\(stats)")
    }

    @Test(
        "a session revoked at the server: the widget shows 'Log in again' after one refused request, and does not retry"
    )
    func revokedAtTheServer() async throws {
        let server = try TestServer.start()
        let user = try await TestServer.newAccount(contacts: 10)
        let host = try Product.widgetHost(environment)
        #expect(
            try explorer.logIn(user, server: server).status == 0
        )
        #expect(try explorer.run(["sync"], server: server).status == 0)
        let shown = try await drawn(host)
        #expect(!shown.contains("Log in"), "\(shown)")
        // This user's refused refreshes and refused bearer requests (the server counts a request
        // with a revoked token for the token's user): tests beside this one count their own.
        func refused() async throws -> (refreshes: Int, requests: Int) {
            let stats = try await TestServer.stats()
            return (
                stats["\(user.username).refresh_token.400"] ?? 0, stats["\(user.username).contacts.list.401"] ?? 0
            )
        }
        let start = try await refused()
        try await TestServer.revoke(user.username)
        // The app asks for a reload (show touches only the store); the widget finds out.
        let any = try #require(try explorer.store().contacts().first)
        #expect(try explorer.run(["show", any.id], server: server).status == 0)
        let shownAfter = try await drawn(host)
        #expect(shownAfter.contains("Log in again"), "\(shownAfter)")
        let once = try await refused()
        #expect(once.refreshes - start.refreshes == 1 && once.requests - start.requests == 1, "\(start) → \(once)")
        // No reload asked for: nothing is fetched again, nothing is sent.
        let later = try await drawn(host)
        #expect(later.contains("Log in again"))
        let still = try await refused()
        #expect(still.refreshes == once.refreshes && still.requests == once.requests)
    }

    @Test(
        "behind the app passcode the widget reads no token and asks the app: waiting while it is not running, answered by a background run, at once while it runs, and still after a passcode change"
    )
    func behindThePasscode() async throws {
        let server = try TestServer.start()
        let user = try await TestServer.newAccount(contacts: 12)
        #expect(try explorer.logIn(user, server: server).status == 0)
        #expect(try explorer.run(["sync"], server: server).status == 0)
        let quick = ["CONTACTS_SCRYPT_ROUNDS": "1024"]
        let set = try explorer.run(["passcode", "set"], server: server, input: "first passcode 1\n", variables: quick)
        #expect(set.status == 0, "\(set.err)")
        // The widget's own view of the shared keychain: no token there any more.
        let widget = try ProcessContext(bundleAt: explorer.app + "/Extensions/RecentContacts.appex")
        let keychain = try SharedKeychain(context: widget, environment: explorer.world.environment)
        #expect(try keychain.items(matching: KeychainQuery(service: "appex.oauth")).isEmpty)
        let stored = try explorer.store().recent(limit: 8).map(\.name)
        let host = try Product.widgetHost(environment)
        let waiting = try await drawn(host)
        #expect(waiting.contains("Waiting for ContactsExplorer"), "\(waiting)")
        #expect(waiting.contains(TerminalText.safe(stored[0])), "the stored contacts meanwhile: \(waiting)")
        // A background run (what `appex background run` launches) answers it; the widget shows it.
        var background = quick
        background["APPEX_BACKGROUND_RUN"] = "1"
        background["APPEX_BUNDLE_PATH"] = explorer.app
        let ran = try explorer.run([], server: server, variables: background)
        #expect(ran.status == 0 && ran.out.contains("answered 1 data request"), "OUT[\(ran.out)] ERR[\(ran.err)]")
        let answered = try await drawn(host)
        #expect(!answered.contains("Waiting") && answered.contains(TerminalText.safe(stored[0])), "\(answered)")
        // While the app runs, the widget's request is answered at once.
        var running = quick
        running["CONTACTS_PASSCODE"] = "first passcode 1"
        let app = try explorer.start(["run", "--sync-interval", "3600"], server: server, variables: running)
        defer {
            kill(app.processIdentifier, SIGTERM)
            app.waitUntilExit()
        }
        // Ready once it says so (its output read all along, so it never blocks on a full pipe).
        let printed = PrintedLines(try #require((app.standardOutput as? Pipe)?.fileHandleForReading))
        try await printed.wait(for: "ContactsExplorer running")
        #expect(
            try explorer.run(["show", try explorer.store().contacts()[5].id], server: server, variables: running).status
                == 0
        )
        let live = try await drawn(host)
        #expect(!live.contains("Waiting") && !live.contains("Unavailable"), "\(live)")
        // A passcode change renews the widget's share: it keeps working.
        let change = try explorer.run(
            ["passcode", "change"],
            server: server,
            input: "first passcode 1\nsecond passcode 2\n",
            variables: quick
        )
        #expect(change.status == 0, "\(change.err)")
        let afterChange = try await drawn(host)
        #expect(!afterChange.contains("Unavailable") && !afterChange.contains("stale"), "\(afterChange)")
    }

    @Test(
        "ContactsExplorer's background runs killed with SIGKILL while answering 100 queued widget requests: each answered once, counted once at the server, none lost"
    )
    func backgroundRunsKilled() async throws {
        let server = try TestServer.start()
        let user = try await TestServer.newAccount(contacts: 120)
        #expect(try explorer.logIn(user, server: server).status == 0)
        #expect(try explorer.run(["sync"], server: server).status == 0)
        let quick = ["CONTACTS_SCRYPT_ROUNDS": "1024"]
        #expect(
            try explorer.run(["passcode", "set"], server: server, input: "first passcode 1\n", variables: quick).status
                == 0
        )
        // 100 different questions, put as the widget puts them.
        let widget = try ProcessContext(bundleAt: explorer.app + "/Extensions/RecentContacts.appex")
        let security = try AuxiliarySecurityManager(
            hostBundleIdentifier: SharedConfiguration.bundleIdentifier,
            context: widget,
            environment: explorer.world.environment
        )
        let requests = AuxiliaryDataRequestManager(
            dataStore: try AuxiliaryDataStore(
                group: AppGroup(SharedConfiguration.appGroup, context: widget, environment: explorer.world.environment),
                encryptionKey: security.getAuxiliaryDataEncryptionKey()
            )
        )
        let ids = try explorer.store().contacts().map(\.id).prefix(100)
        var asked: [String: String] = [:]
        for id in ids {
            let request = try requests.putDataRequest(
                AuxiliaryDataRequest(
                    info: RecentContactsQuestion(ids: [id]),
                    eSPAKAux: security.getESPAKAuxiliary(),
                    kind: RecentContactsQuestion.kind
                )
            )
            asked[request.id] = id
        }
        #expect(asked.count == 100)
        var background = quick
        background["APPEX_BACKGROUND_RUN"] = "1"
        background["APPEX_BUNDLE_PATH"] = explorer.app
        // Killed after 0.3-1.2 s, four times (a run serves all 100 in a few seconds); the kill
        // comes from a thread of Dispatch's, whatever Swift's pool is doing.
        for _ in 0..<4 {
            let run = try explorer.start([], server: server, variables: background)
            let pid = run.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + Double.random(in: 0.3...1.2)) { kill(pid, SIGKILL) }
            run.waitUntilExit()
        }
        // The leases of killed runs (10 s) have run out for a run whose clock is 11 s ahead
        // (APPEX_CLOCK_OFFSET, instead of waiting 11 s); it answers the rest (the killed runs asked
        // for it: a run that leaves requests pending asks for the next once leases expire).
        let pendingBefore = try requests.listDataRequests().filter { $0.completionTime == nil }.count
        background["APPEX_CLOCK_OFFSET"] = "11"
        let last = try explorer.run([], server: server, variables: background)
        #expect(last.status == 0, "\(last.out) \(last.err)")
        if pendingBefore > 0 {
            #expect(last.out.contains("answered"), "\(pendingBefore) were pending: \(last.out) \(last.err)")
        }
        let statuses = try requests.listDataRequests()
        #expect(
            statuses.count == 100 && statuses.allSatisfy { $0.completionTime != nil && $0.failure == nil },
            "\(statuses.filter { $0.completionTime == nil || $0.failure != nil })"
        )
        for (request, id) in asked {
            let answered = try #require(try requests.getDataRequest(request, infoType: RecentContactsQuestion.self))
            #expect(try answered.response(as: [Contact].self).map(\.id) == [id])
        }
        let stats = try await TestServer.stats()
        #expect(
            stats["\(user.username).contacts.idempotent.first"] == 100,
            "each request counted once at the server: \(stats)"
        )
    }

    @Test("contact names with markup and control characters are drawn as text by both renderers")
    func hostileNames() async throws {
        let server = try TestServer.start()
        let user = try await TestServer.newAccount(contacts: 10, hostile: true)
        #expect(
            try explorer.logIn(user, server: server).status == 0
        )
        #expect(try explorer.run(["sync"], server: server).status == 0)
        // The hostile three are the oldest: using them brings them into the widget.
        for contact in try explorer.store().contacts().sorted(by: { $0.modified < $1.modified }).prefix(3) {
            #expect(try explorer.run(["show", contact.id], server: server).status == 0)
        }
        let host = try Product.widgetHost(environment)
        let states = try await host.refresh(family: .systemLarge)
        let widget = try #require(states.first { $0.key.kind == "RecentContacts" })
        let frame = widget.frame()
        let terminal = TerminalRenderer(width: 60, colors: false).render(frame)
        let html = HTMLRenderer().fragment(frame)
        // As text (a long name may wrap in a narrow box).
        #expect(terminal.contains("<script>alert('x')</script>"), "\(terminal)")
        #expect(html.contains("&lt;script&gt;alert("), "\(html)")
        #expect(!html.contains("<script>") && !html.contains("<b>"))
        for drawing in [terminal, html] {
            #expect(!drawing.unicodeScalars.contains { [0x1B, 0x07, 0x202E, 0x202C].contains($0.value) })
        }
    }

    @Test("the widget and the app needing a fresh token at once: one refresh at the server")
    func oneRefresh() async throws {
        var explorer = explorer
        explorer.client = "contacts-explorer-short"  // access tokens of 2 seconds
        let server = try TestServer.start()
        let user = try await TestServer.newAccount(contacts: 400)
        #expect(
            try explorer.logIn(user, server: server).status == 0
        )
        #expect(try explorer.run(["sync"], server: server).status == 0)
        let host = try Product.widgetHost(environment)
        _ = try await drawn(host)
        try await Task.sleep(for: .seconds(2.5))  // the access token expires (what is under test)
        let first = try #require(try explorer.store().contacts().first)
        #expect(try explorer.run(["show", first.id], server: server).status == 0)  // a reload, no request
        let before = try await TestServer.stats()
        let refreshedBefore = before["\(user.username).refresh_token.200"] ?? 0
        // The app syncs while the widget refreshes: both need a fresh token.
        let clock = ContinuousClock()
        let started = clock.now
        let app = Task.detached { try explorer.run(["sync"], server: server) }
        let shown = try await drawn(host)
        let synced = try await app.value
        let elapsed = clock.now - started
        #expect(synced.status == 0, "\(synced.err)")
        #expect(!shown.contains("Log in"), "\(shown)")
        let stats = try await TestServer.stats()
        // One refresh for the two at once. Only a loaded machine, on which the sync outlasts the
        // 2-second token, may need one more per 2 seconds it ran (each later, never together).
        let refreshes = (stats["\(user.username).refresh_token.200"] ?? 0) - refreshedBefore
        let allowed = 1 + Int(elapsed / .seconds(2))
        #expect(refreshes >= 1 && refreshes <= allowed, "\(refreshes) refreshes in \(elapsed): \(stats)")
        #expect(stats["\(user.username).refresh_token.400"] == nil, "\(stats)")
    }

    @Test("ContactsExplorer's widgets command shows its widget as the system draws it, in the terminal and as HTML")
    func widgetsCommand() async throws {
        let server = try TestServer.start()
        let user = try await TestServer.newAccount(contacts: 5)
        let before = try explorer.run(["widgets"], server: server)
        #expect(before.status == 0 && before.out.contains("Log in to ContactsExplorer"), "\(before.out) \(before.err)")
        #expect(
            try explorer.logIn(user, server: server).status == 0
        )
        #expect(try explorer.run(["sync"], server: server).status == 0)
        let newest = try #require(try explorer.store().recent(limit: 1).first)
        let page = try explorer.run(["widgets", "--html", "--family", "systemLarge"], server: server)
        #expect(
            page.status == 0 && page.out.contains("<!DOCTYPE html>") && page.out.contains(newest.name),
            "\(page.err)"
        )
        let unknown = try explorer.run(["widgets", "--family", "huge"], server: server)
        #expect(unknown.status != 0 && unknown.err.contains("huge is not a widget family"))
    }
}
