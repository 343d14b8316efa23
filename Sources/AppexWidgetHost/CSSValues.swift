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

    /// The system colours a widget may name, each with a class of the style sheet.
    static let namedColors: Set<String> = [
        "red", "orange", "yellow", "green", "mint", "teal", "cyan", "blue", "indigo", "purple", "pink", "brown",
        "gray", "white", "black", "clear", "accentColor", "primary", "secondary",
    ]

    /// How `paint` is drawn as a foreground (`prefix` `fg`) or a background (`bg`): a class of
    /// the style sheet, or a declaration for the `style` attribute.
    static func paint(_ paint: Paint, prefix: String) -> (className: String?, declaration: String?) {
        switch paint {
        case .hierarchical(let level): ("\(prefix)-level\(min(level, 3))", nil)
        case .fill(let level): ("\(prefix)-fill\(min(level, 3))", nil)
        case .background: ("\(prefix)-background", nil)
        case .named(let name): (namedColors.contains(name) ? "\(prefix)-\(name)" : nil, nil)
        case .color(let red, let green, let blue, let opacity):
            (
                nil,
                (prefix == "fg" ? "color:" : "background-color:")
                    + rgba(red: red, green: green, blue: blue, opacity: opacity)
            )
        }
    }
}
