/// A view with a modifier applied: what `.font(_:)`, `.padding()` and the other modifiers return.
public struct ModifiedContent<Content: View>: View {
    let content: Content
    let wrap: @Sendable (ViewNode) -> ViewNode
    /// What the modifier changes in its content's environment (a fixed frame: the size offered).
    var changing: (@Sendable (inout EnvironmentValues) -> Void)?

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode {
        guard let changing else { return wrap(ViewResolver.node(of: content)) }
        var changed = environment
        changing(&changed)
        return wrap(ViewResolver.resolve(content, environment: changed))
    }
}

/// Where a container background goes; on Linux only `.widget`.
public struct ContainerBackgroundPlacement: Sendable, Hashable {
    let name: String
    /// The widget's background.
    public static let widget = ContainerBackgroundPlacement(name: "widget")
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
        let insets = NodeInsets(
            top: edges.contains(.top) ? amount : 0,
            leading: edges.contains(.leading) ? amount : 0,
            bottom: edges.contains(.bottom) ? amount : 0,
            trailing: edges.contains(.trailing) ? amount : 0
        )
        return modified { .padding(insets, $0) }
    }
    /// Pads each edge by its inset.
    public func padding(_ insets: EdgeInsets) -> ModifiedContent<Self> {
        let edges = [insets.top, insets.leading, insets.bottom, insets.trailing].map { $0.isFinite ? max(0, $0) : 0 }
        return modified {
            .padding(NodeInsets(top: edges[0], leading: edges[1], bottom: edges[2], trailing: edges[3]), $0)
        }
    }
    /// A fixed frame; `nil` keeps the content's own size on that axis.
    public func frame(
        width: Double? = nil,
        height: Double? = nil,
        alignment: Alignment = .center
    ) -> ModifiedContent<Self> {
        let spec = FrameSpec(width: width, height: height, maxWidth: nil, maxHeight: nil, alignment: alignment.value)
        var framed = modified { .frame(spec, $0) }
        // A GeometryReader inside learns the size: the frame's, on the axes it fixes.
        framed.changing = { environment in
            let offered = environment.offeredSpace
            environment.offered = (width ?? offered.width, height ?? offered.height)
        }
        return framed
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
}
