internal import AppexWidgetKit

/// The numbers and paints the HTML renderer writes into `style` attributes: always formatted
/// here, from numbers, never copied from a widget's strings.
enum CSSValues {
    /// `points` as CSS pixels (`16px`, `12.5px`), between 0 and 10,000 at a tenth of a pixel;
    /// `nil` for a number that is not finite.
    static func pixels(_ points: Double) -> String? {
        guard points.isFinite else { return nil }
        return decimal(min(max(points, 0), 10_000), places: 1) + "px"
    }

    /// `value` with at most `places` (0…3) decimals and no trailing zeros (`0.5`, `12`), clamped
    /// to 0…1,000,000,000.
    static func decimal(_ value: Double, places: Int) -> String {
        let clamped = value.isFinite ? min(max(value, 0), 1e9) : 0
        let scale = [1, 10, 100, 1_000][min(max(places, 0), 3)]
        let scaled = Int((clamped * Double(scale)).rounded())
        var fraction = String(scaled % scale)
        guard scale > 1, scaled % scale != 0 else { return String(scaled / scale) }
        fraction = String(repeating: "0", count: String(scale).count - 1 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(scaled / scale).\(fraction)"
    }

    /// An sRGB colour as `rgba(r, g, b, a)`, components clamped to 0…1 (a number that is not
    /// finite is 0).
    static func rgba(red: Double, green: Double, blue: Double, opacity: Double) -> String {
        let unit = { (value: Double) in value.isFinite ? min(max(value, 0), 1) : 0 }
        let byte = { (value: Double) in String(Int((unit(value) * 255).rounded())) }
        return "rgba(\(byte(red)),\(byte(green)),\(byte(blue)),\(decimal(unit(opacity), places: 2)))"
    }

    /// The system colours a widget may name, with the value the style sheet's `fg-` and `bg-`
    /// classes give each (and a gradient's stops use).
    static let namedColorValues: [(name: String, value: String)] = [
        ("red", "#ff3b30"), ("orange", "#ff9500"), ("yellow", "#ffcc00"), ("green", "#34c759"), ("mint", "#00c7be"),
        ("teal", "#30b0c7"), ("cyan", "#32ade6"), ("blue", "#007aff"), ("indigo", "#5856d6"), ("purple", "#af52de"),
        ("pink", "#ff2d55"), ("brown", "#a2845e"), ("gray", "#8e8e93"), ("white", "#fff"), ("black", "#000"),
        ("clear", "transparent"), ("accentColor", "#007aff"), ("primary", "#000"), ("secondary", "rgba(60,60,67,.6)"),
    ]

    /// The names of ``namedColorValues``.
    static let namedColors: [String: String] = Dictionary(
        namedColorValues.map { ($0.name, $0.value) },
        uniquingKeysWith: { first, _ in first }
    )

    /// The colours of `.primary` … `.quaternary` (as a background, `.primary` is the foreground
    /// colour in force: `currentColor`).
    static let levelValues = ["#000", "rgba(60,60,67,.6)", "rgba(60,60,67,.3)", "rgba(60,60,67,.18)"]

    /// The colours of `.fill` … `.fill.quaternary`, as backgrounds.
    static let fillValues = [
        "rgba(120,120,128,.2)", "rgba(120,120,128,.16)", "rgba(118,118,128,.12)", "rgba(116,116,128,.08)",
    ]

    /// The widget's own background colour (`.background`).
    static let backgroundValue = "#fff"

    /// How `paint` is drawn as a foreground (`prefix` `fg`) or a background (`bg`): a class of
    /// the style sheet, or a declaration for the `style` attribute. A gradient is a background
    /// image; as a foreground it is its first colour.
    static func paint(_ paint: Paint, prefix: String) -> (className: String?, declaration: String?) {
        switch paint {
        case .hierarchical(let level): ("\(prefix)-level\(min(level, 3))", nil)
        case .fill(let level): ("\(prefix)-fill\(min(level, 3))", nil)
        case .background: ("\(prefix)-background", nil)
        case .named(let name): (namedColors[name] != nil ? "\(prefix)-\(name)" : nil, nil)
        case .color(let red, let green, let blue, let opacity):
            (
                nil,
                (prefix == "fg" ? "color:" : "background-color:")
                    + rgba(red: red, green: green, blue: blue, opacity: opacity)
            )
        case .linearGradient(let colors, let startX, let startY, let endX, let endY):
            if prefix == "fg" {
                self.paint(paint.firstColor, prefix: prefix)
            } else {
                (nil, "background:" + linearGradient(colors, from: (startX, startY), to: (endX, endY)))
            }
        }
    }

    /// A CSS `linear-gradient` through `colors`, along the direction from `start` to `end` (unit
    /// points, y down): `linear-gradient(180deg,#007aff,#fff)` from top to bottom.
    static func linearGradient(
        _ colors: [Paint],
        from start: (x: Double, y: Double),
        to end: (x: Double, y: Double)
    )
        -> String
    {
        let (dx, dy) = (end.x - start.x, end.y - start.y)
        var degrees = dx.isFinite && dy.isFinite && (dx != 0 || dy != 0) ? atan2(dx, -dy) * 180 / .pi : 180
        if degrees < 0 { degrees += 360 }
        let stops = colors.prefix(16).map(colorValue)
        let list = stops.count == 1 ? [stops[0], stops[0]] : stops
        return "linear-gradient(\(decimal(degrees, places: 1))deg,\(list.joined(separator: ",")))"
    }

    /// A solid paint's CSS colour (a gradient's first colour's).
    static func colorValue(_ paint: Paint) -> String {
        switch paint.firstColor {
        case .hierarchical(let level): levelValues[Int(min(level, 3))]
        case .fill(let level): fillValues[Int(min(level, 3))]
        case .background: backgroundValue
        case .named(let name): namedColors[name] ?? "#007aff"
        case .color(let red, let green, let blue, let opacity):
            rgba(red: red, green: green, blue: blue, opacity: opacity)
        case .linearGradient: "#000"
        }
    }

    /// A path coordinate in pixels, clamped to ±100,000, at a tenth of a pixel (`-2.5`).
    static func coordinate(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let clamped = min(max(value, -100_000), 100_000)
        return (clamped < 0 ? "-" : "") + decimal(abs(clamped), places: 1)
    }

    /// A path as SVG path data (`M0 0L10 0Z`), its numbers formatted here.
    static func pathData(_ elements: [PathElement]) -> String {
        var data = ""
        for element in elements.prefix(4_096) {
            switch element {
            case .move: data += "M"
            case .line: data += "L"
            case .quadCurve: data += "Q"
            case .curve: data += "C"
            case .close: data += "Z"
            }
            data += element.coordinates.map(coordinate).joined(separator: " ")
        }
        return data
    }
}
