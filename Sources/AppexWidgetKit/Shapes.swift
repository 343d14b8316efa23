/// A shape, as in SwiftUI: an outline for a rectangle, given by ``path(in:)``. A shape takes the
/// space it is offered and is filled with the foreground style unless `.fill` or `.stroke` says
/// otherwise.
///
/// The HTML renderer draws the built-in shapes with their corners and a custom shape's path; the
/// space a custom shape's path is made for is the one a ``GeometryReader`` would be given there
/// (the nearest fixed frame's, or the widget's). A terminal draws a stroked shape as a box and
/// leaves a filled one blank.
public protocol Shape: View, Sendable {
    /// The shape's outline in `rect`.
    func path(in rect: CGRect) -> Path
}

/// A shape that can be inset, so that a stroke stays inside it (`strokeBorder`).
public protocol InsettableShape: Shape {
    /// The shape an inset one becomes.
    associatedtype InsetShape: InsettableShape
    /// The shape moved in by `amount` on every side.
    func inset(by amount: CGFloat) -> InsetShape
}

/// A shape the renderers know by its outline rather than its path.
package protocol OutlinedShape {
    /// The outline.
    var outline: ShapeNode.Outline { get }
}

/// A built-in shape: its outline, moved in by an amount.
package protocol BuiltInShape: InsettableShape, OutlinedShape where InsetShape == Self {
    /// How far it is moved in on every side.
    var insetAmount: Double { get set }
}

extension BuiltInShape {
    /// The shape moved in by `amount` on every side.
    public func inset(by amount: CGFloat) -> Self {
        var inset = self
        inset.insetAmount += Double(amount)
        return inset
    }
}

/// A shape filled or stroked with a style.
public struct ShapeView: View {
    let shape: any Shape
    let paint: Paint
    let drawing: ShapeNode.Drawing

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode {
        var inset = 0.0
        let outline: ShapeNode.Outline
        if let known = shape as? any OutlinedShape {
            outline = known.outline
            inset = (shape as? any BuiltInShape)?.insetAmount ?? 0
        } else {
            let space = environment.offeredSpace
            outline = .path(shape.path(in: CGRect(x: 0, y: 0, width: space.width, height: space.height)).elements)
        }
        let node = ViewNode.shape(ShapeNode(outline: outline, paint: paint, drawing: drawing))
        guard inset.isFinite, inset > 0 else { return node }
        return .padding(NodeInsets(top: inset, leading: inset, bottom: inset, trailing: inset), node)
    }
}

extension Shape {
    /// Never called: shapes are drawn by the renderers.
    public var body: Never { fatalNever() }

    /// Implementation detail: a shape is filled with the foreground style.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.fill().node(in: resolution.environment)
    }

    /// The shape filled with `style`.
    public func fill(_ style: some ShapeStyle = .primary) -> ShapeView {
        ShapeView(shape: self, paint: paint(of: style), drawing: .fill)
    }

    /// The shape's outline in `style`, a line `lineWidth` wide centred on it.
    public func stroke(_ style: some ShapeStyle, lineWidth: CGFloat = 1) -> ShapeView {
        ShapeView(shape: self, paint: paint(of: style), drawing: .stroke(lineWidth: Self.width(lineWidth)))
    }

    /// The shape's outline in the foreground style, a line `lineWidth` wide centred on it.
    public func stroke(lineWidth: CGFloat = 1) -> ShapeView { stroke(.primary, lineWidth: lineWidth) }

    static func width(_ lineWidth: CGFloat) -> Double {
        let width = Double(lineWidth)
        return width.isFinite ? max(0, width) : 1
    }
}

extension InsettableShape {
    /// The shape's outline in `style`, a line `lineWidth` wide inside it.
    public func strokeBorder(_ style: some ShapeStyle = .primary, lineWidth: CGFloat = 1) -> ShapeView {
        ShapeView(shape: self, paint: paint(of: style), drawing: .strokeBorder(lineWidth: Self.width(lineWidth)))
    }

