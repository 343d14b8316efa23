import AppexAuth
import AppexCore
import AppexStore
import AppexWidgetKit
import ContactsKit
import Synchronization

/// What the widget shows at a moment.
struct RecentContactsEntry: TimelineEntry {
    enum Content: Sendable {
        /// Nobody is logged in to ContactsExplorer: nothing was asked of the server.
        case loggedOut
        /// The session ended at the server: the user must log in again in the app.
        case logInAgain
        /// The most recently used or changed contacts.
        case contacts([Contact])
        /// The store or the server failed: what went wrong, in a line.
        case unavailable(String)
        /// The session is behind the app passcode and ContactsExplorer has not answered yet (it
        /// is not running): the stored contacts, until its next run answers.
        case waitingForApp([Contact])
    }

    var date: Date
    var content: Content
}

/// RecentContacts's provider (seed 000's Today extension): the contacts the app synced into the
/// group, refreshed from the server with the host's session (it may use and refresh tokens, never
/// log in).
struct RecentContactsProvider: TimelineProvider {
    /// How many contacts each family shows.
    static func count(for family: WidgetFamily) -> Int {
        family == .systemLarge ? 8 : 4
    }

    func placeholder(in context: Context) -> RecentContactsEntry {
        RecentContactsEntry(
            date: Date(),
            content: .contacts([
                Contact(id: "1", name: "Ada Lovelace", modified: ""),
                Contact(id: "2", name: "Grace Hopper", modified: ""),
            ])
        )
    }

    func getSnapshot(in context: Context, completion: @escaping (RecentContactsEntry) -> Void) {
        completion(placeholder(in: context))
    }

    func timeline(in context: Context) async -> Timeline<RecentContactsEntry> {
        let now = Date()
        let entry = RecentContactsEntry(date: now, content: await content(count: Self.count(for: context.family)))
        return Timeline(entries: [entry], policy: .after(now.addingTimeInterval(15 * 60)))
    }

    /// What to show: nothing asked of the server before login; the recent contacts, their details
    /// fresh from the server; "log in again" when the server ended the session.
    func content(count: Int) async -> RecentContactsEntry.Content {
        do throws(any Error) {
            let shared = try OpenedStores.current()
            guard shared.loginStatus.isUserLoggedIn else { return .loggedOut }
            let recent = try shared.store.recent(limit: count)
            // The server and client the app uses (an extension does not inherit its environment).
            guard
                let server = shared.settings.string(forKey: SharedConfiguration.serverKey).flatMap({ URL(string: $0) })
            else {
                return .contacts(recent)
            }
            let manager = try shared.tokenManager(
                server: server,
                clientID: shared.settings.string(forKey: SharedConfiguration.clientIDKey)
                    ?? SharedConfiguration.defaultClientID
            )
            // Behind the app passcode (seed 002) the widget reads no token: it asks the app.
            if try manager.storedTokens() == nil, let asked = await askApp(about: recent, shared: shared) {
                return asked
            }
            let api = ContactsAPI(server: server, isTransient: { ($0 as? AppexError)?.code == .retryable }) {
                request in try await manager.data(for: request)
            }
            // One request for all of them (those deleted at the server since the last sync are left out).
            let fresh = try await api.contacts(ids: recent.map(\.id))
            return .contacts(fresh)
        } catch let error as AppexError where error.code == .reauthenticationRequired || error.code == .notLoggedIn {
            return .logInAgain
        } catch {
            return .unavailable("\(error)")
        }
    }
}

extension RecentContactsProvider {
    /// The contacts, asked of ContactsExplorer through an auxiliary data request carrying the
    /// widget's share of the app's paired key; `nil` when the app has no secure store (its
    /// session is simply gone). While the app does not answer (it is not running), the latest
    /// answer it gave, or the stored contacts, "waiting".
    func askApp(about recent: [Contact], shared: OpenedStores) async -> RecentContactsEntry.Content? {
        do throws(AppexError) {
            let security = try AuxiliarySecurityManager(
                hostBundleIdentifier: SharedConfiguration.bundleIdentifier,
                context: shared.context,
                environment: shared.environment
            )
            let share: Data
            do { share = try security.getESPAKAuxiliary() } catch  where error.code == .notOnboarded { return nil }
            let requests = AuxiliaryDataRequestManager(
                dataStore: try AuxiliaryDataStore(
                    group: AppGroup(
                        SharedConfiguration.appGroup,
                        context: shared.context,
                        environment: shared.environment
                    ),
                    encryptionKey: security.getAuxiliaryDataEncryptionKey()
                )
            )
            let question = AuxiliaryDataRequest(
                info: RecentContactsQuestion(ids: recent.map(\.id)),
                eSPAKAux: share,
                kind: RecentContactsQuestion.kind
            )
            let asked = try requests.putDataRequest(question)
            do {
                // 1.5 s for the app to take the request (it is running, or it is not); once it
                // has, up to 6 s for its answer (a busy machine), within the widget host's 10 s.
                let answered = try await requests.completion(
                    of: asked,
                    within: .milliseconds(1500),
                    servedWithin: .seconds(6)
                )
                if let failure = answered.failure { return .unavailable(failure) }
                return .contacts(try answered.response(as: [Contact].self))
            } catch  where error.code == .deadlineExceeded {
                if let latest = try requests.latestAnswer(to: question),
                    let contacts = try? latest.response(as: [Contact].self)
                {
                    return .contacts(contacts)
                }
                return .waitingForApp(recent)
            }
        } catch {
            return .unavailable(error.message)
        }
    }
}

