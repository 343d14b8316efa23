public import AppexCore
public import Foundation

/// Generic-password items shared by the processes of a keychain access group: the shape of
/// Apple's keychain sharing, encrypted at rest.
///
/// ```swift
/// let keychain = try SharedKeychain(context: try .current())
/// try keychain.add(Data("s3cret".utf8), service: "api.example.com", account: "ada")
/// let token = try keychain.item(service: "api.example.com", account: "ada")?.data
/// ```
///
/// A process reaches the access groups its signed `keychain-access-groups` entitlement lists;
/// the first is its default (items added without a group go there). Any other group is refused
/// with `missingEntitlement`, naming the group and the entitlement (the Linux answer to
/// `errSecMissingEntitlement`, -34018), and a group claimed by another signing team with
/// `teamMismatch`. Items live in `$APPEX_HOME/Keychains/keychain.sqlite` (WAL,
/// `synchronous = FULL`, `secure_delete`); their data and labels are sealed with AES-256-GCM
/// under keys derived from a root key kept outside `APPEX_HOME` (docs/threat-model.md). Every
/// operation is one transaction: a writer killed at any point leaves every item as it was before
/// or after, and concurrent writers in any number of processes never corrupt the store.
///
/// A sandboxed extension cannot open those files: its host launched it with a broker, and every
/// operation here goes to the host, which checks who is asking (the process it launched, by the
/// kernel's word) and answers with that extension's entitlements. The API is the same either way;
/// ``isBrokered`` says which path serves.
public final class SharedKeychain: Sendable {
    /// Who is asking.
    public let context: ProcessContext
    /// The database file (opened by the host's broker when ``isBrokered``).
    public let path: String
    private let backend: Backend

    private enum Backend: Sendable {
        case local(LocalKeychain)
        case brokered(KeychainBrokerClient)
    }

    /// Opens the keychain for `context`: through the host's broker when this process was launched
    /// with one (a sandboxed extension), else the files themselves, creating them (and the root
    /// key) on first use.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `keyUnavailable` when the root key is missing or is not this
    ///   keychain's, `storage` when the files cannot be opened.
    public init(context: ProcessContext, environment: AppexEnvironment = .current()) throws(AppexError) {
        self.context = context
        path = environment.home + "/Keychains/keychain.sqlite"
        if let broker = KeychainBrokerClient.inherited(context: context) {
            backend = .brokered(broker)
        } else {
            backend = .local(try LocalKeychain(context: context, environment: environment))
        }
    }

    /// Opens the keychain's files for `context`, never through a broker: what a broker serves with.
    package init(servingFor context: ProcessContext, environment: AppexEnvironment) throws(AppexError) {
        self.context = context
        let local = try LocalKeychain(context: context, environment: environment)
        path = local.path
        backend = .local(local)
    }

    /// Whether this process reaches the keychain through its host's broker.
    public var isBrokered: Bool {
        if case .brokered = backend { return true }
        return false
    }

    /// The access group items go to when none is named: the first of the process's
    /// `keychain-access-groups` (`nil` for the owner and for bundles without the entitlement).
    public var defaultAccessGroup: String? { Self.defaultAccessGroup(of: context) }

    static func defaultAccessGroup(of context: ProcessContext) -> String? {
        context.entitlements.keychainAccessGroups.first { !$0.hasPrefix(privateGroupPrefix) }
    }

    /// The access group that only this bundle reaches, without any entitlement: `private:`
    /// followed by its bundle identifier (the analog of the application-identifier group every
    /// Apple app has). No entitlement grants another bundle's private group, so a host's
    /// extensions never reach it, whatever groups they share with it; the owner reaches every
    /// group. Searches without a named group do not include it. `nil` for the owner.
    public var privateAccessGroup: String? { Self.privateAccessGroup(of: context) }

    static func privateAccessGroup(of context: ProcessContext) -> String? {
        context.bundleIdentifier.map { privateGroupPrefix + $0 }
    }

    /// What begins every bundle's private access group.
    static let privateGroupPrefix = "private:"

    // MARK: - Writing

