/// Views in a column, as in SwiftUI.
public struct VStack<Content: View>: View {
    let alignment: HorizontalAlignment
    let spacing: Double?
    let content: Content
    /// A column of the views `content` builds, aligned and spaced as given.
    public init(alignment: HorizontalAlignment = .center, spacing: Double? = nil, @ViewBuilder content: () -> Content) {
        self.alignment = alignment
        self.spacing = spacing
        self.content = content()
    }
    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode {
        .stack(
            .vertical,
            alignment: NodeAlignment(horizontal: alignment.value, vertical: .center),
            spacing: spacing,
            children: ViewResolver.node(of: content).flattened
        )
    }
}

/// Views in a row, as in SwiftUI.
public struct HStack<Content: View>: View {
    let alignment: VerticalAlignment
    let spacing: Double?
    let content: Content
    /// A row of the views `content` builds, aligned and spaced as given.
    public init(alignment: VerticalAlignment = .center, spacing: Double? = nil, @ViewBuilder content: () -> Content) {
        self.alignment = alignment
        self.spacing = spacing
        self.content = content()
    }
    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode {
        .stack(
            .horizontal,
            alignment: NodeAlignment(horizontal: .center, vertical: alignment.value),
            spacing: spacing,
            children: ViewResolver.node(of: content).flattened
        )
    }
}

/// Views on top of each other, the last on top, as in SwiftUI.
public struct ZStack<Content: View>: View {
    let alignment: Alignment
    let content: Content
    /// The views `content` builds, overlaid and aligned as given.
    public init(alignment: Alignment = .center, @ViewBuilder content: () -> Content) {
        self.alignment = alignment
        self.content = content()
    }
    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode {
        .stack(.depth, alignment: alignment.value, spacing: nil, children: ViewResolver.node(of: content).flattened)
    }
}

/// Flexible space that pushes its neighbours apart along the stack's axis.
public struct Spacer: View {
    let minLength: Double?
    /// A spacer at least `minLength` long.
    public init(minLength: Double? = nil) { self.minLength = minLength }
    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode { .spacer(minLength: minLength) }
}

/// A thin line across the enclosing stack.
public struct Divider: View {
    /// A divider.
    public init() {}
    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode { .divider }
}

/// Alignment across a column.
public struct HorizontalAlignment: Sendable, Hashable {
    let value: NodeAlignment.Horizontal
    /// The leading edge.
    public static let leading = HorizontalAlignment(value: .leading)
    /// The centre.
    public static let center = HorizontalAlignment(value: .center)
    /// The trailing edge.
    public static let trailing = HorizontalAlignment(value: .trailing)
}

/// Alignment across a row.
public struct VerticalAlignment: Sendable, Hashable {
    let value: NodeAlignment.Vertical
    /// The top edge.
    public static let top = VerticalAlignment(value: .top)
    /// The centre.
    public static let center = VerticalAlignment(value: .center)
    /// The bottom edge.
    public static let bottom = VerticalAlignment(value: .bottom)
    /// The first line's baseline; on Linux, the top.
    public static let firstTextBaseline = VerticalAlignment(value: .top)
    /// The last line's baseline; on Linux, the bottom.
    public static let lastTextBaseline = VerticalAlignment(value: .bottom)
}

/// Alignment on both axes.
public struct Alignment: Sendable, Hashable {
    let value: NodeAlignment
    /// Aligns on both axes as given.
    public init(horizontal: HorizontalAlignment, vertical: VerticalAlignment) {
        value = NodeAlignment(horizontal: horizontal.value, vertical: vertical.value)
    }
    /// Centred.
    public static let center = Alignment(horizontal: .center, vertical: .center)
    /// Top left.
    public static let topLeading = Alignment(horizontal: .leading, vertical: .top)
    /// Top centre.
    public static let top = Alignment(horizontal: .center, vertical: .top)
    /// Top right.
    public static let topTrailing = Alignment(horizontal: .trailing, vertical: .top)
    /// Left centre.
    public static let leading = Alignment(horizontal: .leading, vertical: .center)
    /// Right centre.
    public static let trailing = Alignment(horizontal: .trailing, vertical: .center)
    /// Bottom left.
    public static let bottomLeading = Alignment(horizontal: .leading, vertical: .bottom)
    /// Bottom centre.
    public static let bottom = Alignment(horizontal: .center, vertical: .bottom)
    /// Bottom right.
    public static let bottomTrailing = Alignment(horizontal: .trailing, vertical: .bottom)
}
