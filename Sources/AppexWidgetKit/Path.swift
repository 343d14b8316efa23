/// An outline, as SwiftUI's `Path`, built from moves, lines, rectangles, ellipses, arcs and
/// curves, in the coordinates of the view that draws it (a ``GeometryReader``'s, usually).
///
/// On Linux a path is drawn as the box that bounds it, at its place: a bar of a chart, a
/// rectangle, exactly; a curve or a triangle as its bounding box.
public struct Path: Shape {
    /// The points the path passes through and the boxes it adds (x, y, width, height).
    private var points: [(x: Double, y: Double)] = []

    /// An empty path.
    public init() {}

    /// A path built by `build`.
    public init(_ build: (inout Path) -> Void) {
        var path = Path()
        build(&path)
        self = path
    }

    /// A rectangle's path.
    public init(_ rect: CGRect) { addRect(rect) }

    /// A path of the ellipse in `rect`.
    public init(ellipseIn rect: CGRect) { addEllipse(in: rect) }

    /// A path of a rectangle with rounded corners (square on Linux).
    public init(roundedRect rect: CGRect, cornerRadius: CGFloat, style: RoundedCornerStyle = .continuous) {
        addRect(rect)
    }

    /// Starts a new subpath at `point`.
    public mutating func move(to point: CGPoint) { add(point) }
    /// A line to `point`.
    public mutating func addLine(to point: CGPoint) { add(point) }
    /// Lines through `points`.
    public mutating func addLines(_ points: [CGPoint]) { for point in points { add(point) } }
    /// A rectangle.
    public mutating func addRect(_ rect: CGRect) {
        add(rect.origin)
        add(CGPoint(x: rect.maxX, y: rect.maxY))
    }
    /// Rectangles.
    public mutating func addRects(_ rects: [CGRect]) { for rect in rects { addRect(rect) } }
    /// The ellipse in `rect`.
    public mutating func addEllipse(in rect: CGRect) { addRect(rect) }
    /// A rectangle with rounded corners (its box on Linux).
    public mutating func addRoundedRect(in rect: CGRect, cornerSize: CGSize, style: RoundedCornerStyle = .continuous) {
        addRect(rect)
    }
    /// An arc of the circle at `center` (its whole circle's box on Linux).
    public mutating func addArc(
        center: CGPoint,
        radius: CGFloat,
        startAngle: Angle,
        endAngle: Angle,
        clockwise: Bool
    ) {
        addRect(CGRect(x: center.x - radius, y: center.y - radius, width: radius * 2, height: radius * 2))
    }
    /// A quadratic curve to `end`.
    public mutating func addQuadCurve(to end: CGPoint, control: CGPoint) {
        add(control)
        add(end)
    }
    /// A cubic curve to `end`.
    public mutating func addCurve(to end: CGPoint, control1: CGPoint, control2: CGPoint) {
        add(control1)
        add(control2)
        add(end)
    }
    /// Closes the current subpath.
    public mutating func closeSubpath() {}

    /// Whether the path has no point.
    public var isEmpty: Bool { points.isEmpty }

    /// The smallest rectangle that holds the path.
    public var boundingRect: CGRect {
        guard let box else { return .null }
        return CGRect(x: box.x, y: box.y, width: box.width, height: box.height)
    }

    private mutating func add(_ point: CGPoint) { points.append((Double(point.x), Double(point.y))) }

    /// The bounding box, in Doubles.
    var box: (x: Double, y: Double, width: Double, height: Double)? {
        guard let first = points.first else { return nil }
        var (minX, minY, maxX, maxY) = (first.x, first.y, first.x, first.y)
        for point in points.dropFirst() {
            (minX, maxX) = (min(minX, point.x), max(maxX, point.x))
            (minY, maxY) = (min(minY, point.y), max(maxY, point.y))
        }
        return (minX, minY, maxX - minX, maxY - minY)
    }

    /// Implementation detail: the path's box, at its place, filled with the foreground.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.placed(.background(.hierarchical(0), .empty))
    }

    /// `filled` (the box's paint) at the box's place: padded from the top leading corner of the
    /// view drawing it, at the box's size.
    func placed(_ filled: ViewNode) -> ViewNode {
        guard let box, box.width.isFinite, box.height.isFinite, box.x.isFinite, box.y.isFinite else { return .empty }
        let frame = FrameSpec(
            width: max(0, box.width),
            height: max(0, box.height),
            maxWidth: nil,
            maxHeight: nil,
            alignment: .center
        )
        return .padding(
            EdgeInsets(top: max(0, box.y), leading: max(0, box.x), bottom: 0, trailing: 0),
            .frame(frame, filled)
        )
    }
}

/// An angle, as SwiftUI's `Angle`.
public struct Angle: Sendable, Hashable, Comparable {
    /// The angle in radians.
    public var radians: Double
    /// The angle in degrees.
    public var degrees: Double {
        get { radians * 180 / .pi }
        set { radians = newValue * .pi / 180 }
    }

    /// A zero angle.
    public init() { radians = 0 }
    /// An angle of `radians`.
    public init(radians: Double) { self.radians = radians }
    /// An angle of `degrees`.
    public init(degrees: Double) { radians = degrees * .pi / 180 }
    /// An angle of `radians`.
    public static func radians(_ radians: Double) -> Angle { Angle(radians: radians) }
    /// An angle of `degrees`.
    public static func degrees(_ degrees: Double) -> Angle { Angle(degrees: degrees) }
    /// A zero angle.
    public static let zero = Angle()

    /// Whether `lhs` is the smaller angle.
    public static func < (lhs: Angle, rhs: Angle) -> Bool { lhs.radians < rhs.radians }
}
