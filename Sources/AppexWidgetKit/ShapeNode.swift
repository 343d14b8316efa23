/// A shape in a view tree: its outline, the paint it is drawn with, and whether it is filled or
/// stroked. Shapes are flexible: a renderer gives one all the space it is offered, as SwiftUI does.
package struct ShapeNode: Codable, Hashable, Sendable {
    /// The outline, in the shape's own space.
    package enum Outline: Codable, Hashable, Sendable {
        /// The whole area.
        case rectangle
        /// The area with corners of a radius, in points.
        case roundedRectangle(cornerRadius: Double)
        /// The largest circle the area holds, centred.
        case circle
        /// The ellipse the area holds.
        case ellipse
        /// The area with semicircular ends.
        case capsule
        /// A path, in points from the area's top leading corner.
        case path([PathElement])
    }

    /// How the outline is drawn.
    package enum Drawing: Codable, Hashable, Sendable {
        /// Filled with the paint.
        case fill
        /// A line of a width centred on the outline (`.stroke`).
        case stroke(lineWidth: Double)
        /// A line of a width inside the outline (`.strokeBorder`).
        case strokeBorder(lineWidth: Double)
    }

    package var outline: Outline
    package var paint: Paint
    package var drawing: Drawing

    package init(outline: Outline, paint: Paint, drawing: Drawing) {
        self.outline = outline
        self.paint = paint
        self.drawing = drawing
    }
}

/// One step of a path, in points.
package enum PathElement: Codable, Hashable, Sendable {
    /// Starts a subpath at a point.
    case move(x: Double, y: Double)
    /// A straight line to a point.
    case line(x: Double, y: Double)
    /// A quadratic curve to a point, through a control point.
    case quadCurve(x: Double, y: Double, controlX: Double, controlY: Double)
    /// A cubic curve to a point, through two control points.
    case curve(x: Double, y: Double, control1X: Double, control1Y: Double, control2X: Double, control2Y: Double)
    /// Closes the subpath.
    case close

    /// The element's coordinates, in the order written on the wire.
    package var coordinates: [Double] {
        switch self {
        case .move(let x, let y), .line(let x, let y): [x, y]
        case .quadCurve(let x, let y, let controlX, let controlY): [controlX, controlY, x, y]
        case .curve(let x, let y, let c1x, let c1y, let c2x, let c2y): [c1x, c1y, c2x, c2y, x, y]
        case .close: []
        }
    }
}
