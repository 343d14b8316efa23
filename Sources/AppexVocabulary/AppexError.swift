/// An error from Appex that says what was wrong and where.
///
/// Every Appex module throws this one type: bundles and discovery, launching and calling
/// extensions, the IPC channel, the shared stores and the keychain, tokens and login. The
/// ``code`` is a stable name a program can match (`missing-entitlement`, `interrupted`); the
/// ``context`` holds what a user needs to act — the bundle, path, key, entitlement, group,
/// extension point or peer involved — and the ``message`` says it in words. When a lower
/// error caused it (a failed system call, a database error, a `URLError`, …), that error is the
/// ``underlyingError``.
///
/// Modelled on swift-subprocess's `SubprocessError`: the code is a struct over its stable name,
/// declared by the module that throws it, so new codes may be added without breaking callers.
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
    /// The lower-level error that caused this one, if any: a failed system call
    /// (AppexSystem's `SystemError`, which names the call and its `errno`), a database
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
    /// A stable name for the kind of failure, such as `missing-entitlement`. Compare with `==`, or
    /// switch with a `default`: new codes may be added.
    ///
    /// Each module declares the codes of its own failures, in its own `AppexError.Code+….swift`
    /// file (AppexIPC's `interrupted`, AppexStore's `missing-entitlement`, AppexAuth's
    /// `reauthentication-required`); the codes every layer may throw are declared here. A code
    /// is visible wherever the module that throws it is imported.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's stable, kebab-case name, such as `missing-entitlement`.
        public let name: String

        /// The code named `name`: only a module that declares the code makes one.
        package init(_ name: String) {
            self.name = name
        }

        /// The code named `name`, as a peer sent it; `nil` unless it is a plausible code name
        /// (1 to 64 lower-case ASCII letters, digits and hyphens), whether or not this build
        /// declares it.
        package init?(name: String) {
            let bytes = name.utf8
            guard (1...64).contains(bytes.count),
                bytes.allSatisfy({
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-")
                })
            else { return nil }
            self.name = name
        }

        /// The code's ``name``.
        public var description: String { name }
    }
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
}
