/// A view with a modifier applied: what `.font(_:)`, `.padding()` and the other modifiers return.
public struct ModifiedContent<Content: View>: View, PrimitiveView {
    let content: Content
    let wrap: @Sendable (ViewNode) -> ViewNode

    /// Never called.
    public var body: Never { fatalNever() }
    package func node(in environment: EnvironmentValues) -> ViewNode { wrap(ViewResolver.node(of: content)) }
}

/// Where a container background goes; on Linux only `.widget`.
public struct ContainerBackgroundPlacement: Sendable, Hashable {
    let name: String
    /// The widget's background.
    public static let widget = ContainerBackgroundPlacement(name: "widget")
}

/// A set of edges, for `.padding(_:_:)`.
public struct EdgeSet: OptionSet, Sendable, Hashable {
    /// The edges as bits.
    public let rawValue: Int
    /// Makes a set from bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The top edge.
    public static let top = EdgeSet(rawValue: 1)
    /// The leading edge.
    public static let leading = EdgeSet(rawValue: 2)
    /// The bottom edge.
    public static let bottom = EdgeSet(rawValue: 4)
    /// The trailing edge.
    public static let trailing = EdgeSet(rawValue: 8)
    /// Leading and trailing.
    public static let horizontal: EdgeSet = [.leading, .trailing]
    /// Top and bottom.
    public static let vertical: EdgeSet = [.top, .bottom]
    /// Every edge.
    public static let all: EdgeSet = [.top, .leading, .bottom, .trailing]
}

/// `Edge.Set`, as SwiftUI spells it.
public enum Edge: Sendable, Hashable {
    /// The top edge.
    case top
    /// The leading edge.
    case leading
    /// The bottom edge.
    case bottom
    /// The trailing edge.
    case trailing
    /// A set of edges.
    public typealias Set = EdgeSet
}

extension View {
    func modified(_ wrap: @escaping @Sendable (ViewNode) -> ViewNode) -> ModifiedContent<Self> {
        ModifiedContent(content: self, wrap: wrap)
    }

    func styled(_ style: TextStyle) -> ModifiedContent<Self> {
        modified { .styled(style, $0) }
    }

    // MARK: Text style, inherited by everything inside

    /// Draws text inside in `font`.
    public func font(_ font: Font?) -> ModifiedContent<Self> { styled(TextStyle(font: font?.spec)) }
    /// Draws text inside at `weight`.
    public func fontWeight(_ weight: Font.Weight?) -> ModifiedContent<Self> { styled(TextStyle(weight: weight?.name)) }
    /// Draws text inside in bold.
    public func bold(_ isActive: Bool = true) -> ModifiedContent<Self> {
        styled(TextStyle(weight: isActive ? .bold : .regular))
    }
    /// Draws text inside in italics.
    public func italic(_ isActive: Bool = true) -> ModifiedContent<Self> { styled(TextStyle(italic: isActive)) }
    /// Paints content inside with `style`.
    public func foregroundStyle(_ style: some ShapeStyle) -> ModifiedContent<Self> {
        styled(TextStyle(foreground: paint(of: style)))
    }
    /// Paints content inside with `primary`; the secondary style is ignored on Linux.
    public func foregroundStyle(_ primary: some ShapeStyle, _ secondary: some ShapeStyle) -> ModifiedContent<Self> {
        foregroundStyle(primary)
    }
    /// Paints content inside in `color`.
    public func foregroundColor(_ color: Color?) -> ModifiedContent<Self> {
        styled(TextStyle(foreground: color?.paint))
    }
    /// Draws at most `limit` lines of each text inside, the last ending in "…" when cut.
    public func lineLimit(_ limit: Int?) -> ModifiedContent<Self> {
        modified { .styled(TextStyle(lineLimit: limit.map { max(1, $0) }), $0) }
    }

    // MARK: Layout

