import Foundation

/// An extension point as its host declares it, in
/// `HostApp.app/ExtensionPoints/<Name>.appextensionpoint`.
///
/// The file is a plist dictionary with one entry, in the shape macOS uses for hand-declared
/// ExtensionKit points: `{ "com.example.hostapp.HostAppFeature": { "EXPresentsUserInterface":
/// false, "EXRequiresEnhancedSecurity": false } }`.
public struct ExtensionPointDeclaration: Sendable, Hashable {
    /// The point's identifier: the host's bundle identifier, a dot, the name.
    public var identifier: ExtensionPointIdentifier
    /// `EXPresentsUserInterface`; `false` when absent.
    public var presentsUserInterface: Bool
    /// `EXRequiresEnhancedSecurity`; `false` when absent. Extensions of such a point run with
    /// enhanced security, on top of the sandbox every extension gets.
    public var requiresEnhancedSecurity: Bool
    /// Which extensions may bind (`AppexScopeRestriction`: `application` or `none`);
    /// `.application` when absent — only extensions inside the host app, as ExtensionKit's
    /// default. With `.none`, extensions found on `APPEX_EXTENSIONS_PATH` bind too, each
    /// unapproved until the owner enables it.
    public var scope: AppExtensionPoint.Scope.Restriction
    /// Every attribute of the point, including the two above and any policy (resource limits,
    /// idle timeout) later issues define.
    public var attributes: [String: PropertyListValue]

    /// The attribute keys Appex reads.
    public enum Key {
        /// `EXPresentsUserInterface` (a boolean): whether the point's extensions show a user interface.
        public static let presentsUserInterface = "EXPresentsUserInterface"
        /// `EXRequiresEnhancedSecurity` (a boolean): the point's extensions run with enhanced
        /// security (their own namespaces, a seccomp allowlist, no network unless allowed).
        public static let requiresEnhancedSecurity = "EXRequiresEnhancedSecurity"
        /// Which extensions may bind (Appex's own key, `Scope(restriction:)` of a definition in
        /// code): the string `application` (the default) or `none`.
        public static let scope = "AppexScopeRestriction"
        /// A dictionary of limits every extension of the point runs under (Appex's own key):
        /// `MemoryBytes` (charged memory), `OpenFiles`, `CPUSeconds` (per call), `Processes`, each
        /// a positive integer; see ``ResourceLimits``.
        public static let resourceLimits = "AppexResourceLimits"
        /// A dictionary of what the point's sandbox lets its extensions do beyond the default
        /// (Appex's own key): `AllowsHelperProcesses` (run programs outside the bundle),
        /// `AllowsNetwork` (with enhanced security, which otherwise has none), `Required` (refuse
        /// to launch where the kernel lacks a facility), each a boolean.
        public static let sandbox = "AppexSandbox"
    }

    /// What a point's sandbox allows beyond the default, from its `AppexSandbox`.
    public struct SandboxSettings: Sendable, Hashable {
        /// `AllowsHelperProcesses`: extensions may execute programs outside their bundle.
        public var allowsHelperProcesses: Bool
        /// `AllowsNetwork`: with enhanced security, extensions keep the network their
        /// entitlements give (enhanced security otherwise has none).
        public var allowsNetwork: Bool
        /// `Required`: a launch is refused where the kernel lacks a facility (always so with
        /// enhanced security); otherwise it goes ahead with a warning.
        public var isRequired: Bool

        /// The default sandbox.
        public init(allowsHelperProcesses: Bool = false, allowsNetwork: Bool = false, isRequired: Bool = false) {
            self.allowsHelperProcesses = allowsHelperProcesses
            self.allowsNetwork = allowsNetwork
            self.isRequired = isRequired
        }

        static let keys = ["AllowsHelperProcesses", "AllowsNetwork", "Required"]
    }

    /// The point's sandbox settings (the default when it declares none).
    public var sandbox: SandboxSettings {
        guard case .dictionary(let settings)? = attributes[Key.sandbox] else { return SandboxSettings() }
        func flag(_ key: String) -> Bool {
            if case .boolean(let value)? = settings[key] { return value }
            return false
        }
        return SandboxSettings(
            allowsHelperProcesses: flag("AllowsHelperProcesses"),
            allowsNetwork: flag("AllowsNetwork"),
            isRequired: flag("Required") || requiresEnhancedSecurity
        )
    }

    /// Limits an extension process runs under, from the point's `AppexResourceLimits`
    /// (``/AppexVocabulary/AppExtensionPoint/ResourceLimits``).
    public typealias ResourceLimits = AppExtensionPoint.ResourceLimits

