/// An outline, as SwiftUI's `Path`, built from moves, lines, rectangles, ellipses, arcs and
/// curves, in the coordinates of the view that draws it (a ``GeometryReader``'s, usually).
///
/// A path is a shape: it takes the space it is offered and is drawn at its coordinates from that
/// space's top leading corner. The HTML renderer draws it exactly (filled or stroked); a terminal
/// draws the text around it.
public struct Path: Shape {
    /// The path's steps; arcs, ellipses and rounded corners become cubic curves.
    package private(set) var elements: [PathElement] = []

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

    /// A path of a rectangle with rounded corners.
    public init(roundedRect rect: CGRect, cornerRadius: CGFloat, style: RoundedCornerStyle = .continuous) {
        addRoundedRect(in: rect, cornerSize: CGSize(width: cornerRadius, height: cornerRadius), style: style)
    }

    /// A path of a rectangle with corners of `cornerSize`.
    public init(roundedRect rect: CGRect, cornerSize: CGSize, style: RoundedCornerStyle = .continuous) {
        addRoundedRect(in: rect, cornerSize: cornerSize, style: style)
    }

    /// The path itself, wherever it is drawn.
    public func path(in rect: CGRect) -> Path { self }

    /// Starts a new subpath at `point`.
    public mutating func move(to point: CGPoint) { elements.append(.move(x: point.x, y: point.y)) }
    /// A line to `point`.
    public mutating func addLine(to point: CGPoint) {
        if elements.isEmpty { move(to: point) } else { elements.append(.line(x: point.x, y: point.y)) }
    }
    /// Lines through `points`, starting a subpath at the first.
    public mutating func addLines(_ points: [CGPoint]) {
        guard let first = points.first else { return }
        move(to: first)
        for point in points.dropFirst() { addLine(to: point) }
    }
    /// A rectangle, as a closed subpath.
    public mutating func addRect(_ rect: CGRect) {
        let rect = rect.standardized
        addLines([
            rect.origin, CGPoint(x: rect.maxX, y: rect.minY), CGPoint(x: rect.maxX, y: rect.maxY),
            CGPoint(x: rect.minX, y: rect.maxY),
        ])
        closeSubpath()
    }
    /// Rectangles.
    public mutating func addRects(_ rects: [CGRect]) { for rect in rects { addRect(rect) } }
    /// The ellipse in `rect`, as a closed subpath.
    public mutating func addEllipse(in rect: CGRect) {
        let rect = rect.standardized
        let center = CGPoint(x: rect.midX, y: rect.midY)
        move(to: CGPoint(x: rect.maxX, y: rect.midY))
        addArc(center: center, radii: (rect.width / 2, rect.height / 2), from: 0, sweep: 2 * .pi)
        closeSubpath()
    }
    /// A rectangle with corners of `cornerSize` (at most half the rectangle's sides), as a
    /// closed subpath.
    public mutating func addRoundedRect(in rect: CGRect, cornerSize: CGSize, style: RoundedCornerStyle = .continuous) {
        let rect = rect.standardized
        let rx = max(0, min(Double(cornerSize.width), rect.width / 2))
        let ry = max(0, min(Double(cornerSize.height), rect.height / 2))
        move(to: CGPoint(x: rect.minX + rx, y: rect.minY))
        let corners: [(x: Double, y: Double, from: Double)] = [
            (rect.maxX - rx, rect.minY + ry, -.pi / 2), (rect.maxX - rx, rect.maxY - ry, 0),
            (rect.minX + rx, rect.maxY - ry, .pi / 2), (rect.minX + rx, rect.minY + ry, .pi),
        ]
        for corner in corners {
            let start = CGPoint(x: corner.x + rx * cos(corner.from), y: corner.y + ry * sin(corner.from))
            addLine(to: start)
            if rx > 0, ry > 0 {
                addArc(center: CGPoint(x: corner.x, y: corner.y), radii: (rx, ry), from: corner.from, sweep: .pi / 2)
            }
        }
        closeSubpath()
    }
    /// An arc of the circle at `center`, from `startAngle` to `endAngle` (measured from the x axis
    /// towards the y axis), decreasing when `clockwise` as Core Graphics counts; a line joins it
    /// to the current point.
    public mutating func addArc(
        center: CGPoint,
        radius: CGFloat,
        startAngle: Angle,
        endAngle: Angle,
        clockwise: Bool
    ) {
        let full = 2 * Double.pi
        var sweep = (endAngle.radians - startAngle.radians).truncatingRemainder(dividingBy: full)
        if clockwise, sweep > 0 { sweep -= full }
        if !clockwise, sweep < 0 { sweep += full }
        let start = CGPoint(
            x: center.x + radius * cos(startAngle.radians),
            y: center.y + radius * sin(startAngle.radians)
        )
        addLine(to: start)
        addArc(center: center, radii: (Double(radius), Double(radius)), from: startAngle.radians, sweep: sweep)
    }
    /// A quadratic curve to `end`.
    public mutating func addQuadCurve(to end: CGPoint, control: CGPoint) {
        if elements.isEmpty { move(to: control) }
        elements.append(.quadCurve(x: end.x, y: end.y, controlX: control.x, controlY: control.y))
    }
    /// A cubic curve to `end`.
    public mutating func addCurve(to end: CGPoint, control1: CGPoint, control2: CGPoint) {
        if elements.isEmpty { move(to: control1) }
        elements.append(
            .curve(
                x: end.x,
                y: end.y,
                control1X: control1.x,
                control1Y: control1.y,
                control2X: control2.x,
                control2Y: control2.y
            )
        )
    }
    /// Closes the current subpath.
    public mutating func closeSubpath() {
        if !elements.isEmpty, elements.last != .close { elements.append(.close) }
    }

