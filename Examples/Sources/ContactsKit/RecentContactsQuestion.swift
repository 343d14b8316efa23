/// What the RecentContacts widget asks ContactsExplorer through an auxiliary data request when
/// the session's tokens are behind the app passcode (seed 002): these contacts, fresh from the
/// server. The answer is the contacts, JSON.
public struct RecentContactsQuestion: Codable, Hashable, Sendable {
    /// The request's kind.
    public static let kind = "recent-contacts"
    /// The background task that answers requests while ContactsExplorer is not running.
    public static let refreshTask = "com.myapp.MyApp.refresh"

    /// The contacts asked for, by identifier.
    public var ids: [String]

    /// A question about `ids`.
    public init(ids: [String]) { self.ids = ids }
}