    /// The keys of `AppexResourceLimits`, in the order of ``ResourceLimits``' properties.
    static let resourceLimitKeys = ["MemoryBytes", "OpenFiles", "CPUSeconds", "Processes"]

    /// The point's resource limits (each `nil` it does not declare: the sandbox's default).
    public var resourceLimits: ResourceLimits {
        guard case .dictionary(let limits)? = attributes[Key.resourceLimits] else { return ResourceLimits() }
        func value(_ key: String) -> UInt64? {
            if case .integer(let number)? = limits[key], number > 0 { return UInt64(number) }
            return nil
        }
        return ResourceLimits(
            memoryBytes: value("MemoryBytes"),
            openFiles: value("OpenFiles"),
            cpuSeconds: value("CPUSeconds"),
            processes: value("Processes")
        )
    }

    /// The file name extension of a declaration file.
    public static let fileExtension = "appextensionpoint"

    /// Declares a point. A flag or scope given here wins over the same key in `attributes`; a
    /// flag given neither way is `false`, a scope `.application`.
    public init(
        identifier: ExtensionPointIdentifier,
        presentsUserInterface: Bool? = nil,
        requiresEnhancedSecurity: Bool? = nil,
        scope: AppExtensionPoint.Scope.Restriction? = nil,
        attributes: [String: PropertyListValue] = [:]
    ) {
        func flag(_ key: String) -> Bool {
            if case .boolean(let value) = attributes[key] { value } else { false }
        }
        let presentsUserInterface = presentsUserInterface ?? flag(Key.presentsUserInterface)
        let requiresEnhancedSecurity = requiresEnhancedSecurity ?? flag(Key.requiresEnhancedSecurity)
        var declaredScope = AppExtensionPoint.Scope.Restriction.application
        if case .string(let text) = attributes[Key.scope],
            let named = AppExtensionPoint.Scope.Restriction(rawValue: text)
        {
            declaredScope = named
        }
        let scope = scope ?? declaredScope
        self.identifier = identifier
        self.presentsUserInterface = presentsUserInterface
        self.requiresEnhancedSecurity = requiresEnhancedSecurity
        self.scope = scope
        var attributes = attributes
        attributes[Key.presentsUserInterface] = .boolean(presentsUserInterface)
        attributes[Key.requiresEnhancedSecurity] = .boolean(requiresEnhancedSecurity)
        attributes[Key.scope] = .string(scope.rawValue)
        self.attributes = attributes
    }

    /// Declares a point defined in code (``/AppexVocabulary/AppExtensionPoint``'s `@Definition`) for the host
    /// `hostBundleIdentifier`: its name, and its traits (the defaults when it has none).
    public init(_ point: AppExtensionPoint, host hostBundleIdentifier: String) {
        let traits = point.traits ?? AppExtensionPoint.Traits()
        let limits = traits.resourceLimits
        var declared: [String: PropertyListValue] = [:]
        for (key, value) in zip(
            Self.resourceLimitKeys,
            [limits.memoryBytes, limits.openFiles, limits.cpuSeconds, limits.processes]
        ) {
            if let value, let number = Int(exactly: value) { declared[key] = .integer(number) }
        }
        self.init(
            identifier: ExtensionPointIdentifier(host: hostBundleIdentifier, name: point.identifier.name),
            presentsUserInterface: traits.presentsUserInterface,
            requiresEnhancedSecurity: traits.requiresEnhancedSecurity,
            scope: traits.scope,
            attributes: declared.isEmpty ? [:] : [Key.resourceLimits: .dictionary(declared)]
        )
    }

    /// The declaration file's contents.
    public var propertyList: [String: PropertyListValue] {
        [identifier.description: .dictionary(attributes)]
    }