    /// Pads every edge by the system's padding (16 points; one cell in a terminal).
    public func padding() -> ModifiedContent<Self> { padding(.all, nil) }
    /// Pads every edge by `length` points.
    public func padding(_ length: Double) -> ModifiedContent<Self> { padding(.all, length) }
    /// Pads `edges` by `length` points, or by the system's padding.
    public func padding(_ edges: EdgeSet = .all, _ length: Double? = nil) -> ModifiedContent<Self> {
        let amount = length ?? 16
        let insets = EdgeInsets(
            top: edges.contains(.top) ? amount : 0,
            leading: edges.contains(.leading) ? amount : 0,
            bottom: edges.contains(.bottom) ? amount : 0,
            trailing: edges.contains(.trailing) ? amount : 0
        )
        return modified { .padding(insets, $0) }
    }
    /// A fixed frame; `nil` keeps the content's own size on that axis.
    public func frame(
        width: Double? = nil,
        height: Double? = nil,
        alignment: Alignment = .center
    ) -> ModifiedContent<Self> {
        let spec = FrameSpec(width: width, height: height, maxWidth: nil, maxHeight: nil, alignment: alignment.value)
        return modified { .frame(spec, $0) }
    }
    /// A flexible frame; `maxWidth: .infinity` takes the width offered. Minimum and ideal sizes
    /// are accepted and ignored on Linux.
    public func frame(
        minWidth: Double? = nil,
        idealWidth: Double? = nil,
        maxWidth: Double? = nil,
        minHeight: Double? = nil,
        idealHeight: Double? = nil,
        maxHeight: Double? = nil,
        alignment: Alignment = .center
    ) -> ModifiedContent<Self> {
        let spec = FrameSpec(
            width: nil,
            height: nil,
            maxWidth: maxWidth,
            maxHeight: maxHeight,
            alignment: alignment.value
        )
        return modified { .frame(spec, $0) }
    }

    // MARK: Widgets

    /// The URL the widget's containing app opens with when the widget is tapped. The outermost
    /// one counts, as in WidgetKit.
    public func widgetURL(_ url: URL?) -> ModifiedContent<Self> {
        let string = url?.absoluteString
        return modified { node in string.map { .widgetURL($0, node) } ?? node }
    }
    /// The widget's background, drawn behind its content (and removed where the system draws
    /// its own, which Linux never does).
    public func containerBackground(
        _ style: some ShapeStyle,
        for placement: ContainerBackgroundPlacement
    ) -> ModifiedContent<Self> {
        let paint = paint(of: style)
        return modified { .background(paint, $0) }
    }
    /// The widget's background from a view; on Linux a `Color` is drawn, other views are ignored.
    public func containerBackground<Background: View>(
        for placement: ContainerBackgroundPlacement,
        alignment: Alignment = .center,
        @ViewBuilder content: () -> Background
    ) -> ModifiedContent<Self> {
        let paint = (content() as? Color)?.paint
        return modified { node in paint.map { .background($0, node) } ?? node }
    }
    /// Draws `style` behind the content.
    public func background(_ style: some ShapeStyle = .background) -> ModifiedContent<Self> {
        let paint = paint(of: style)
        return modified { .background(paint, $0) }
    }

    // MARK: Accepted and ignored on Linux

    /// Accepted and ignored on Linux: text is drawn at its font's size.
    public func minimumScaleFactor(_ factor: Double) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: text is aligned by its stack.
    public func multilineTextAlignment(_ alignment: TextAlignment) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: widgets are never shown redacted.
    public func privacySensitive(_ sensitive: Bool = true) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: widgets are never shown redacted.
    public func redacted(reason: RedactionReasons) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func unredacted() -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: widgets are drawn in full colour.
    public func widgetAccentable(_ accentable: Bool = true) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: renderers draw no animation.
    public func contentTransition(_ transition: ContentTransition) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func invalidatableContent(_ invalidatable: Bool = true) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: no transparency in a terminal.
    public func opacity(_ opacity: Double) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux: corners are square.
    public func cornerRadius(_ radius: Double) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func layoutPriority(_ priority: Double) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func imageScale(_ scale: Image.Scale) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func symbolRenderingMode(_ mode: SymbolRenderingMode?) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func accessibilityLabel(_ label: String) -> ModifiedContent<Self> { modified { $0 } }
    /// Accepted and ignored on Linux.
    public func id(_ id: some Hashable) -> ModifiedContent<Self> { modified { $0 } }
}

extension Image {
    /// An image's scale relative to text; ignored on Linux.
    public enum Scale: Sendable, Hashable {
        /// Small.
        case small
        /// Medium.
        case medium
        /// Large.
        case large
    }
}

/// How lines of text align; ignored on Linux.
public enum TextAlignment: Sendable, Hashable {
    /// Leading.
    case leading
    /// Centred.
    case center
    /// Trailing.
    case trailing
}

/// Why content is redacted; ignored on Linux.
public struct RedactionReasons: OptionSet, Sendable, Hashable {
    /// The reasons as bits.
    public let rawValue: Int
    /// Makes a set from bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// A placeholder.
    public static let placeholder = RedactionReasons(rawValue: 1)
    /// Private content.
    public static let privacy = RedactionReasons(rawValue: 2)
}

/// How content changes are animated; ignored on Linux.
public struct ContentTransition: Sendable, Hashable {
    let name: String
    /// Numbers roll.
    public static func numericText(countsDown: Bool = false) -> ContentTransition {
        ContentTransition(name: "numericText")
    }
    /// No animation.
    public static let identity = ContentTransition(name: "identity")
    /// Cross-fade.
    public static let opacity = ContentTransition(name: "opacity")
}
