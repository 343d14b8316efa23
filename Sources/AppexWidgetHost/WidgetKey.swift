/// One widget as the host keeps it: an extension's widget of a kind, in a family.
public struct WidgetKey: Sendable, Hashable, CustomStringConvertible {
    /// The widget extension's bundle identifier.
    public var extensionIdentifier: String
    /// The widget's kind.
    public var kind: String
    /// The family shown.
    public var family: WidgetFamily

    /// Names a widget.
    public init(extensionIdentifier: String, kind: String, family: WidgetFamily) {
        self.extensionIdentifier = extensionIdentifier
        self.kind = kind
        self.family = family
    }

    /// `kind (family) of extension`.
    public var description: String { "\(kind) (\(family)) of \(extensionIdentifier)" }
}
