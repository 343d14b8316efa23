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
    public init(
        _ code: Code,
        _ message: String,
        context: Context = Context(),
        problems: [BundleProblem] = [],
        underlyingError: (any Error)? = nil
    ) {
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
            case sandboxUnavailable = "sandbox-unavailable"
            case interrupted
            case invalidated
            case crashBudgetExhausted = "crash-budget-exhausted"
            case deadlineExceeded = "deadline-exceeded"
            case cancelled
            case remoteFailure = "remote-failure"
            case protocolViolation = "protocol-violation"
            case coding
            case unregisteredType = "unregistered-type"

            // The IPC channel
            case closed
            case system
            case frameTooLarge = "frame-too-large"

            // Shared stores and the keychain
            case missingEntitlement = "missing-entitlement"
            case teamMismatch = "team-mismatch"
            case untrustedProcess = "untrusted-process"
            case invalidName = "invalid-name"
            case notLoggedIn = "not-logged-in"
            case hostOnly = "host-only"
            case duplicateItem = "duplicate-item"
            case itemNotFound = "item-not-found"
            case keyUnavailable = "key-unavailable"
            case corruptItem = "corrupt-item"
            case invalidValue = "invalid-value"
            case corruptValue = "corrupt-value"
            case conflict
            case storage

            // Tokens and login
            case reauthenticationRequired = "reauthentication-required"
            case rejected
            case retryable
            case configuration
            // The secure store and paired access keys
            case notOnboarded = "not-onboarded"
            case storeLocked = "store-locked"
            case wrongPasscode = "wrong-passcode"
            case passcodePolicy = "passcode-policy"
            case passcodeDelay = "passcode-delay"
            case passcodeRetryLimit = "passcode-retry-limit"
            case wrongPairedKey = "wrong-paired-key"
            case stalePairedKey = "stale-paired-key"
            // Widgets
            case viewTreeTooLarge = "view-tree-too-large"
            case reloadBudgetExhausted = "reload-budget-exhausted"
        }

        internal let storage: Storage

        internal init(_ storage: Storage) {
            self.storage = storage
        }

        /// The code named `name` (its ``description``), as a peer sent it; `nil` for a name
        /// this build does not know.
        package init?(name: String) {
            guard let storage = Storage(rawValue: name) else { return nil }
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

    /// The extension's process could not be started or did not complete the handshake; inside
    /// the extension, the process could not take up its host's connection.
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
    /// The extension's point requires a sandbox facility this kernel lacks (Landlock, seccomp,
    /// user namespaces, a pids cgroup): the launch was refused; the message names what is missing.
    public static var sandboxUnavailable: Self { .init(.sandboxUnavailable) }
    /// The peer broke the wire protocol; its connection was closed.
    public static var protocolViolation: Self { .init(.protocolViolation) }
    /// A message or value could not be encoded or decoded.
    public static var coding: Self { .init(.coding) }
    /// A distributed call named, as a generic argument, a type the serving side has not
    /// registered (`IPCActorSystem.register(_:)`): the call was refused and the connection goes
    /// on. The message names the type as the peer sent it, the target and the actor.
    public static var unregisteredType: Self { .init(.unregisteredType) }

    // MARK: The IPC channel

    /// The peer closed the connection (on the host, a call to an extension process that ends
    /// is `interrupted` instead).
    public static var closed: Self { .init(.closed) }
    /// A system call failed; the ``AppexError/underlyingError`` is the ``SystemError``.
    public static var system: Self { .init(.system) }
    /// A frame is larger than this side allows to send.
    public static var frameTooLarge: Self { .init(.frameTooLarge) }

    // MARK: Shared stores and the keychain

    /// The process's signed entitlements do not include the group (the Linux answer to
    /// `errSecMissingEntitlement`, -34018); the context names the entitlement and the group.
    public static var missingEntitlement: Self { .init(.missingEntitlement) }
    /// The group belongs to another signing team than the process's.
    public static var teamMismatch: Self { .init(.teamMismatch) }
    /// The process's bundle could not vouch for it: unsigned, invalid or missing.
    public static var untrustedProcess: Self { .init(.untrustedProcess) }
    /// A group or suite name that cannot name a container.
    public static var invalidName: Self { .init(.invalidName) }
    /// The call needs a signed-in user and there is none: the host has not logged in (or
    /// logged out), or no session is stored.
    public static var notLoggedIn: Self { .init(.notLoggedIn) }
    /// Only the host app may do this (an extension asked).
    public static var hostOnly: Self { .init(.hostOnly) }
    /// A keychain item with the same service, account and access group exists
    /// (`errSecDuplicateItem`, -25299).
    public static var duplicateItem: Self { .init(.duplicateItem) }
    /// No keychain item matches (`errSecItemNotFound`, -25300).
    public static var itemNotFound: Self { .init(.itemNotFound) }
    /// The keychain's root key is missing or does not open this keychain (it was deleted,
    /// replaced, or belongs to another keychain): its items cannot be decrypted.
    public static var keyUnavailable: Self { .init(.keyUnavailable) }
    /// A stored item failed authentication: the database was edited or damaged outside Appex
    /// (`errSecDecode`, -26275).
    public static var corruptItem: Self { .init(.corruptItem) }
    /// A value that cannot be stored so that every process can read it back (too many
    /// elements or too deeply nested for the property-list reader's limits).
    public static var invalidValue: Self { .init(.invalidValue) }
    /// A stored value cannot be read: it was written outside Appex or damaged (it may hold
    /// what Appex refuses to read, such as a set). Only that key is affected.
    public static var corruptValue: Self { .init(.corruptValue) }
    /// Another process changed the state this call relied on (a data-sharing switch at the
    /// same moment, or a suite that is no longer the process's defaults); nothing was changed.
    public static var conflict: Self { .init(.conflict) }
    /// The file system or database under a store failed, or a token storage did.
    public static var storage: Self { .init(.storage) }

    // MARK: Tokens and login
    //
    // What to do: `notLoggedIn` and `reauthenticationRequired` need the host (only it can log
    // in); `retryable` may succeed later and is never retried in a loop inside an extension;
    // `rejected` is the server's final answer to this request; `configuration` and `storage`
    // are bugs or broken setups.

    /// The session can no longer be refreshed (`invalid_grant` after checking for a newer
    /// token): it was cleared, the login status says logged out, and only the host can log in.
    public static var reauthenticationRequired: Self { .init(.reauthenticationRequired) }
    /// The server answered this request with an OAuth error (``AppexError/Context/oauthError``
    /// says which) or refused it.
    public static var rejected: Self { .init(.rejected) }
    /// A failure that may pass: the network, a 5xx answer, a refresh lock held too long.
    public static var retryable: Self { .init(.retryable) }
    /// The OAuth configuration or the server's metadata is unusable.
    public static var configuration: Self { .init(.configuration) }

    // MARK: The secure store and paired access keys

    /// The secure store has not been set up (onboarded) yet, or it was erased at the passcode
    /// retry limit: the host must onboard again.
    public static var notOnboarded: Self { .init(.notOnboarded) }
    /// The secure store is locked (never opened, locked, or locked after its idle timeout):
    /// open it with the passcode, or with a paired access key.
    public static var storeLocked: Self { .init(.storeLocked) }
    /// The passcode does not open the secure store; the message says how many attempts are left.
    public static var wrongPasscode: Self { .init(.wrongPasscode) }
    /// A new passcode breaks the passcode policy; the message names every rule it breaks.
    public static var passcodePolicy: Self { .init(.passcodePolicy) }
    /// A passcode attempt came before the delay after the last failures ran out; the message
    /// says when the next attempt may come. The attempt was not counted.
    public static var passcodeDelay: Self { .init(.passcodeDelay) }
    /// The last allowed passcode attempt failed: the store's data key was destroyed, and the
    /// host must onboard again.
    public static var passcodeRetryLimit: Self { .init(.passcodeRetryLimit) }
    /// A paired access key (or one of its shares) does not open the secure store: a share alone,
    /// swapped shares, or bytes that are no share of this store.
    public static var wrongPairedKey: Self { .init(.wrongPairedKey) }
    /// An auxiliary share of a paired access key that was replaced (the passcode changed):
    /// read the current one (`AuxiliarySecurityManager.getESPAKAuxiliary`) and ask again.
    public static var stalePairedKey: Self { .init(.stalePairedKey) }

    // MARK: Widgets

    /// A widget entry's encoded view tree is larger than `ViewTree.byteLimit`; the context
    /// names the widget's kind.
    public static var viewTreeTooLarge: Self { .init(.viewTreeTooLarge) }
    /// A widget used up its daily reload budget: it keeps its last timeline until the budget
    /// renews; the context names the widget's kind.
    public static var reloadBudgetExhausted: Self { .init(.reloadBudgetExhausted) }
}

