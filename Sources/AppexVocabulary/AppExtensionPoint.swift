/// An extension point, as host and extension code name it.
///
/// Mirrors ExtensionKit's `AppExtensionPoint`: an extension binds to one
/// (``AppExtensionPoint/Bind``), and a host makes a `Monitor` (AppexHost) for one or more points
/// to learn which extensions are available.
public struct AppExtensionPoint: Hashable, Sendable, CustomStringConvertible {
    /// The point's identifier (`com.example.hostapp.HostAppFeature`). A point defined in code
    /// (`Definition` (AppexCore)) outside any app bundle has an empty host part: a monitor reads it as
    /// its host's point of that name.
    public let identifier: ExtensionPointIdentifier

    /// What a host's definition says of the point (`Definition` (AppexCore)); `nil` for a point named by
    /// its identifier alone.
    public let traits: Traits?

    /// The point with this identifier.
    public init(identifier: ExtensionPointIdentifier) {
        self.identifier = identifier
        self.traits = nil
    }

    /// The point named by `identifier` (`com.example.hostapp.HostAppFeature`), as
    /// ExtensionKit's `AppExtensionPoint(identifier:)` takes it.
    ///
    /// - Throws: ``AppexError`` `invalid-value` when `identifier` is not a host bundle
    ///   identifier, a dot and a name.
    public init(identifier: String) throws(AppexError) {
        guard let parsed = ExtensionPointIdentifier(identifier) else {
            throw AppexError(
                .invalidValue,
                "\"\(identifier)\" is not an extension point identifier (a host bundle identifier, a dot, the point's name)"
            )
        }
        self.init(identifier: parsed)
    }

    /// The point `name` of the host `hostBundleIdentifier`.
    public init(host hostBundleIdentifier: String, name: String) {
        self.identifier = ExtensionPointIdentifier(host: hostBundleIdentifier, name: name)
        self.traits = nil
    }

    /// A point as a host defines it: its identifier and its traits.
    public init(identifier: ExtensionPointIdentifier, traits: Traits) {
        self.identifier = identifier
        self.traits = traits
    }

    /// The identifier's string form.
    public var description: String { identifier.description }

    /// Whether two points are the same point: the same identifier. Traits describe a point,
    /// they do not name it: a definition equals the point named by its identifier alone (as a
    /// monitor's ``AppExtensionPoint`` list gives it).
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.identifier == rhs.identifier }

    /// Hashes the identifier (see ``==(_:_:)``).
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
}

extension AppExtensionPoint {
    /// What a host says of one of its points when it defines it.
    public struct Traits: Hashable, Sendable {
        /// Whether extensions of the point present user interface (`EXPresentsUserInterface`).
        public var presentsUserInterface: Bool
        /// Whether extensions of the point run with enhanced security
        /// (`EXRequiresEnhancedSecurity`).
        public var requiresEnhancedSecurity: Bool
        /// Which extensions may bind to the point.
        public var scope: Scope.Restriction
        /// The limits its extensions run within (`AppexResourceLimits`); each one it leaves
        /// unsaid takes the sandbox's default.
        public var resourceLimits: ResourceLimits

        /// Traits; by default no user interface, no enhanced security, only extensions inside
        /// the host app (as ExtensionKit's default), and the sandbox's default limits.
        public init(
            presentsUserInterface: Bool = false,
            requiresEnhancedSecurity: Bool = false,
            scope: Scope.Restriction = .application,
            resourceLimits: ResourceLimits = ResourceLimits()
        ) {
            self.presentsUserInterface = presentsUserInterface
            self.requiresEnhancedSecurity = requiresEnhancedSecurity
            self.scope = scope
            self.resourceLimits = resourceLimits
        }
    }

    /// The limits a point's extensions run within (`AppexResourceLimits`), in a `Definition`
    /// (AppexCore) or read from a declaration. Each one left `nil` takes the sandbox's default
    /// (`AppexHost`'s article "Running extensions in the sandbox"): 512 MiB of memory and 30 s of
    /// CPU time per call for an extension, 128 MiB and 5 s for a widget, 1,024 tasks.
    public struct ResourceLimits: Sendable, Hashable {
        /// The memory its process may be charged for, in bytes (`MemoryBytes`): a memory
        /// cgroup's limit, or where the host has none, `RLIMIT_AS` at this plus 1 GiB.
        public var memoryBytes: UInt64?
        /// Open descriptors (`OpenFiles`, `RLIMIT_NOFILE`).
        public var openFiles: UInt64?
        /// The CPU time one call may use, in seconds (`CPUSeconds`; for a widget, one timeline
        /// request).
        public var cpuSeconds: UInt64?
        /// Its tasks, processes and threads together (`Processes`: a pids cgroup, and
        /// `RLIMIT_NPROC`).
        public var processes: UInt64?

