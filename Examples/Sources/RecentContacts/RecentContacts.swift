import AppexAuth
import AppexCore
import AppexStore
import AppexWidgetKit
import ContactsKit

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
            let context = try ProcessContext.current()
            let environment = AppexEnvironment.current()
            let group = try AppGroup(SharedSettings.appGroup, context: context, environment: environment)
            guard try LoginStatus(group: group).isUserLoggedIn else { return .loggedOut }
            let store = try ContactsStore(path: group.containerPath + "/ContactsExplorer/contacts.sqlite")
            let recent = try store.recent(limit: count)
            // The server and client the app uses (an extension does not inherit its environment).
            let settings = try SharedDefaults(group: group)
            guard let server = settings.string(forKey: "contactsServer").flatMap({ URL(string: $0) }) else {
                return .contacts(recent)
            }
            let configuration = OAuthConfiguration(
                issuer: server,
                clientID: settings.string(forKey: "contactsClientID") ?? "contacts-explorer",
                scopes: ["read", "contacts"],
                appGroup: SharedSettings.appGroup,
                storage: .keychain
            )
            let manager = try AccessorBuilder(configuration: configuration, context: context, environment: environment)
                .option(.oauth).build().tokenManager
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

/// The app's configuration the widget shares (seed 000).
enum SharedSettings {
    static let appGroup = "group.com.myapp.MyApp"
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
