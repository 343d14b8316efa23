public import AppexVocabulary

extension AppExtensionPoint {
    /// Defines one of a host's extension points in code, as ExtensionFoundation's
    /// `@Definition` does:
    ///
    /// ```swift
    /// extension AppExtensionPoint {
    ///     @Definition
    ///     static var MySecureFeature: AppExtensionPoint {
    ///         Name("MySecureFeature")
    ///         UserInterface(false)
    ///         EnhancedSecurity(true)
    ///         Scope(restriction: .none)
    ///         ResourceLimits(memoryBytes: 256 << 20, cpuSeconds: 10)
    ///     }
    /// }
    /// ```
    ///
    /// The point belongs to the running app (``AppexBundle/mainBundlePath()``): its identifier
    /// is the app's bundle identifier, a dot and the name. Outside an app bundle the host part
    /// is empty, and a monitor reads the point as its host's. Unsaid traits take their defaults:
    /// no user interface, no enhanced security, `Scope(restriction: .application)` — only
    /// extensions inside the app bind — and the sandbox's default limits. `swift package appex-bundle` writes the app's
    /// `.appextensionpoint` files from these definitions.
    ///
    /// A result builder: each line is a `Name`, `UserInterface`, `EnhancedSecurity`, `Scope` or
    /// `ResourceLimits`; a later line wins over an earlier one of the same kind, and a definition with
    /// no `Name` has an empty name (which a monitor refuses as undeclared).
    @resultBuilder
    public enum Definition {
        /// A name line.
        public static func buildExpression(_ name: Name) -> [DefinitionComponent] { [.name(name.name)] }
        /// A user-interface line.
        public static func buildExpression(_ trait: UserInterface) -> [DefinitionComponent] {
            [.userInterface(trait.presentsUserInterface)]
        }
        /// An enhanced-security line.
        public static func buildExpression(_ trait: EnhancedSecurity) -> [DefinitionComponent] {
            [.enhancedSecurity(trait.requiresEnhancedSecurity)]
        }
        /// A scope line.
        public static func buildExpression(_ scope: Scope) -> [DefinitionComponent] { [.scope(scope.restriction)] }
        /// A resource-limits line.
        public static func buildExpression(_ limits: ResourceLimits) -> [DefinitionComponent] {
            [.resourceLimits(limits)]
        }
        /// The lines, in order.
        public static func buildBlock(_ components: [DefinitionComponent]...) -> [DefinitionComponent] {
            components.flatMap { $0 }
        }
        /// The point the lines define, belonging to the running app.
        public static func buildFinalResult(_ components: [DefinitionComponent]) -> AppExtensionPoint {
            AppExtensionPoint(definedBy: components, host: AppexBundle.mainBundleIdentifier ?? "")
        }
    }

    /// The point `components` define for the host `hostBundleIdentifier`.
    public init(definedBy components: [DefinitionComponent], host hostBundleIdentifier: String) {
        var name = ""
        var traits = Traits()
        for component in components {
            switch component {
            case .name(let value): name = value
            case .userInterface(let value): traits.presentsUserInterface = value
            case .enhancedSecurity(let value): traits.requiresEnhancedSecurity = value
            case .scope(let value): traits.scope = value
            case .resourceLimits(let value): traits.resourceLimits = value
            }
        }
        self.init(identifier: ExtensionPointIdentifier(host: hostBundleIdentifier, name: name), traits: traits)
    }
}