    /// Adds an item.
    ///
    /// - Parameters:
    ///   - data: the secret, encrypted at rest.
    ///   - service: the item's service (`kSecAttrService`), stored in plain text.
    ///   - account: the item's account (`kSecAttrAccount`), stored in plain text.
    ///   - label: a name for people (`kSecAttrLabel`).
    ///   - accessGroup: where; `nil`: ``defaultAccessGroup``.
    /// - Throws: ``/AppexVocabulary/AppexError`` `duplicateItem` when the group holds an item of this service and
    ///   account (nothing changes); `missingEntitlement`/`teamMismatch` for a group the process
    ///   may not use.
    public func add(
        _ data: Data,
        service: String,
        account: String,
        label: String? = nil,
        accessGroup: String? = nil
    ) throws(AppexError) {
        try write(.add, data, service: service, account: account, label: label, accessGroup: accessGroup)
    }

    /// Replaces an item's data (and its label, when one is given).
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `itemNotFound` when there is no such item (nothing changes).
    public func update(
        _ data: Data,
        service: String,
        account: String,
        label: String? = nil,
        accessGroup: String? = nil
    ) throws(AppexError) {
        try write(.update, data, service: service, account: account, label: label, accessGroup: accessGroup)
    }

    /// Adds the item, or replaces its data (and label, when one is given) if it exists: one
    /// atomic step, for callers that just want the secret stored.
    public func set(
        _ data: Data,
        service: String,
        account: String,
        label: String? = nil,
        accessGroup: String? = nil
    ) throws(AppexError) {
        try write(.set, data, service: service, account: account, label: label, accessGroup: accessGroup)
    }

    /// ``add(_:service:account:label:accessGroup:)``, ``update(_:service:account:label:accessGroup:)``
    /// or ``set(_:service:account:label:accessGroup:)``, as `mode` says: here, or through the broker.
    package func write(
        _ mode: KeychainBrokerWrite,
        _ data: Data,
        service: String,
        account: String,
        label: String?,
        accessGroup: String?
    ) throws(AppexError) {
        switch backend {
        case .local(let keychain):
            try keychain.write(mode, data, service: service, account: account, label: label, accessGroup: accessGroup)
        case .brokered(let broker):
            try broker.perform(
                .write(mode, data: data, service: service, account: account, label: label, accessGroup: accessGroup)
            )
        }
    }

    /// Deletes an item; its sealed bytes are overwritten in the file (`secure_delete`).
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `itemNotFound` when there is no such item.
    public func delete(service: String, account: String, accessGroup: String? = nil) throws(AppexError) {
        switch backend {
        case .local(let keychain): try keychain.delete(service: service, account: account, accessGroup: accessGroup)
        case .brokered(let broker):
            try broker.perform(.delete(service: service, account: account, accessGroup: accessGroup))
        }
    }

    // MARK: - Reading

    /// The item of `service` and `account`, or `nil`.
    ///
    /// - Parameters:
    ///   - service: the item's service.
    ///   - account: the item's account.
    ///   - accessGroup: where to look; `nil`: every group the process is entitled to,
    ///     in the order its entitlement lists them.
    /// - Throws: ``/AppexVocabulary/AppexError`` for a group the process may not use; `corruptItem` when the
    ///   stored item fails authentication.
    ///
    /// Repeated reads of an item no process changed are answered from memory: every commit
    /// rewrites the WAL-index header, which is compared on each read (no query, no decryption).
    public func item(service: String, account: String, accessGroup: String? = nil) throws(AppexError) -> KeychainItem? {
        switch backend {
        case .local(let keychain):
            return try keychain.item(service: service, account: account, accessGroup: accessGroup)
        case .brokered(let broker):
            return try broker.items(KeychainQuery(service: service, account: account, accessGroup: accessGroup)).first
        }
    }

    /// Every item that matches `query`, with its attributes and data (the `kSecMatchLimitAll`
    /// form), in the order of the process's access groups, then by service and account.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` for a group the process may not use; `corruptItem` when a
    ///   matching item fails authentication.
    public func items(matching query: KeychainQuery = KeychainQuery()) throws(AppexError) -> [KeychainItem] {
        switch backend {
        case .local(let keychain): return try keychain.items(matching: query)
        case .brokered(let broker): return try broker.items(query)
        }
    }
}
