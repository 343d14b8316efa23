/// Xcode's previews, accepted so widget code keeps them: on Linux a preview is
/// `appex widgets show --preview`, and these types do nothing. (`#Preview` is a macro of Apple's
/// developer tools; remove it, or keep it behind `#if canImport(WidgetKit)`.)
public protocol PreviewProvider {
    /// The previews' type.
    associatedtype Previews: View
    /// The views Xcode would preview.
    @ViewBuilder static var previews: Previews { get }
}

/// Where Xcode shows a widget's preview; ignored on Linux.
public struct WidgetPreviewContext: Sendable, Hashable {
    /// The family previewed.
    public let family: WidgetFamily
    /// A context for `family`.
    public init(family: WidgetFamily) { self.family = family }
}

extension View {
    /// Accepted and ignored on Linux: previews are `appex widgets show --preview`.
    public func previewContext(_ context: WidgetPreviewContext) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func previewDisplayName(_ name: String?) -> ModifiedContent<Self> { modified { $0 } }
}