/// How the widget looks.
struct RecentContactsView: View {
    var entry: RecentContactsEntry

    var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            Text("Recent contacts").font(.headline)
            switch entry.content {
            case .loggedOut:
                Text("Log in to ContactsExplorer").foregroundStyle(.secondary)
            case .logInAgain:
                Text("Log in again").foregroundStyle(.secondary)
            case .unavailable(let reason):
                Text("Unavailable: \(reason)").font(.caption).foregroundStyle(.secondary)
            case .waitingForApp(let contacts):
                Text("Waiting for ContactsExplorer").font(.caption).foregroundStyle(.secondary)
                ForEach(contacts) { contact in
                    HStack {
                        Image(systemName: "person.crop.circle")
                        Text(contact.name)
                    }
                }
            case .contacts(let contacts):
                if contacts.isEmpty {
                    Text("No contacts yet: sync in ContactsExplorer").foregroundStyle(.secondary)
                }
                ForEach(contacts) { contact in
                    HStack {
                        Image(systemName: "person.crop.circle")
                        Text(contact.name)
                        Spacer()
                        Text(contact.company).font(.caption).foregroundStyle(.secondary)
                    }
                }
            }
        }
        .containerBackground(.fill.tertiary, for: .widget)
        .widgetURL(URL(string: "contactsexplorer://recent"))
    }
}

/// What the widget opens once per process and keeps open: its context, the app group's stores,
/// the session's token manager. A widget process lives for a few timelines (the widget host ends
/// it); closing the databases after each one made SQLite checkpoint and sync them before the
/// widget could answer.
final class OpenedStores: Sendable {
    let context: ProcessContext
    let environment: AppexEnvironment
    let loginStatus: LoginStatus
    let store: ContactsStore
    let settings: SharedDefaults
    private let managers = Mutex<[String: OAuthTokenManager]>([:])

    private init() throws {
        context = try ProcessContext.current()
        environment = AppexEnvironment.current()
        let group = try AppGroup(SharedConfiguration.appGroup, context: context, environment: environment)
        loginStatus = try LoginStatus(group: group)
        store = try ContactsStore(path: SharedConfiguration.storePath(inGroupContainer: group.containerPath))
        settings = try SharedDefaults(group: group)
    }

    private static let opened = Mutex<OpenedStores?>(nil)

    /// The process's stores, opened at the first call (again after a failure).
    static func current() throws -> OpenedStores {
        if let opened = opened.withLock({ $0 }) { return opened }
        let stores = try OpenedStores()
        opened.withLock { $0 = stores }
        return stores
    }

    /// The token manager of the host's session with `server` as `clientID` (made once).
    func tokenManager(server: URL, clientID: String) throws -> OAuthTokenManager {
        let key = server.absoluteString + " " + clientID
        if let manager = managers.withLock({ $0[key] }) { return manager }
        let configuration = OAuthConfiguration(
            issuer: server,
            clientID: clientID,
            scopes: SharedConfiguration.scopes,
            appGroup: SharedConfiguration.appGroup,
            storage: .keychain
        )
        let manager = try AccessorBuilder(configuration: configuration, context: context, environment: environment)
            .option(.oauth).build().tokenManager
        managers.withLock { $0[key] = manager }
        return manager
    }
}

@main
struct RecentContactsWidget: Widget {
    var body: some WidgetConfiguration {
        StaticConfiguration(kind: "RecentContacts", provider: RecentContactsProvider()) { entry in
            RecentContactsView(entry: entry)
        }
        .configurationDisplayName("Recent Contacts")
        .description("The contacts you used or that changed most recently.")
        .supportedFamilies([.systemMedium, .systemLarge])
    }
}