        /// Limits; each one left `nil` takes the default.
        public init(
            memoryBytes: UInt64? = nil,
            openFiles: UInt64? = nil,
            cpuSeconds: UInt64? = nil,
            processes: UInt64? = nil
        ) {
            self.memoryBytes = memoryBytes
            self.openFiles = openFiles
            self.cpuSeconds = cpuSeconds
            self.processes = processes
        }
    }

    /// A point's name, in a `Definition` (AppexCore).
    public struct Name: Hashable, Sendable {
        /// The name: the identifier's last part.
        public let name: String
        /// The name `name`.
        public init(_ name: String) { self.name = name }
    }

    /// Whether a point's extensions present user interface, in a `Definition` (AppexCore).
    public struct UserInterface: Hashable, Sendable {
        /// `EXPresentsUserInterface`.
        public let presentsUserInterface: Bool
        /// Presents user interface when `presentsUserInterface`.
        public init(_ presentsUserInterface: Bool) { self.presentsUserInterface = presentsUserInterface }
    }

    /// Whether a point's extensions run with enhanced security, in a `Definition` (AppexCore).
    public struct EnhancedSecurity: Hashable, Sendable {
        /// `EXRequiresEnhancedSecurity`.
        public let requiresEnhancedSecurity: Bool
        /// Requires enhanced security when `requiresEnhancedSecurity`.
        public init(_ requiresEnhancedSecurity: Bool) { self.requiresEnhancedSecurity = requiresEnhancedSecurity }
    }

    /// Which extensions may bind to a point, in a `Definition` (AppexCore).
    public struct Scope: Hashable, Sendable {
        /// The restriction on where a point's extensions come from.
        public enum Restriction: String, Hashable, Sendable {
            /// Only extensions inside the host app (the default, as ExtensionKit's).
            case application
            /// Extensions from elsewhere (`APPEX_EXTENSIONS_PATH`) too, each unapproved until
            /// the owner enables it.
            case none
        }

        /// The restriction.
        public let restriction: Restriction
        /// The scope `restriction`.
        public init(restriction: Restriction) { self.restriction = restriction }
    }

    /// One line of a `Definition` (AppexCore).
    public enum DefinitionComponent: Hashable, Sendable {
        /// ``Name``.
        case name(String)
        /// ``UserInterface``.
        case userInterface(Bool)
        /// ``EnhancedSecurity``.
        case enhancedSecurity(Bool)
        /// ``Scope``.
        case scope(Scope.Restriction)
        /// ``ResourceLimits``.
        case resourceLimits(ResourceLimits)
    }
}

extension AppExtensionPoint {
    /// ExtensionKit's name for a point's identifier: `AppExtensionPoint.Identifier(host:name:)`.
    public typealias Identifier = ExtensionPointIdentifier

    /// Binds an extension to its point, as ExtensionKit's `@AppExtensionPoint.Bind` does:
    ///
    /// ```swift
    /// @AppExtensionPoint.Bind
    /// var boundAppExtensionPoint: AppExtensionPoint {
    ///     AppExtensionPoint.Identifier("com.example.hostapp", name: "HostAppFeature")
    /// }
    /// ```
    ///
    /// A result builder: the property's body names the point, by its identifier or as a point.
    /// `appex bundle` writes the bundle's `EXAppExtensionAttributes` from it.
    @resultBuilder
    public enum Bind {
        /// The point named by its identifier.
        public static func buildExpression(_ identifier: Identifier) -> AppExtensionPoint {
            AppExtensionPoint(identifier: identifier)
        }

        /// The point itself.
        public static func buildExpression(_ point: AppExtensionPoint) -> AppExtensionPoint { point }

        /// The one point the body names.
        public static func buildBlock(_ point: AppExtensionPoint) -> AppExtensionPoint { point }
    }
}
