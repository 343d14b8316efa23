/// How something is painted, as in SwiftUI: a hierarchical level (`.secondary`), a ``Color``,
/// or the system's fill (`.fill.tertiary`). Appex's renderers map each to a shade; other
/// styles are accepted and drawn as `.primary`.
public protocol ShapeStyle: Sendable {}

/// A style Appex knows how to draw.
protocol PaintStyle: ShapeStyle {
    var paint: Paint { get }
}

func paint(of style: some ShapeStyle) -> Paint {
    (style as? any PaintStyle)?.paint ?? .hierarchical(0)
}

/// `.primary`, `.secondary`, `.tertiary`, `.quaternary`: the levels of emphasis of content.
public struct HierarchicalShapeStyle: ShapeStyle, PaintStyle, Hashable {
    let level: UInt8
    var paint: Paint { .hierarchical(level) }
}

/// The system's fill colours, as `.fill` and `.fill.tertiary`.
public struct FillShapeStyle: ShapeStyle, PaintStyle, Hashable {
    let level: UInt8
    var paint: Paint { .fill(level) }
    /// The fill at the second level.
    public var secondary: FillShapeStyle { FillShapeStyle(level: 1) }
    /// The fill at the third level: the usual widget background.
    public var tertiary: FillShapeStyle { FillShapeStyle(level: 2) }
    /// The fill at the fourth level.
    public var quaternary: FillShapeStyle { FillShapeStyle(level: 3) }
}

/// The widget's own background colour.
public struct BackgroundStyle: ShapeStyle, PaintStyle, Hashable {
    var paint: Paint { .background }
    /// The background style.
    public init() {}
}

extension ShapeStyle where Self == HierarchicalShapeStyle {
    /// The most prominent content.
    public static var primary: HierarchicalShapeStyle { HierarchicalShapeStyle(level: 0) }
    /// Less prominent content.
    public static var secondary: HierarchicalShapeStyle { HierarchicalShapeStyle(level: 1) }
    /// Less again.
    public static var tertiary: HierarchicalShapeStyle { HierarchicalShapeStyle(level: 2) }
    /// The least prominent content.
    public static var quaternary: HierarchicalShapeStyle { HierarchicalShapeStyle(level: 3) }
}

extension ShapeStyle where Self == FillShapeStyle {
    /// The system's fill; `.fill.tertiary` is the usual widget background.
    public static var fill: FillShapeStyle { FillShapeStyle(level: 0) }
}

extension ShapeStyle where Self == BackgroundStyle {
    /// The widget's own background.
    public static var background: BackgroundStyle { BackgroundStyle() }
}

extension ShapeStyle where Self == Color {
    /// Red.
    public static var red: Color { Color(named: "red") }
    /// Orange.
    public static var orange: Color { Color(named: "orange") }
    /// Yellow.
    public static var yellow: Color { Color(named: "yellow") }
    /// Green.
    public static var green: Color { Color(named: "green") }
    /// Mint.
    public static var mint: Color { Color(named: "mint") }
    /// Teal.
    public static var teal: Color { Color(named: "teal") }
    /// Cyan.
    public static var cyan: Color { Color(named: "cyan") }
    /// Blue.
    public static var blue: Color { Color(named: "blue") }
    /// Indigo.
    public static var indigo: Color { Color(named: "indigo") }
    /// Purple.
    public static var purple: Color { Color(named: "purple") }
    /// Pink.
    public static var pink: Color { Color(named: "pink") }
    /// Brown.
    public static var brown: Color { Color(named: "brown") }
    /// Gray.
    public static var gray: Color { Color(named: "gray") }
    /// White.
    public static var white: Color { Color(named: "white") }
    /// Black.
    public static var black: Color { Color(named: "black") }
    /// Clear.
    public static var clear: Color { Color(named: "clear") }
    /// The accent colour.
    public static var accentColor: Color { Color(named: "accentColor") }
}

/// A colour, as in SwiftUI: named system colours or sRGB components. A `Color` is also a view
/// that fills its space.
public struct Color: ShapeStyle, PaintStyle, View, Hashable {
    let paint: Paint

    init(named name: String) { paint = .named(name) }

    /// A colour from sRGB components, 0…1.
    public init(red: Double, green: Double, blue: Double, opacity: Double = 1) {
        paint = .color(red: red, green: green, blue: blue, opacity: opacity)
    }

    /// A colour from an sRGB white level, 0…1.
    public init(white: Double, opacity: Double = 1) {
        paint = .color(red: white, green: white, blue: white, opacity: opacity)
    }

    /// A colour from an asset catalog; on Linux drawn as the accent colour.
    public init(_ name: String) { paint = .named("accentColor") }

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode { .background(paint, .empty) }

    /// This colour at `opacity`; named colours keep their name (renderers pick the shade).
    public func opacity(_ opacity: Double) -> Color {
        if case .color(let red, let green, let blue, let old) = paint {
            return Color(red: red, green: green, blue: blue, opacity: old * opacity)
        }
        return self
    }

    /// Red.
    public static let red = Color(named: "red")
    /// Orange.
    public static let orange = Color(named: "orange")
    /// Yellow.
    public static let yellow = Color(named: "yellow")
    /// Green.
    public static let green = Color(named: "green")
    /// Mint.
    public static let mint = Color(named: "mint")
    /// Teal.
    public static let teal = Color(named: "teal")
    /// Cyan.
    public static let cyan = Color(named: "cyan")
    /// Blue.
    public static let blue = Color(named: "blue")
    /// Indigo.
    public static let indigo = Color(named: "indigo")
    /// Purple.
    public static let purple = Color(named: "purple")
    /// Pink.
    public static let pink = Color(named: "pink")
    /// Brown.
    public static let brown = Color(named: "brown")
    /// Gray.
    public static let gray = Color(named: "gray")
    /// White.
    public static let white = Color(named: "white")
    /// Black.
    public static let black = Color(named: "black")
    /// Clear.
    public static let clear = Color(named: "clear")
    /// The accent colour.
    public static let accentColor = Color(named: "accentColor")
    /// The primary content colour.
    public static let primary = Color(named: "primary")
    /// The secondary content colour.
    public static let secondary = Color(named: "secondary")
}