    /// The shape's outline in the foreground style, a line `lineWidth` wide inside it.
    public func strokeBorder(lineWidth: CGFloat = 1) -> ShapeView { strokeBorder(.primary, lineWidth: lineWidth) }
}

/// A rectangle.
public struct Rectangle: BuiltInShape {
    package var insetAmount = 0.0
    package var outline: ShapeNode.Outline { .rectangle }
    /// A rectangle.
    public init() {}
    /// The rectangle `rect`.
    public func path(in rect: CGRect) -> Path { Path(rect.insetBy(dx: insetAmount, dy: insetAmount)) }
}

/// A rectangle with rounded corners.
public struct RoundedRectangle: BuiltInShape {
    package var insetAmount = 0.0
    /// The corners' radius.
    public var cornerSize: CGSize
    /// How the corners are drawn; the renderers draw circular corners.
    public var style: RoundedCornerStyle
    package var outline: ShapeNode.Outline {
        let radius = max(0, Double(cornerSize.width) - insetAmount)
        return .roundedRectangle(cornerRadius: radius.isFinite ? radius : 0)
    }
    /// A rectangle whose corners have `cornerRadius`.
    public init(cornerRadius: CGFloat, style: RoundedCornerStyle = .continuous) {
        self.init(cornerSize: CGSize(width: cornerRadius, height: cornerRadius), style: style)
    }
    /// A rectangle whose corners have `cornerSize`.
    public init(cornerSize: CGSize, style: RoundedCornerStyle = .continuous) {
        self.cornerSize = cornerSize
        self.style = style
    }
    /// The rounded rectangle in `rect`.
    public func path(in rect: CGRect) -> Path {
        Path(roundedRect: rect.insetBy(dx: insetAmount, dy: insetAmount), cornerSize: cornerSize, style: style)
    }
}

/// A circle: the largest the space holds, centred in it.
public struct Circle: BuiltInShape {
    package var insetAmount = 0.0
    package var outline: ShapeNode.Outline { .circle }
    /// A circle.
    public init() {}
    /// The largest circle centred in `rect`.
    public func path(in rect: CGRect) -> Path {
        let side = min(rect.width, rect.height) - 2 * insetAmount
        return Path(ellipseIn: CGRect(x: rect.midX - side / 2, y: rect.midY - side / 2, width: side, height: side))
    }
}

/// An ellipse.
public struct Ellipse: BuiltInShape {
    package var insetAmount = 0.0
    package var outline: ShapeNode.Outline { .ellipse }
    /// An ellipse.
    public init() {}
    /// The ellipse in `rect`.
    public func path(in rect: CGRect) -> Path { Path(ellipseIn: rect.insetBy(dx: insetAmount, dy: insetAmount)) }
}

/// A capsule: a rectangle with semicircular ends.
public struct Capsule: BuiltInShape {
    package var insetAmount = 0.0
    package var outline: ShapeNode.Outline { .capsule }
    /// How the ends are drawn; the renderers draw circular ones.
    public var style: RoundedCornerStyle
    /// A capsule.
    public init(style: RoundedCornerStyle = .continuous) { self.style = style }
    /// The capsule in `rect`.
    public func path(in rect: CGRect) -> Path {
        let rect = rect.insetBy(dx: insetAmount, dy: insetAmount)
        return Path(roundedRect: rect, cornerRadius: min(rect.width, rect.height) / 2, style: style)
    }
}

/// The widget's own shape, for content that follows its corners; a rectangle on Linux.
public struct ContainerRelativeShape: BuiltInShape {
    package var insetAmount = 0.0
    package var outline: ShapeNode.Outline { .rectangle }
    /// The container's shape.
    public init() {}
    /// The rectangle `rect`.
    public func path(in rect: CGRect) -> Path { Path(rect.insetBy(dx: insetAmount, dy: insetAmount)) }
}

/// How rounded corners are drawn; the renderers draw circular ones.
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
