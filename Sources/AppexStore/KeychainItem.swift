public import Foundation

/// A generic-password item of the shared keychain, with its attributes
/// (`kSecClassGenericPassword`: service, account, access group, label, data, dates).
public struct KeychainItem: Sendable, Hashable {
    /// What the secret is for (`kSecAttrService`).
    public let service: String
    /// Whose secret it is (`kSecAttrAccount`).
    public let account: String
    /// The keychain access group that holds it (`kSecAttrAccessGroup`).
    public let accessGroup: String
    /// A name to show (`kSecAttrLabel`), encrypted like the data.
    public let label: String?
    /// The secret (`kSecValueData`).
    public let data: Data
    /// When the item was added (`kSecAttrCreationDate`).
    public let creationDate: Date
    /// When its data or label last changed (`kSecAttrModificationDate`).
    public let modificationDate: Date

    /// The secret as UTF-8 text, or `nil` when it is not.
    public var string: String? { String(data: data, encoding: .utf8) }
}

/// Which items a search matches: each attribute that is set must equal the item's.
///
/// Without an access group, a search covers every access group the process is entitled to,
/// as `SecItemCopyMatching` does.
public struct KeychainQuery: Sendable, Hashable {
    /// Only items of this service.
    public var service: String?
    /// Only items of this account.
    public var account: String?
    /// Only items in this access group.
    public var accessGroup: String?

    /// A query; `nil` attributes match anything.
    public init(service: String? = nil, account: String? = nil, accessGroup: String? = nil) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
    }
}
