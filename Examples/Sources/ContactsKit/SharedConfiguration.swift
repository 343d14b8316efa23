/// What ContactsExplorer and its extensions agree on, as seed 000's `MobileSyncExplorerConfig`:
/// one app group and one keychain group, where the contacts store lives in the group's container,
/// and the group defaults' keys under which the app tells its extensions which server to use (an
/// extension does not inherit the app's environment).
public enum SharedConfiguration {
    /// The app's bundle identifier.
    public static let bundleIdentifier = "com.myapp.MyApp"
    /// The app group the app and its extensions share.
    public static let appGroup = "group.com.myapp.MyApp"
    /// The keychain access group they share (the session's tokens live there).
    public static let keychainGroup = "com.myapp.MyApp"
    /// The OAuth scopes of the session.
    public static let scopes = ["read", "contacts"]
    /// The OAuth client when none is configured.
    public static let defaultClientID = "contacts-explorer"
    /// The group defaults' key of the server's URL.
    public static let serverKey = "contactsServer"
    /// The group defaults' key of the OAuth client.
    public static let clientIDKey = "contactsClientID"

    /// The contacts store's path in the group container at `container`.
    public static func storePath(inGroupContainer container: String) -> String {
        container + "/ContactsExplorer/contacts.sqlite"
    }
}
