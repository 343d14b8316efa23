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

/// Where the session's items are kept without a passcode: the shared keychain, in the token
/// group of the app's OAuth configuration.
private func sharedTokenStorage(_ app: App) throws -> KeychainTokenStorage {
    KeychainTokenStorage(
        keychain: try SharedKeychain(context: app.context, environment: app.environment),
        accessGroup: app.configuration.tokenAccessGroup(entitledTo: app.context.entitlements.keychainAccessGroups)
    )
}

/// Moves the session's items — its token set and a registered client, under the keys the token
/// manager uses — from `source` to `destination`; returns how many were there.
private func moveSession(_ app: App, from source: any TokenStorage, to destination: any TokenStorage) throws -> Int {
    let group = try AppGroup(AppConfiguration.appGroup, context: app.context, environment: app.environment)
    let manager = try OAuthTokenManager(configuration: app.configuration, storage: source, group: group)
    var moved = 0
    for key in [RegisteredClient.storageKey, manager.storageKey] {
        guard let data = try source.read(key: key) else { continue }
        try destination.write(key: key, data: data)
        try source.delete(key: key)
        moved += 1
    }
    return moved
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
            let moved = try moveSession(app, from: sharedTokenStorage(app), to: SecureStoreTokenStorage(store: store))
            // The widget now asks the app; while the app is not running a background run answers.
            try app.scheduleBackgroundRun()
            app.reloadWidget()
            print(
                "passcode set; the session's tokens are behind it (\(moved) item\(moved == 1 ? "" : "s") moved)"
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
            let moved = try moveSession(app, from: SecureStoreTokenStorage(store: store), to: sharedTokenStorage(app))
            try store.erase()
            app.reloadWidget()
            print("passcode off; the session's tokens are shared again (\(moved) item\(moved == 1 ? "" : "s") moved)")
        }
    }
}