    /// Reads a declaration file of a host whose bundle identifier is `hostBundleIdentifier`.
    ///
    /// - Returns: the declaration, or every problem with it (naming `file` and the key).
    static func read(
        data: [UInt8],
        file: String,
        hostBundleIdentifier: String?
    ) -> Result<ExtensionPointDeclaration, ProblemList> {
        let dictionary: [String: PropertyListValue]
        do {
            dictionary = try PropertyListValue.readDictionary(from: data)
        } catch {
            return .failure(ProblemList([BundleProblem(.malformedPropertyList, file: file, message: error.reason)]))
        }
        guard dictionary.count == 1, let (key, value) = dictionary.first else {
            return .failure(
                ProblemList([
                    BundleProblem(
                        .invalidValue,
                        file: file,
                        message:
                            "an extension point file holds exactly one entry (the point's identifier), found \(dictionary.count)"
                    )
                ])
            )
        }
        var problems = BuildSettings.problems(in: dictionary, file: file)
        guard let identifier = ExtensionPointIdentifier(key) else {
            problems.append(
                BundleProblem(
                    .invalidValue,
                    file: file,
                    key: key,
                    message: "\"\(key)\" is not an extension point identifier (host bundle id, a dot, the name)"
                )
            )
            return .failure(ProblemList(problems))
        }
        if let host = hostBundleIdentifier, identifier.hostBundleIdentifier != host {
            problems.append(
                BundleProblem(
                    .invalidValue,
                    file: file,
                    key: key,
                    message:
                        "extension point \(key) does not belong to host \(host): its identifier must start with \"\(host).\""
                )
            )
        }
        guard case .dictionary(let attributes) = value else {
            problems.append(
                BundleProblem(
                    .wrongType,
                    file: file,
                    key: key,
                    message: "\(key) must be a dictionary, found \(value.typeName)"
                )
            )
            return .failure(ProblemList(problems))
        }
        var flags: [String: Bool] = [:]
        for flag in [Key.presentsUserInterface, Key.requiresEnhancedSecurity] {
            guard let flagValue = attributes[flag] else { continue }
            if case .boolean(let bool) = flagValue {
                flags[flag] = bool
            } else {
                problems.append(
                    BundleProblem(
                        .wrongType,
                        file: file,
                        key: "\(key).\(flag)",
                        message: "\(key).\(flag) must be a boolean, found \(flagValue.typeName)"
                    )
                )
            }
        }
        if let scopeValue = attributes[Key.scope] {
            let names = "\"application\" or \"none\""
            if case .string(let text) = scopeValue {
                if AppExtensionPoint.Scope.Restriction(rawValue: text) == nil {
                    problems.append(
                        BundleProblem(
                            .invalidValue,
                            file: file,
                            key: "\(key).\(Key.scope)",
                            message: "\(key).\(Key.scope) is \"\(text)\"; expected \(names)"
                        )
                    )
                }
            } else {
                problems.append(
                    BundleProblem(
                        .wrongType,
                        file: file,
                        key: "\(key).\(Key.scope)",
                        message: "\(key).\(Key.scope) must be a string (\(names)), found \(scopeValue.typeName)"
                    )
                )
            }
        }
        problems += Self.settingsProblems(
            attributes[Key.resourceLimits],
            at: "\(key).\(Key.resourceLimits)",
            in: file,
            known: Self.resourceLimitKeys,
            kind: "limit",
            expected: "a positive integer"
        ) { if case .integer(let number) = $0 { number > 0 } else { false } }
        problems += Self.settingsProblems(
            attributes[Key.sandbox],
            at: "\(key).\(Key.sandbox)",
            in: file,
            known: SandboxSettings.keys,
            kind: "sandbox setting",
            expected: "a boolean"
        ) { if case .boolean = $0 { true } else { false } }
        if !problems.isEmpty { return .failure(ProblemList(problems)) }
        return .success(
            ExtensionPointDeclaration(
                identifier: identifier,
                presentsUserInterface: flags[Key.presentsUserInterface] ?? false,
                requiresEnhancedSecurity: flags[Key.requiresEnhancedSecurity] ?? false,
                attributes: attributes
            )
        )
    }

    /// What is wrong with a settings dictionary at `path` (`AppexResourceLimits`,
    /// `AppexSandbox`): not a dictionary, a key not in `known`, or a value `isValid` refuses.
    private static func settingsProblems(
        _ value: PropertyListValue?,
        at path: String,
        in file: String,
        known: [String],
        kind: String,
        expected: String,
        isValid: (PropertyListValue) -> Bool
    ) -> [BundleProblem] {
        guard let value else { return [] }
        guard case .dictionary(let entries) = value else {
            return [
                BundleProblem(
                    .wrongType,
                    file: file,
                    key: path,
                    message: "\(path) must be a dictionary, found \(value.typeName)"
                )
            ]
        }
        var problems: [BundleProblem] = []
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
            if !known.contains(name) {
                problems.append(
                    BundleProblem(
                        .invalidValue,
                        file: file,
                        key: "\(path).\(name)",
                        message: "\(path).\(name) is not a known \(kind) (\(known.joined(separator: ", ")))"
                    )
                )
            } else if !isValid(entry) {
                problems.append(
                    BundleProblem(
                        .wrongType,
                        file: file,
                        key: "\(path).\(name)",
                        message: "\(path).\(name) must be \(expected), found \(entry.typeName)"
                    )
                )
            }
        }
        return problems
    }
}

/// A list of problems carried as an error.
struct ProblemList: Error {
    var problems: [BundleProblem]
    init(_ problems: [BundleProblem]) { self.problems = problems }
}