    /// Cubic curves along an ellipse's arc, a quarter turn at most each, from the current point.
    private mutating func addArc(center: CGPoint, radii: (x: Double, y: Double), from start: Double, sweep: Double) {
        let segments = max(1, Int((abs(sweep) / (.pi / 2)).rounded(.up)))
        let step = sweep / Double(segments)
        let k = 4 / 3 * tan(step / 4)
        var angle = start
        for _ in 0..<segments {
            let next = angle + step
            let (c0, s0, c1, s1) = (cos(angle), sin(angle), cos(next), sin(next))
            elements.append(
                .curve(
                    x: center.x + radii.x * c1,
                    y: center.y + radii.y * s1,
                    control1X: center.x + radii.x * (c0 - k * s0),
                    control1Y: center.y + radii.y * (s0 + k * c0),
                    control2X: center.x + radii.x * (c1 + k * s1),
                    control2Y: center.y + radii.y * (s1 - k * c1)
                )
            )
            angle = next
        }
    }

    /// Whether the path has no element.
    public var isEmpty: Bool { elements.isEmpty }

    /// The last point the path reached; `nil` for an empty path.
    public var currentPoint: CGPoint? {
        var start: CGPoint?
        var current: CGPoint?
        for element in elements {
            switch element {
            case .move(let x, let y):
                start = CGPoint(x: x, y: y)
                current = start
            case .line(let x, let y), .quadCurve(let x, let y, _, _), .curve(let x, let y, _, _, _, _):
                current = CGPoint(x: x, y: y)
            case .close: current = start
            }
        }
        return current
    }

    /// The smallest rectangle that holds the points the path passes through (not its curves'
    /// control points); `.null` for an empty path.
    public var boundingRect: CGRect {
        var box: (minX: Double, minY: Double, maxX: Double, maxY: Double)?
        for element in elements {
            let coordinates = element.coordinates
            guard coordinates.count >= 2 else { continue }
            let (x, y) = (coordinates[coordinates.count - 2], coordinates[coordinates.count - 1])
            box = box.map { (min($0.minX, x), min($0.minY, y), max($0.maxX, x), max($0.maxY, y)) } ?? (x, y, x, y)
        }
        guard let box else { return .null }
        return CGRect(x: box.minX, y: box.minY, width: box.maxX - box.minX, height: box.maxY - box.minY)
    }
}

extension Path: OutlinedShape {
    package var outline: ShapeNode.Outline { .path(elements) }
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
