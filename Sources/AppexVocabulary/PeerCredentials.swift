/// Who is at the other end of a Unix socket, as the kernel says (`SO_PEERCRED`).
public struct PeerCredentials: Hashable, Sendable, CustomStringConvertible {
    /// Credentials as the kernel reported them.
    public init(processIdentifier: Int32, userIdentifier: UInt32, groupIdentifier: UInt32) {
        self.processIdentifier = processIdentifier
        self.userIdentifier = userIdentifier
        self.groupIdentifier = groupIdentifier
    }

    /// The peer's process id at the time it connected (or the socket pair was made).
    public let processIdentifier: Int32
    /// The peer's user id.
    public let userIdentifier: UInt32
    /// The peer's group id.
    public let groupIdentifier: UInt32

    public var description: String { "pid \(processIdentifier), uid \(userIdentifier)" }
}
