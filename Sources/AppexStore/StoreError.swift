/// Why a shared store refused or failed: typed, and saying what was missing and where.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of refusal or failure.
    public enum Code: String, Sendable, Equatable {
        /// The process's signed entitlements do not include the group
        /// (the Linux answer to `errSecMissingEntitlement`, -34018).
        case missingEntitlement = "missing-entitlement"
        /// The group belongs to another signing team than the process's.
        case teamMismatch = "team-mismatch"
        /// The process's bundle could not vouch for it: unsigned, invalid or missing.
        case untrustedProcess = "untrusted-process"
        /// A group or suite name that cannot name a container.
        case invalidName = "invalid-name"
        /// The call needs a signed-in user and there is none (the host has not logged in).
        case notLoggedIn = "not-logged-in"
        /// A keychain item with the same service, account and access group exists
        /// (`errSecDuplicateItem`, -25299).
        case duplicateItem = "duplicate-item"
        /// No keychain item matches (`errSecItemNotFound`, -25300).
        case itemNotFound = "item-not-found"
        /// The keychain's root key is missing or does not open this keychain (it was deleted,
        /// replaced, or belongs to another keychain): its items cannot be decrypted.
        case keyUnavailable = "key-unavailable"
        /// A stored item failed authentication: the database was edited or damaged outside Appex
        /// (`errSecDecode`, -26275).
        case corruptItem = "corrupt-item"
        /// Only the host app may do this (an extension asked).
        case hostOnly = "host-only"
        /// A value that cannot be stored so that every process can read it back (too many
        /// elements or too deeply nested for the property-list reader's limits).
        case invalidValue = "invalid-value"
        /// A stored value cannot be read: it was written outside Appex or damaged (it may hold
        /// what Appex refuses to read, such as a set). Only that key is affected.
        case corruptValue = "corrupt-value"
        /// Another process changed the state this call relied on (a data-sharing switch at the
        /// same moment, or a suite that is no longer the process's defaults); nothing was changed.
        case conflict
        /// The file system or database failed.
        case storage
    }

    /// What kind of refusal or failure.
    public let code: Code
    /// What happened, naming the group, entitlement, bundle or file.
    public let message: String

    /// Makes an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
