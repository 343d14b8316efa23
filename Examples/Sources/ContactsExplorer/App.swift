import AppexAuth
import AppexAuthLogin
import AppexCore
import AppexSecureStore
import AppexStore
import AppexWidgetKit
import ContactsKit
import Foundation

/// What ContactsExplorer is configured with, as seed 000's `MobileSyncExplorerConfig`: one app
/// group and one keychain group shared with its extensions, and the key under which it publishes
/// whether a user is logged in.
enum AppConfiguration {
    static let appGroup = SharedConfiguration.appGroup
    /// `MobileSyncExplorerConfig.userLogInStatusKey`; `CONTACTS_LOGIN_STATUS_KEY` overrides it.
    static var userLogInStatusKey: String {
        ProcessInfo.processInfo.environment["CONTACTS_LOGIN_STATUS_KEY"] ?? "userLoggedIn"
    }
    /// The RecentContacts widget's kind.
    static let widgetKind = "RecentContacts"
}

/// The running app: its bundle's context, its session and its store.
struct App {
    /// The app's bundle, `ContactsExplorer.app`.
    let bundlePath: String
    let context: ProcessContext
    let environment: AppexEnvironment
    let server: URL
    let configuration: OAuthConfiguration

    /// The app as launched from `ContactsExplorer.app` (its executable sits at the top of it), with
    /// the server named by `CONTACTS_SERVER`.
    static func launched() throws -> App {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let bundle = executable.deletingLastPathComponent().path
        guard bundle.hasSuffix(".app") else {
            throw ContactsError(
                .configuration,
                "\(executable.path) is not inside an app bundle: make ContactsExplorer.app with `appex bundle --output ContactsExplorer.app` (see Examples/README.md)"
            )
        }
        let context = try ProcessContext(bundleAt: bundle)
        let environment = AppexEnvironment.current()
        guard let text = ProcessInfo.processInfo.environment["CONTACTS_SERVER"] else {
            throw ContactsError(
                .configuration,
                "CONTACTS_SERVER is not set: name the contacts server (http://127.0.0.1:PORT)"
            )
        }
        guard let server = URL(string: text), server.scheme != nil, server.host != nil else {
            throw ContactsError(
                .configuration,
                "CONTACTS_SERVER is \"\(text)\", which is no server URL (http://127.0.0.1:PORT)"
            )
        }
        let configuration = OAuthConfiguration(
            issuer: server,
            clientID: ProcessInfo.processInfo.environment["CONTACTS_CLIENT_ID"] ?? SharedConfiguration.defaultClientID,
            scopes: SharedConfiguration.scopes,
            appGroup: AppConfiguration.appGroup,
            storage: .keychain,
            userInfoEndpoint: server.appendingPathComponent("api/me")
        )
        return App(
            bundlePath: bundle,
            context: context,
            environment: environment,
            server: server,
            configuration: configuration
        )
    }

    /// The host's side of the session: log in and out. With a passcode set, the session's tokens
    /// live in the secure store, opened with the passcode (`CONTACTS_PASSCODE`).
    func host() throws -> HostAccessor { try host(unlocked: openedSecureStore()) }

    /// The host's side of the session, its tokens in `store` (the secure store, opened) when a
    /// passcode is set: the window opens it with the passcode a person types.
    func host(unlocked store: SecureStore?) throws -> HostAccessor {
        let builder = HostAccessorBuilder(configuration: configuration, context: context, environment: environment)
            .option(.oauth)
        guard let store else { return try builder.build() }
        return try builder.tokenStorage(SecureStoreTokenStorage(store: store)).build()
    }

    /// The app's secure store (seed 002), whether or not a passcode was set.
    func secureStore() throws -> SecureStore {
        var configuration = SecureStore.Configuration(environment: environment)
        if let rounds = ProcessInfo.processInfo.environment["CONTACTS_SCRYPT_ROUNDS"].flatMap(Int.init) {
            // Tests and the demo's quick runs; the default is SecureStore's standard cost.
            configuration.keyDerivation = PasscodeKeyDerivation(rounds: rounds, blockSize: 8, parallelism: 1)
        }
        return try SecureStore(context: context, configuration: configuration)
    }

    /// The secure store opened with `CONTACTS_PASSCODE` when a passcode is set; `nil` when none is
    /// (the tokens are then in the shared keychain, as in seeds 000 and 003).
    func openedSecureStore() throws -> SecureStore? {
        let store = try secureStore()
        guard try store.status().hasPasscode else { return nil }
        guard let passcode = ProcessInfo.processInfo.environment["CONTACTS_PASSCODE"] else {
            throw ContactsError(
                .configuration,
                "ContactsExplorer's session is behind its passcode: give it in CONTACTS_PASSCODE (or turn it off with `ContactsExplorer passcode off`)"
            )
        }
        try store.open(passcode: passcode)
        return store
    }

    /// The contacts store, in the app group's container.
    func store() throws -> ContactsStore {
        let group = try AppGroup(AppConfiguration.appGroup, context: context, environment: environment)
        return try ContactsStore(path: SharedConfiguration.storePath(inGroupContainer: group.containerPath))
    }

    /// The contacts API, its requests authorized by the shared session.
    func api() throws -> ContactsAPI {
        let manager = try host().tokenManager
        return ContactsAPI(server: server, isTransient: { ($0 as? AppexError)?.code == .retryable }) { request in
            try await manager.data(for: request)
        }
    }

    /// Publishes whether a user is logged in, under seed 000's key, in the group's defaults, with
    /// the server and client the app's extensions use (they do not inherit its environment).
    func publishLoggedIn(_ loggedIn: Bool) throws {
        let group = try AppGroup(AppConfiguration.appGroup, context: context, environment: environment)
        let defaults = try SharedDefaults(group: group)
        try defaults.set(loggedIn, forKey: AppConfiguration.userLogInStatusKey)
        if loggedIn {
            try defaults.set(server.absoluteString, forKey: SharedConfiguration.serverKey)
            try defaults.set(configuration.clientID, forKey: SharedConfiguration.clientIDKey)
        }
        // The widget shows the change at the next refresh of the widget host.
        reloadWidget()
    }

    /// Asks the widget host to reload the RecentContacts widget.
    func reloadWidget() {
        WidgetCenter.shared.reloadTimelines(ofKind: AppConfiguration.widgetKind)
    }
}
