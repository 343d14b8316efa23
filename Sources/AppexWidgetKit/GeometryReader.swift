/// A view that learns its size, as SwiftUI's `GeometryReader`: its content is drawn from its top
/// leading corner, in layers, given the space it is offered.
///
/// The view tree is made in the widget's process, before a renderer lays it out: the space
/// offered is the widget's (its family's size), or the width and height of the nearest
/// `.frame(width:height:)` around the reader.
public struct GeometryReader<Content: View>: View {
    let content: (GeometryProxy) -> Content

    /// A reader whose content is made from its size.
    public init(@ViewBuilder content: @escaping (GeometryProxy) -> Content) { self.content = content }

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: the content, for the space offered, in a top-leading layer stack.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        let offered = resolution.environment.offeredSpace
        let proxy = GeometryProxy(width: offered.width, height: offered.height)
        resolution.node = .stack(
            .depth,
            alignment: NodeAlignment(horizontal: .leading, vertical: .top),
            spacing: nil,
            children: ViewResolver.node(of: view.content(proxy)).flattened
        )
    }
}

/// The size and coordinates a ``GeometryReader`` gives its content.
public struct GeometryProxy: Sendable {
    let width: Double
    let height: Double
    /// The space offered.
    public var size: CGSize { CGSize(width: width, height: height) }
    /// The safe area's insets: none in a widget.
    public var safeAreaInsets: EdgeInsets { EdgeInsets() }

    /// The reader's frame in `space`: its own (`.local`) starts at the origin; on Linux every
    /// space is the local one.
    public func frame(in space: CoordinateSpace) -> CGRect { CGRect(origin: .zero, size: size) }
}

extension EnvironmentValues {
    /// The space offered to views here: the nearest fixed frame's, or the widget's.
    var offeredSpace: (width: Double, height: Double) {
        offered ?? widgetFamily.points
    }
}

/// Insets from each edge, in points, as SwiftUI's `EdgeInsets`: `.padding(EdgeInsets(top: 8, leading: 16, bottom: 8, trailing: 16))`.
public struct EdgeInsets: Sendable, Hashable {
    /// The top inset.
    public var top: Double
    /// The leading inset.
    public var leading: Double
    /// The bottom inset.
    public var bottom: Double
    /// The trailing inset.
    public var trailing: Double

    /// Insets of the given sizes (none by default).
    public init(top: Double = 0, leading: Double = 0, bottom: Double = 0, trailing: Double = 0) {
        self.top = top
        self.leading = leading
        self.bottom = bottom
        self.trailing = trailing
    }
}

/// A coordinate space, as SwiftUI's `CoordinateSpace`.
public enum CoordinateSpace: Sendable, Hashable {
    /// The screen's.
    case global
    /// The view's own.
    case local
    /// A space named with `.coordinateSpace(name:)`.
    case named(String)
}
