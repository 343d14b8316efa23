internal import AppexWidgetKit

/// How text styles look in a terminal with ANSI colours on.
///
/// - Bold: weights from semibold up, and the headline and title fonts unless a lighter weight is
///   set.
/// - Italic: italic text.
/// - Dim: `.secondary`, `.tertiary` and `.quaternary`, the `.fill` styles and `Color.secondary`.
/// - Named colours: the nearest of the eight standard colours (`.orange` and `.brown` as yellow,
///   `.mint` and `.teal` as cyan, `.indigo` as blue, `.pink` as magenta, `.gray` as bright black);
///   sRGB colours by which components are at least half on.
enum TerminalStyles {
    /// The cell style of text in `style`.
    static func cellStyle(for style: TextStyle) -> CellStyle {
        var result = CellStyle()
        if let weight = style.weight ?? style.font?.weight {
            result.bold = weight.isBold
        } else if let name = style.font?.name {
            result.bold = [.largeTitle, .title, .title2, .title3, .headline].contains(name)
        }
        result.italic = style.italic ?? style.font?.italic ?? false
        switch style.foreground?.firstColor {
        case .hierarchical(let level): result.dim = level >= 1
        case .fill: result.dim = true
        case .named(let name):
            if name == "secondary" { result.dim = true } else { result.color = namedColors[name] }
        case .color(let red, let green, let blue, _):
            let bits = (red >= 0.5 ? 1 : 0) + (green >= 0.5 ? 2 : 0) + (blue >= 0.5 ? 4 : 0)
            result.color = 30 + UInt8(bits)
        case .background, .linearGradient, nil: break
        }
        return result
    }

    private static let namedColors: [String: UInt8] = [
        "black": 30, "red": 31, "green": 32, "yellow": 33, "orange": 33, "brown": 33, "blue": 34, "indigo": 34,
        "accentColor": 34, "purple": 35, "pink": 35, "cyan": 36, "mint": 36, "teal": 36, "white": 37, "gray": 90,
    ]
}
