/// Colours to blend, as SwiftUI's `Gradient`.
public struct Gradient: Sendable, Hashable {
    /// The colours, in order.
    public var colors: [Color]

    /// A gradient through `colors`, evenly spaced.
    public init(colors: [Color]) { self.colors = colors }

    /// A gradient through `stops`' colours, in order; the renderers space them evenly.
    public init(stops: [Stop]) { colors = stops.map(\.color) }

    /// A colour of a gradient and where it is, 0 to 1.
    public struct Stop: Sendable, Hashable {
        /// The colour.
        public var color: Color
        /// Where it is along the gradient, 0 to 1.
        public var location: CGFloat
        /// A stop of `color` at `location`.
        public init(color: Color, location: CGFloat) {
            self.color = color
            self.location = location
        }
    }
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

/// A linear gradient, as SwiftUI's `LinearGradient`: a style and a view that fills its space.
/// The HTML renderer blends its colours from the start point to the end point (a text's colour
/// is its first); a terminal draws text in its first colour.
public struct LinearGradient: ShapeStyle, PaintStyle, View {
    let gradient: Gradient
    let startPoint: UnitPoint
    let endPoint: UnitPoint

    /// A gradient from `startPoint` to `endPoint`.
    public init(gradient: Gradient, startPoint: UnitPoint, endPoint: UnitPoint) {
        self.gradient = gradient
        self.startPoint = startPoint
        self.endPoint = endPoint
    }
    /// A gradient of `colors` from `startPoint` to `endPoint`.
    public init(colors: [Color], startPoint: UnitPoint, endPoint: UnitPoint) {
        self.init(gradient: Gradient(colors: colors), startPoint: startPoint, endPoint: endPoint)
    }
    /// A gradient through `stops` from `startPoint` to `endPoint`.
    public init(stops: [Gradient.Stop], startPoint: UnitPoint, endPoint: UnitPoint) {
        self.init(gradient: Gradient(stops: stops), startPoint: startPoint, endPoint: endPoint)
    }

    var paint: Paint {
        guard gradient.colors.count > 1 else { return gradient.colors.first?.paint ?? .hierarchical(0) }
        return .linearGradient(
            colors: gradient.colors.map(\.paint),
            startX: startPoint.x,
            startY: startPoint.y,
            endX: endPoint.x,
            endY: endPoint.y
        )
    }

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: the area it fills.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = .background(view.paint, .empty)
    }
}

extension ShapeStyle where Self == LinearGradient {
    /// A linear gradient through `gradient`'s colours.
    public static func linearGradient(
        _ gradient: Gradient,
        startPoint: UnitPoint,
        endPoint: UnitPoint
    ) -> LinearGradient {
        LinearGradient(gradient: gradient, startPoint: startPoint, endPoint: endPoint)
    }
    /// A linear gradient through `colors`.
    public static func linearGradient(colors: [Color], startPoint: UnitPoint, endPoint: UnitPoint) -> LinearGradient {
        LinearGradient(colors: colors, startPoint: startPoint, endPoint: endPoint)
    }
}

/// A colour's standard gradient, as SwiftUI's `Color.gradient`: drawn as the colour on Linux.
public struct AnyGradient: ShapeStyle, PaintStyle, Hashable {
    let color: Color
    var paint: Paint { color.paint }
}

extension Color {
    /// The colour's standard gradient (drawn as the colour).
    public var gradient: AnyGradient { AnyGradient(color: self) }
}
