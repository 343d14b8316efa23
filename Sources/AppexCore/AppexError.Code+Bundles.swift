public import AppexVocabulary

// The codes of bundles, seals, property lists, the approval registry and launches.
extension AppexError.Code {
    /// A signing key file is malformed.
    public static var invalidKey: Self { .init("invalid-key") }
    /// A bundle has problems (listed in ``/AppexVocabulary/AppexError/problems``).
    public static var invalidBundle: Self { .init("invalid-bundle") }
    /// Bytes that should be a property list are not one, or hold what Appex refuses to read
    /// (a set, a UID, a repeated key, an entity declaration); the message says what and where.
    public static var invalidPropertyList: Self { .init("invalid-property-list") }
    /// An extension point is not declared by the host.
    public static var undeclaredExtensionPoint: Self { .init("undeclared-extension-point") }
    /// The approval registry could not be read or written.
    public static var registry: Self { .init("registry") }
}
