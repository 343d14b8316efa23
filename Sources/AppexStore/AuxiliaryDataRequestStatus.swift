public import Foundation

/// A queued request as `appex aux list` shows it: its state, never its content.
public struct AuxiliaryDataRequestStatus: Sendable, Hashable {
    /// The request's identifier.
    public let id: String
    /// Its kind.
    public let kind: String
    /// When it was first put.
    public let creationTime: Date
    /// When it was last put again or answered.
    public let lastModifiedTime: Date
    /// When it is dropped unanswered.
    public let expiry: Date
    /// When the current lease runs out; `nil` when no host holds it.
    public let leaseExpiry: Date?
    /// How many times a host took it (more than one: a host was killed while serving it).
    public let leases: Int
    /// When it was answered (or failed); `nil` while pending.
    public let completionTime: Date?
    /// Why it failed, if it did.
    public let failure: String?
}
