/// Names an extension point: the host's bundle identifier and the point's name.
///
/// The string form is `host.name` (`com.example.hostapp.HostAppFeature`); parsing splits at the
/// last dot. Mirrors the identifier of ExtensionKit's `AppExtensionPoint`.
///
/// A value type both sides speak: it lives at the bottom of the module graph (AppexVocabulary) so
/// that an extension names its point without linking the bundle code, and AppexCore and
/// AppexExtension re-export it.
public struct ExtensionPointIdentifier: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    /// The bundle identifier of the host app that declares the point.
    public let hostBundleIdentifier: String
    /// The point's name within its host (`HostAppFeature`).
    public let name: String

    /// Whether the point is the system's (`com.apple.widgetkit-extension`): no app declares it,
    /// and any app may ship extensions of it.
    package var isSystemPoint: Bool { hostBundleIdentifier == "com.apple" }

    /// Makes an identifier from its two parts.
    public init(host hostBundleIdentifier: String, name: String) {
        self.hostBundleIdentifier = hostBundleIdentifier
        self.name = name
    }

    /// Makes an identifier from its two parts, as ExtensionKit spells it:
    /// `AppExtensionPoint.Identifier("com.example.hostapp", name: "HostAppFeature")`.
    public init(_ hostBundleIdentifier: String, name: String) {
        self.init(host: hostBundleIdentifier, name: name)
    }

    /// Parses `host.name`; `nil` when there is no dot or either side is empty.
    public init?(_ string: String) {
        guard let dot = string.lastIndex(of: "."),
            dot != string.startIndex,
            string.index(after: dot) != string.endIndex
        else { return nil }
        self.init(host: String(string[..<dot]), name: String(string[string.index(after: dot)...]))
    }

    /// `host.name`.
    public var description: String { "\(hostBundleIdentifier).\(name)" }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.description < rhs.description }

    public init(from decoder: any Decoder) throws {
        let string = try decoder.singleValueContainer().decode(String.self)
        guard let identifier = ExtensionPointIdentifier(string) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "\"\(string)\" is not an extension point identifier (host.name)"
                )
            )
        }
        self = identifier
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
