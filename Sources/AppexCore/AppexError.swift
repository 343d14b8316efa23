import AppexSystem

/// An error from Appex that says what was wrong and where.
///
/// The code is a stable name a program can match; the message is for people and names the
/// bundle path, key, entitlement or peer involved. Modelled on swift-subprocess's
/// `SubprocessError`: new codes may be added without breaking callers.
public struct AppexError: Error, Sendable, CustomStringConvertible {
    /// A stable name for the kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, such as `not-found`.
        public let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A file or directory could not be read or written.
        public static let fileSystem = Code("file-system")
        /// A signing key file is malformed.
        public static let invalidKey = Code("invalid-key")
        /// A bundle has problems (listed in the message).
        public static let invalidBundle = Code("invalid-bundle")
        /// Nothing by that name was found.
        public static let notFound = Code("not-found")
        /// An extension point is not declared by the host.
        public static let undeclaredExtensionPoint = Code("undeclared-extension-point")
        /// The approval registry could not be read or written.
        public static let registry = Code("registry")
        /// The request is not allowed in the current state.
        public static let refused = Code("refused")
        /// The extension's process could not be started.
        public static let launchFailed = Code("launch-failed")
        /// The extension's process ended while calls were pending (Mirrors XPC's
        /// interruption); the next call launches it again.
        public static let interrupted = Code("interrupted")
        /// The connection or process was invalidated and takes no more calls.
        public static let invalidated = Code("invalidated")
        /// The extension crashed too often; it is not relaunched.
        public static let crashBudgetExhausted = Code("crash-budget-exhausted")
        /// A call's deadline passed.
        public static let deadlineExceeded = Code("deadline-exceeded")
        /// The calling task was cancelled.
        public static let cancelled = Code("cancelled")
        /// The extension's handler failed; the message carries its words.
        public static let remoteFailure = Code("remote-failure")
        /// The peer broke the wire protocol; its connection was closed.
        public static let protocolViolation = Code("protocol-violation")
        /// A message could not be encoded or decoded.
        public static let coding = Code("coding")
        /// Bytes that should be a property list are not one, or hold what Appex refuses to read
        /// (a set, a UID, a repeated key, an entity declaration); the message says what and where.
        public static let invalidPropertyList = Code("invalid-property-list")
    }

    /// What kind of failure this is.
    public let code: Code
    /// What went wrong and where, in words.
    public let message: String
    /// The problems behind an `invalidBundle` error; empty otherwise.
    public let problems: [BundleProblem]
    /// The lower-level error, if one caused this.
    public let underlying: (any Error & Sendable)?

    /// Makes an error.
    public init(_ code: Code, _ message: String, problems: [BundleProblem] = [], underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.problems = problems
        self.underlying = underlying
    }

    /// The message, then each problem on its own line.
    public var description: String {
        ([message] + problems.map { "  - \($0)" }).joined(separator: "\n")
    }
}

extension AppexError {
    static func fileSystem(_ action: String, _ path: String, _ error: SystemError) -> AppexError {
        AppexError(.fileSystem, "cannot \(action) \(path): \(error.errno)", underlying: error)
    }
}
