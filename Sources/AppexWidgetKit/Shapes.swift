/// A shape, as in SwiftUI. On Linux a shape is drawn as the area it fills: a colour behind the
/// content around it in HTML, nothing in a terminal. `.fill` and `.stroke` choose the colour.
public protocol Shape: View, Sendable {}

/// A shape filled or stroked with a style.
public struct ShapeView: View {
    let paint: Paint
    /// The path filled, drawn at its place; `nil` for a shape that fills its area.
    var path: Path? = nil
    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode {
        path.map { $0.placed(.background(paint, .empty)) } ?? .background(paint, .empty)
    }
}

extension Shape {
    /// Never called: shapes are drawn by the renderers.
    public var body: Never { fatalNever() }

    /// Implementation detail: a shape resolves to the area it fills.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = .background(.hierarchical(0), .empty)
    }

    /// The shape filled with `style`.
    public func fill(_ style: some ShapeStyle = .primary) -> ShapeView {
        ShapeView(paint: paint(of: style), path: self as? Path)
    }

    /// The shape's outline in `style`; drawn as a fill on Linux.
    public func stroke(_ style: some ShapeStyle, lineWidth: Double = 1) -> ShapeView {
        ShapeView(paint: paint(of: style), path: self as? Path)
    }

    /// The shape's outline in `style`, inside its bounds; drawn as a fill on Linux.
    public func strokeBorder(_ style: some ShapeStyle, lineWidth: Double = 1) -> ShapeView {
        ShapeView(paint: paint(of: style))
    }
}

/// A rectangle.
public struct Rectangle: Shape {
    /// A rectangle.
    public init() {}
}

/// A rectangle with rounded corners; square on Linux.
public struct RoundedRectangle: Shape {
    /// A rectangle whose corners have `cornerRadius`.
    public init(cornerRadius: Double, style: RoundedCornerStyle = .continuous) {}
    /// A rectangle whose corners have `cornerSize`.
    public init(cornerSize: CGSize, style: RoundedCornerStyle = .continuous) {}
}

/// A circle.
public struct Circle: Shape {
    /// A circle.
    public init() {}
}

/// An ellipse.
public struct Ellipse: Shape {
    /// An ellipse.
    public init() {}
}

/// A capsule.
public struct Capsule: Shape {
    /// A capsule.
    public init(style: RoundedCornerStyle = .continuous) {}
}

/// The widget's own shape, for content that follows its corners; a rectangle on Linux.
public struct ContainerRelativeShape: Shape {
    /// The container's shape.
    public init() {}
}

/// How rounded corners are drawn; ignored on Linux.
public enum RoundedCornerStyle: Sendable, Hashable {
    /// Quarter circles.
    case circular
    /// Continuous curvature.
    case continuous
}

/// The background of an accessory widget on the lock screen: a soft fill.
public struct AccessoryWidgetBackground: View {
    /// The background.
    public init() {}
    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode { .background(.fill(1), .empty) }
}
