public import AppexSystem

/// A failure on an Appex IPC channel, saying what happened and, where known, with which peer.
///
/// Modelled on swift-subprocess's error: a stable code, words for people, the cause.
public struct IPCError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure. New codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name.
        public let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The peer sent something that breaks the wire protocol (a bad header, an oversize
        /// frame, a missing descriptor). The connection is closed.
        public static let protocolViolation = Code("protocol-violation")
        /// The peer closed the connection.
        public static let closed = Code("closed")
        /// A system call failed.
        public static let system = Code("system")
        /// A frame is larger than this side allows to send.
        public static let frameTooLarge = Code("frame-too-large")
        /// The call's deadline passed before the reply came; the peer was told to stop.
        public static let deadlineExceeded = Code("deadline-exceeded")
        /// The calling task was cancelled; the peer was told to stop.
        public static let cancelled = Code("cancelled")
        /// The peer's handler failed; the message is the peer's.
        public static let remoteFailure = Code("remote-failure")
        /// The connection was invalidated by this side and takes no more calls.
        public static let invalidated = Code("invalidated")
        /// A message could not be encoded or decoded.
        public static let coding = Code("coding")
    }

    /// What kind of failure.
    public let code: Code
    /// What happened, in words.
    public let message: String
    /// The system call error behind it, if any.
    public let underlying: SystemError?

    /// Makes an error.
    public init(_ code: Code, _ message: String, underlying: SystemError? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String { "\(code): \(message)" }
}
