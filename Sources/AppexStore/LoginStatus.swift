public import Foundation

/// The signed-in user, as the host publishes it to its extensions.
public struct UserAccount: Codable, Sendable, Hashable {
    /// The user's identifier at the service.
    public var identifier: String
    /// A name to show.
    public var name: String
    /// The service instance the user belongs to (the Salesforce seed's `instanceUrl`).
    public var instanceURL: URL

    /// Makes an account.
    public init(identifier: String, name: String, instanceURL: URL) {
        self.identifier = identifier
        self.name = name
        self.instanceURL = instanceURL
    }
}

/// Who is logged in, shared from the host to its extensions through the app group.
///
/// The host calls ``publish(_:)`` when its user changes (`nil` at logout); an extension reads
/// ``isUserLoggedIn``/``currentUser``, observes ``changes``, and uses ``requireUser()`` at the
/// entry points that need a user: before login they refuse with ``/AppexStore/AppexVocabulary/AppexError/Code/notLoggedIn``
/// instead of crashing or guessing. The account is stored in the group's suite `appex.login`.
///
/// Publishing also sets a Boolean, as seed 000 (MobileSyncExplorer) keeps its login status:
/// ``Configuration/userLoggedInKey`` (default `userLoggedIn`) in the group's own suite — the
/// suite `UserDefaults.msdkUserDefaults()` is once the process shares its defaults through the
/// group — so a widget's `msdkUserDefaults().bool(forKey: "userLoggedIn")` reads it, and a host
/// that sets that Boolean itself is heard by ``isUserLoggedIn``.
public final class LoginStatus: Sendable {
    /// Where the status is kept.
    public struct Configuration: Sendable, Hashable {
        /// The key of the Boolean "a user is logged in" in the group's own suite. Default:
        /// `"userLoggedIn"` (seed 000's `MobileSyncExplorerConfig.userLogInStatusKey`).
        public var userLoggedInKey: String

        /// A configuration; the default is seed 000's.
        public init(userLoggedInKey: String = "userLoggedIn") {
            self.userLoggedInKey = userLoggedInKey
        }
    }

    /// The group the status is shared in.
    public let group: AppGroup
    /// Where the status is kept.
    public let configuration: Configuration
    private let defaults: SharedDefaults
    /// The group's own suite (named as the group), which holds the Boolean.
    private let flags: SharedDefaults
    private static let key = "currentUser"

    /// The status shared in `group`, its Boolean under `configuration`'s key.
    public init(group: AppGroup, configuration: Configuration = Configuration()) throws(AppexError) {
        self.group = group
        self.configuration = configuration
        defaults = try SharedDefaults(suiteName: "appex.login", group: group)
        flags = try SharedDefaults(group: group)
    }

    /// Publishes the signed-in user (`nil`: logged out); durable when this returns.
    ///
    /// Any process may end a session (an extension whose refresh token was refused publishes
    /// `nil`); only the host app may start one.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `hostOnly` when an app extension publishes a user.
    public func publish(_ user: UserAccount?) throws(AppexError) {
        if user != nil && group.context.kind != .hostApp {
            throw AppexError(
                .hostOnly,
                "\(group.context.name) is an app extension: only the host app publishes who is logged in to app group \(group.identifier)",
                context: group.context.errorContext(group: group.identifier)
            )
        }
        // Two suites, two commits: in the order that never shows a user after a logout (the
        // Boolean false hides the account, see currentUser).
        if let user {
            try defaults.set(encoded: user, forKey: Self.key)
            try flags.set(true, forKey: configuration.userLoggedInKey)
        } else {
            try flags.set(false, forKey: configuration.userLoggedInKey)
            try defaults.removeObject(forKey: Self.key)
        }
    }

    /// The signed-in user, or `nil` (also when the stored account cannot be read: entry points
    /// that need a user then refuse with `notLoggedIn` rather than act for a guessed one; and
    /// when the Boolean says logged out, whoever set it).
    public var currentUser: UserAccount? {
        if flag == false { return nil }
        return try? defaults.decoded(UserAccount.self, forKey: Self.key)
    }

    /// The Boolean, `nil` when it was never set.
    private var flag: Bool? {
        flags.object(forKey: configuration.userLoggedInKey) == nil
            ? nil : flags.bool(forKey: configuration.userLoggedInKey)
    }

    /// Whether a user is signed in: the Boolean under ``Configuration/userLoggedInKey`` when it
    /// is set (by ``publish(_:)`` or by the host itself, as seed 000 does), else whether an
    /// account was published (a status published before the Boolean existed).
    public var isUserLoggedIn: Bool { flag ?? (currentUser != nil) }

    /// The signed-in user. - Throws: ``/AppexVocabulary/AppexError`` `notLoggedIn` before login.
    public func requireUser() throws(AppexError) -> UserAccount {
        guard let user = currentUser else {
            throw AppexError(
                .notLoggedIn,
                "no user is logged in to the host of app group \(group.identifier): log in in the host app first",
                context: group.context.errorContext(group: group.identifier)
            )
        }
        return user
    }

    /// Every change of the signed-in user from the moment of this call (`nil`: logged out), in
    /// order, from any process. Observes while iterated, as ``SharedDefaults/changes(forKey:)``.
    public var changes: Changes {
        Changes(base: defaults.changes(forKey: Self.key))
    }

    /// The changes of the signed-in user, as an `AsyncSequence` (`nil`: logged out).
    public struct Changes: AsyncSequence, Sendable {
        public typealias Element = UserAccount?
        public typealias Failure = Never

        let base: SharedDefaults.Changes

        /// Starts observing.
        public func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator()) }

        /// Delivers the changes; observing ends when it is dropped.
        public struct Iterator: AsyncIteratorProtocol {
            var base: SharedDefaults.Changes.Iterator

            /// The next user (`.some(nil)`: logged out); `nil` once observing ended. An account
            /// that cannot be decoded reads as logged out, as ``LoginStatus/currentUser`` does.
            public mutating func next() async -> UserAccount?? {
                guard let change = await base.next() else { return nil }
                guard case .data(let data) = change.value else { return .some(nil) }
                return .some(try? JSONDecoder().decode(UserAccount.self, from: data))
            }
        }
    }
}
