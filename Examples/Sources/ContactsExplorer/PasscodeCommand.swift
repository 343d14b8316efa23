import AppexAuth
import AppexSecureStore
import AppexStore
import ArgumentParser
import ContactsKit
import Foundation

/// `ContactsExplorer passcode set|change|off` (seed 002): with a passcode, the session's tokens
/// move out of the shared keychain into the app's secure store, where SAP's apps keep them, and
/// the widget asks the app for its data instead of reading a token; without one they stay shared,
/// as in seeds 000 and 003. Passcodes are read from standard input, a line each.
struct Passcode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Set, change or turn off the app passcode (a line each on standard input).",
        subcommands: [PasscodeSet.self, PasscodeChange.self, PasscodeOff.self]
    )
}

/// The session's token items in the shared keychain, as the app's OAuth configuration keeps them.
private func sharedTokenStorage(_ app: App) throws -> (SharedKeychain, String?) {
    let keychain = try SharedKeychain(context: app.context, environment: app.environment)
    let group = app.configuration.tokenAccessGroup(entitledTo: app.context.entitlements.keychainAccessGroups)
    return (keychain, group)
}

struct PasscodeSet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set a passcode (standard input) and move the session's tokens behind it."
    )

    func run() async throws {
        try await reporting {
            let app = try App.launched()
            let passcode = readLine(strippingNewline: true) ?? ""
            let store = try app.secureStore()
            switch try store.state {
            case .uninitialized: try store.onboard(passcode: passcode)
            default:
                guard try !store.status().hasPasscode else {
                    throw ContactsError(
                        .configuration,
                        "a passcode is set already: use `ContactsExplorer passcode change`"
                    )
                }
                try store.changePasscode(from: nil, to: passcode)
            }
            // The tokens leave the shared keychain: the widget can no longer read them.
            let (keychain, group) = try sharedTokenStorage(app)
            let items = try keychain.items(
                matching: KeychainQuery(service: KeychainTokenStorage.service, accessGroup: group)
            )
            let behind = SecureStoreTokenStorage(store: store)
            for item in items { try behind.write(key: item.account, data: item.data) }
            for item in items {
                try keychain.delete(service: item.service, account: item.account, accessGroup: item.accessGroup)
            }
            // The widget now asks the app; while the app is not running a background run answers.
            try app.scheduleBackgroundRun()
            app.reloadWidget()
            print(
                "passcode set; the session's tokens are behind it (\(items.count) item\(items.count == 1 ? "" : "s") moved)"
            )
        }
    }
}

struct PasscodeChange: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change",
        abstract:
            "Change the passcode (the current one, then the new one, on standard input); the widget's share is renewed."
    )

    func run() async throws {
        try await reporting {
            let app = try App.launched()
            let old = readLine(strippingNewline: true) ?? ""
            let new = readLine(strippingNewline: true) ?? ""
            try app.secureStore().changePasscode(from: old, to: new)
            // Requests put with the old share are refused; the widget asks again with its new one.
            try app.scheduleBackgroundRun()
            app.reloadWidget()
            print("passcode changed; the widget's share was renewed")
        }
    }
}

struct PasscodeOff: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "off",
        abstract:
            "Turn the passcode off (the current one on standard input): the tokens go back to the shared keychain."
    )

    func run() async throws {
        try await reporting {
            let app = try App.launched()
            let passcode = readLine(strippingNewline: true) ?? ""
            let store = try app.secureStore()
            try store.open(passcode: passcode)
            let (keychain, group) = try sharedTokenStorage(app)
            var moved = 0
            for key in try store.keys() where key.hasPrefix(SecureStoreTokenStorage.keyPrefix) {
                let account = String(key.dropFirst(SecureStoreTokenStorage.keyPrefix.count))
                guard let data = try store.get(key, as: Data.self) else { continue }
                try keychain.set(data, service: KeychainTokenStorage.service, account: account, accessGroup: group)
                moved += 1
            }
            try store.erase()
            app.reloadWidget()
            print("passcode off; the session's tokens are shared again (\(moved) item\(moved == 1 ? "" : "s") moved)")
        }
    }
}
