/// Colours to blend, as SwiftUI's `Gradient`.
public struct Gradient: Sendable, Hashable {
    /// The colours, in order.
    public var colors: [Color]

    /// A gradient through `colors`.
    public init(colors: [Color]) { self.colors = colors }
}

/// A point of a view in its own unit square, as SwiftUI's `UnitPoint`.
public struct UnitPoint: Sendable, Hashable {
    /// From the leading edge, 0 to 1.
    public var x: Double
    /// From the top edge, 0 to 1.
    public var y: Double

    /// The point (`x`, `y`).
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The top leading corner.
    public static let topLeading = UnitPoint(x: 0, y: 0)
    /// The top edge's middle.
    public static let top = UnitPoint(x: 0.5, y: 0)
    /// The top trailing corner.
    public static let topTrailing = UnitPoint(x: 1, y: 0)
    /// The leading edge's middle.
    public static let leading = UnitPoint(x: 0, y: 0.5)
    /// The middle.
    public static let center = UnitPoint(x: 0.5, y: 0.5)
    /// The trailing edge's middle.
    public static let trailing = UnitPoint(x: 1, y: 0.5)
    /// The bottom leading corner.
    public static let bottomLeading = UnitPoint(x: 0, y: 1)
    /// The bottom edge's middle.
    public static let bottom = UnitPoint(x: 0.5, y: 1)
    /// The bottom trailing corner.
    public static let bottomTrailing = UnitPoint(x: 1, y: 1)
}

/// A linear gradient, as SwiftUI's `LinearGradient`: a style and a view. On Linux the renderers
/// paint it with its first colour (a colour the widget chose, where SwiftUI blends).
public struct LinearGradient: ShapeStyle, PaintStyle, View {
    let gradient: Gradient

    /// A gradient from `startPoint` to `endPoint`.
    public init(gradient: Gradient, startPoint: UnitPoint, endPoint: UnitPoint) { self.gradient = gradient }
    /// A gradient of `colors` from `startPoint` to `endPoint`.
    public init(colors: [Color], startPoint: UnitPoint, endPoint: UnitPoint) {
        gradient = Gradient(colors: colors)
    }

    var paint: Paint { gradient.colors.first?.paint ?? .hierarchical(0) }

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: the area it fills.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = .background(view.paint, .empty)
    }
}
