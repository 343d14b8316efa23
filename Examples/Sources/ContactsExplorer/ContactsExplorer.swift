import AppexSecureStore
import AppexStore
import ArgumentParser
import ContactsKit
import Foundation

/// ContactsExplorer, the host app of the examples (seed 000's MobileSyncExplorer on Appex): logs
/// the user in, syncs their contacts into the app group, and shows them; its RecentContacts widget
/// and its extensions share what it set up.
@main
struct ContactsExplorer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ContactsExplorer",
        abstract: "Log in, sync and browse your contacts; its widget and extensions use what it set up.",
        discussion: "Run from ContactsExplorer.app, with CONTACTS_SERVER naming the contacts server.",
        subcommands: [
            Login.self, Logout.self, Sync.self, Contacts.self, Show.self, TranslateNote.self, Widgets.self,
            Extensions.self, Run.self, Passcode.self, WindowCommand.self,
        ]
    )

    /// A background run (`appex background run`) answers the widget's pending requests and ends;
    /// otherwise the command line is parsed as usual.
    static func main() async {
        if BackgroundTaskScheduler.isBackgroundLaunch {
            do {
                try await App.launched().backgroundRun()
                Foundation.exit(EXIT_SUCCESS)
            } catch {
                FileHandle.standardError.write(Data("ContactsExplorer: \(error)\n".utf8))
                Foundation.exit(EXIT_FAILURE)
            }
        }
        await main(nil)
    }
}

/// Runs `body`, printing a failure on standard error as one line and exiting 1.
func reporting<T>(_ body: () async throws -> T) async throws -> T {
    do { return try await body() } catch let exit as ExitCode { throw exit } catch {
        FileHandle.standardError.write(Data("ContactsExplorer: \(error)\n".utf8))
        throw ExitCode.failure
    }
}

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Log in (a password on standard input, or in a browser with code + PKCE); publishes logged in."
    )
    @Option(help: "The user name (with --password-stdin).") var user: String?
    @Flag(help: "Read the password from standard input.") var passwordStdin = false
    @Flag(help: "Sign in in a browser: prints the URL to open and waits for the redirect to 127.0.0.1.") var pkce =
        false

    func validate() throws {
        guard pkce != (user != nil && passwordStdin) else {
            throw ValidationError("pass --user USER --password-stdin (the password on standard input), or --pkce")
        }
    }

    func run() async throws {
        try await reporting {
            let app = try App.launched()
            let login = try app.host().login
            let account: UserAccount
            if pkce {
                account = try await login.authorizationCode { url in
                    // Straight to the descriptor: a pipe would hold it in stdio's buffer.
                    FileHandle.standardOutput.write(Data("Open this URL to sign in: \(url.absoluteString)\n".utf8))
                }
            } else {
                let password = readLine(strippingNewline: true) ?? ""
                account = try await login.password(user: user ?? "", password: password)
            }
            try app.publishLoggedIn(true)
            print("logged in as \(TerminalText.safe(account.name))")
        }
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log out: revoke, clear the session, publish logged out.")

    func run() async throws {
        try await reporting {
            let app = try App.launched()
            try await app.host().login.logout()
            try app.publishLoggedIn(false)
            print("logged out")
        }
    }
}

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download what changed since the last sync into the app group (a progress bar on a terminal)."
    )

    func run() async throws {
        try await reporting {
            let app = try App.launched()
            let sync = ContactsSync(api: try app.api(), store: try app.store())
            let bar = ProgressLine()
            let report = try await sync.run { received, more in bar.show(received: received, more: more) }
            bar.finish()
            app.reloadWidget()
            print("synced: \(report.received) contacts in \(report.pages) pages\(report.resumed ? " (resumed)" : "")")
        }
    }
}

struct Contacts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the synced contacts: id and name.")

    func run() async throws {
        try await reporting {
            for contact in try App.launched().store().contacts() {
                print("\(contact.id)\t\(TerminalText.safe(contact.name))")
            }
        }
    }
}

struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show a contact and mark it recently used.")
    @Argument(help: "The contact's id.") var id: String

    func run() async throws {
        try await reporting {
            let app = try App.launched()
            let store = try app.store()
            let contact = try store.contact(id: id)
            try store.markUsed(id: id)
            app.reloadWidget()
            for (label, value) in [
                ("name", contact.name), ("email", contact.email), ("phone", contact.phone),
                ("company", contact.company), ("note", contact.note),
            ] where !value.isEmpty {
                print("\(label): \(TerminalText.safe(value))")
            }
        }
    }
}
