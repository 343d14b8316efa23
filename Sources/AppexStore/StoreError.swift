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
