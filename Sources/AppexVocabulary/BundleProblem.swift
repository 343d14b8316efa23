/// One thing wrong with a bundle, naming the file and, where there is one, the key.
///
/// Validation never stops at the first problem: a bundle's problems are all reported at once,
/// so a developer fixes them in one pass.
///
/// A plain value, at the bottom of the module graph beside ``AppexError`` (whose
/// ``AppexError/problems`` lists them); AppexCore, which finds them, re-exports it.
public struct BundleProblem: Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem this is. New kinds may be added; switch with a `default`.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// A stable, machine-readable name such as `missing-key`.
        public let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A file the bundle needs could not be read.
        public static let unreadableFile = Kind("unreadable-file")
        /// A file is not a property list, or not a dictionary.
        public static let malformedPropertyList = Kind("malformed-property-list")
        /// A required key is absent.
        public static let missingKey = Kind("missing-key")
        /// A key holds a value of the wrong plist type.
        public static let wrongType = Kind("wrong-type")
        /// A key holds a value of the right type that is not acceptable.
        public static let invalidValue = Kind("invalid-value")
        /// A `$(NAME)` build setting was never expanded by a build.
        public static let unexpandedBuildSetting = Kind("unexpanded-build-setting")
        /// `CFBundleExecutable` names no file.
        public static let missingExecutable = Kind("missing-executable")
        /// The executable exists but may not be executed.
        public static let notExecutable = Kind("not-executable")
        /// The extension binds to a point its host does not declare.
        public static let undeclaredExtensionPoint = Kind("undeclared-extension-point")
        /// The extension lies outside its host app, and its point takes only extensions inside
        /// (`Scope(restriction: .application)`, the default).
        public static let outsideScope = Kind("outside-scope")
        /// The bundle carries no `_CodeSignature/CodeResources`.
        public static let unsigned = Kind("unsigned")
        /// The seal is unreadable or its signature does not verify.
        public static let badSignature = Kind("bad-signature")
        /// A sealed file's contents changed.
        public static let fileModified = Kind("file-modified")
        /// A file was added after sealing.
        public static let fileAdded = Kind("file-added")
        /// A sealed file is gone.
        public static let fileRemoved = Kind("file-removed")
        /// A file the seal cannot vouch for: a link that leads out of the bundle, a name that is
        /// not UTF-8, a device, socket or pipe.
        public static let unsupportedFile = Kind("unsupported-file")
        /// Another bundle claims the same bundle identifier and takes precedence.
        public static let duplicateBundleIdentifier = Kind("duplicate-bundle-identifier")
        /// An extension's app groups or keychain access groups are not its host's.
        public static let entitlementMismatch = Kind("entitlement-mismatch")
    }

    /// What kind of problem this is.
    public let kind: Kind
    /// The file the problem is in (absolute path).
    public let file: String
    /// The key path inside that file (`NSExtension.NSExtensionPointIdentifier`), if any.
    public let key: String?
    /// What is wrong, in words, without the file name.
    public let message: String

    /// Makes a problem.
    public init(_ kind: Kind, file: String, key: String? = nil, message: String) {
        self.kind = kind
        self.file = file
        self.key = key
        self.message = message
    }

    /// `FILE: MESSAGE`.
    public var description: String { "\(file): \(message)" }
}
