/// An error from Appex that says what was wrong and where.
///
/// Every Appex module throws this one type: bundles and discovery, launching and calling
/// extensions, the IPC channel, the shared stores and the keychain, tokens and login. The
/// ``code`` is a stable name a program can match (`missing-entitlement`, `interrupted`); the
/// ``context`` holds what a user needs to act — the bundle, path, key, entitlement, group,
/// extension point or peer involved — and the ``message`` says it in words. When a lower
/// error caused it (a ``SystemError``, a database error, a `URLError`, …), that error is the
/// ``underlyingError``.
///
/// Modelled on swift-subprocess's `SubprocessError`: the code is a struct over an internal
/// storage enum, so new codes may be added without breaking callers.
public struct AppexError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What kind of failure this is.
    public let code: Code
    /// What went wrong and where, in words; ``description`` adds the code, the underlying error
    /// and the problems.
    public let message: String
    /// The bundle, path, key, entitlement, group, extension point or peer the failure is about.
    public let context: Context
    /// The problems behind an `invalid-bundle` (or `refused`) error; empty otherwise.
    public let problems: [BundleProblem]
    /// The lower-level error that caused this one, if any: a ``SystemError``, a database
    /// error, a `URLError`, the error a token storage or a coder threw, or another
    /// `AppexError` from a lower layer.
    public let underlyingError: (any Error)?

    /// Makes an error.
    ///
    /// - Parameters:
    ///   - code: the kind of failure.
    ///   - message: what went wrong and where, without the underlying error's words (the
    ///     description appends them).
    ///   - context: what the failure is about.
    ///   - problems: the bundle problems behind it.
    ///   - underlyingError: the lower error that caused it.
    public init(_ code: Code, _ message: String, context: Context = Context(), problems: [BundleProblem] = [], underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.context = context
        self.problems = problems
        self.underlyingError = underlyingError
    }
}

// MARK: - Codes

extension AppexError {
    /// A stable name for the kind of failure. New codes may be added: compare with `==`, or
    /// switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        internal enum Storage: String, Hashable, Sendable {
            // Bundles, signing, discovery
            case fileSystem = "file-system"
            case invalidKey = "invalid-key"
            case invalidBundle = "invalid-bundle"
            case invalidPropertyList = "invalid-property-list"
            case notFound = "not-found"
            case undeclaredExtensionPoint = "undeclared-extension-point"
            case registry
            case refused

            // Extension processes and calls
            case launchFailed = "launch-failed"
            case interrupted
            case invalidated
            case crashBudgetExhausted = "crash-budget-exhausted"
            case deadlineExceeded = "deadline-exceeded"
            case cancelled
            case remoteFailure = "remote-failure"
            case protocolViolation = "protocol-violation"
            case coding

            // The IPC channel
            case closed
            case system
            case frameTooLarge = "frame-too-large"
        }

        internal let storage: Storage

        internal init(_ storage: Storage) {
            self.storage = storage
        }

        /// The code's stable, kebab-case name, such as `missing-entitlement`.
        public var name: String { storage.rawValue }

        /// The code's ``name``.
        public var description: String { name }
    }
}

extension AppexError.Code {
    // MARK: Bundles, signing, discovery

    /// A file or directory could not be read or written.
    public static var fileSystem: Self { .init(.fileSystem) }
    /// A signing key file is malformed.
    public static var invalidKey: Self { .init(.invalidKey) }
    /// A bundle has problems (listed in ``AppexError/problems``).
    public static var invalidBundle: Self { .init(.invalidBundle) }
    /// Bytes that should be a property list are not one, or hold what Appex refuses to read
    /// (a set, a UID, a repeated key, an entity declaration); the message says what and where.
    public static var invalidPropertyList: Self { .init(.invalidPropertyList) }
    /// Nothing by that name was found.
    public static var notFound: Self { .init(.notFound) }
    /// An extension point is not declared by the host.
    public static var undeclaredExtensionPoint: Self { .init(.undeclaredExtensionPoint) }
    /// The approval registry could not be read or written.
    public static var registry: Self { .init(.registry) }
    /// The request is not allowed in the current state.
    public static var refused: Self { .init(.refused) }