// MARK: - Context

extension AppexError {
    /// What a failure is about: whichever of these apply are set (for a token request, the
    /// server's OAuth error and HTTP status).
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
        /// The widget's kind (`StaticConfiguration(kind:)`), when a widget is involved.
        public var widgetKind: String?
        /// The OAuth server's `error` code (`invalid_grant`, `invalid_client`, ...), when it
        /// sent one.
        public var oauthError: String?
        /// The HTTP status of the server's answer, when there was one.
        public var httpStatus: Int?
        /// The resource limit that ended the extension's process, when one did: `memory-limit`
        /// (its memory cgroup's limit) or `cpu-limit` (the CPU time a call may use).
        public var exceededLimit: String?

        /// Makes a context; every part defaults to `nil`.
        public init(
            bundleIdentifier: String? = nil,
            path: String? = nil,
            key: String? = nil,
            entitlement: String? = nil,
            group: String? = nil,
            extensionPoint: ExtensionPointIdentifier? = nil,
            peer: Int32? = nil,
            oauthError: String? = nil,
            httpStatus: Int? = nil,
            widgetKind: String? = nil,
            exceededLimit: String? = nil
        ) {
            self.widgetKind = widgetKind
            self.exceededLimit = exceededLimit
            self.bundleIdentifier = bundleIdentifier
            self.path = path
            self.key = key
            self.entitlement = entitlement
            self.group = group
            self.extensionPoint = extensionPoint
            self.peer = peer
            self.oauthError = oauthError
            self.httpStatus = httpStatus
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