    // MARK: Extension processes and calls

    /// The extension's process could not be started.
    public static var launchFailed: Self { .init(.launchFailed) }
    /// The extension's process ended while calls were pending (Mirrors XPC's interruption);
    /// the next call launches it again.
    public static var interrupted: Self { .init(.interrupted) }
    /// The connection or process was invalidated and takes no more calls.
    public static var invalidated: Self { .init(.invalidated) }
    /// The extension crashed too often; it is not relaunched.
    public static var crashBudgetExhausted: Self { .init(.crashBudgetExhausted) }
    /// A call's deadline passed before the reply came; the peer was told to stop.
    public static var deadlineExceeded: Self { .init(.deadlineExceeded) }
    /// The calling task was cancelled; the peer was told to stop.
    public static var cancelled: Self { .init(.cancelled) }
    /// The peer's handler failed; the message carries its words.
    public static var remoteFailure: Self { .init(.remoteFailure) }
    /// The peer broke the wire protocol; its connection was closed.
    public static var protocolViolation: Self { .init(.protocolViolation) }
    /// A message or value could not be encoded or decoded.
    public static var coding: Self { .init(.coding) }

    // MARK: The IPC channel

    /// The peer closed the connection (on the host, a call to an extension process that ends
    /// is `interrupted` instead).
    public static var closed: Self { .init(.closed) }
    /// A system call failed; the ``AppexError/underlyingError`` is the ``SystemError``.
    public static var system: Self { .init(.system) }
    /// A frame is larger than this side allows to send.
    public static var frameTooLarge: Self { .init(.frameTooLarge) }
}

// MARK: - Context

extension AppexError {
    /// What a failure is about: whichever of these apply are set.
    public struct Context: Hashable, Sendable {
        /// The bundle identifier of the bundle or process involved.
        public var bundleIdentifier: String?
        /// The file, directory or bundle path involved.
        public var path: String?
        /// The defaults key, or the key path inside a property list.
        public var key: String?
        /// The entitlement the process lacks or that decided the refusal
        /// (`com.apple.security.application-groups`, `keychain-access-groups`).
        public var entitlement: String?
        /// The app group or keychain access group involved.
        public var group: String?
        /// The extension point involved.
        public var extensionPoint: ExtensionPointIdentifier?
        /// The process at the other end: the extension process (on the host's side), or the
        /// peer of an IPC connection.
        public var peer: Int32?

        /// Makes a context; every part defaults to `nil`.
        public init(bundleIdentifier: String? = nil, path: String? = nil, key: String? = nil, entitlement: String? = nil,
                    group: String? = nil, extensionPoint: ExtensionPointIdentifier? = nil, peer: Int32? = nil) {
            self.bundleIdentifier = bundleIdentifier
            self.path = path
            self.key = key
            self.entitlement = entitlement
            self.group = group
            self.extensionPoint = extensionPoint
            self.peer = peer
        }
    }
}

// MARK: - Description

extension AppexError {
    /// `CODE: MESSAGE`, then `: UNDERLYING` when a lower error caused it, then each problem on
    /// its own line.
    public var description: String {
        var text = "\(code): \(message)"
        if let underlyingError { text += ": \(underlyingError)" }
        return ([text] + problems.map { "  - \($0)" }).joined(separator: "\n")
    }

    /// The ``description``.
    public var debugDescription: String { description }
}

// MARK: - Making errors

extension AppexError {
    /// This error, with `update` applied to its context (a layer above adds what it knows:
    /// the peer, the bundle).
    package func updatingContext(_ update: (inout Context) -> Void) -> AppexError {
        var context = self.context
        update(&context)
        return AppexError(code, message, context: context, problems: problems, underlyingError: underlyingError)
    }

    /// A failed file-system call on `path`.
    package static func fileSystem(_ action: String, _ path: String, _ error: SystemError) -> AppexError {
        AppexError(.fileSystem, "cannot \(action) \(path)", context: Context(path: path), underlyingError: error)
    }
}
