/// A font, as in SwiftUI: a text style (`.headline`) or a size, with a weight.
public struct Font: Sendable, Hashable {
    package var spec: FontSpec

    init(_ name: FontSpec.Name, size: Double? = nil) {
        spec = FontSpec(name: name, size: size, weight: nil, italic: false, monospaced: false)
    }

    /// The largest title.
    public static let largeTitle = Font(.largeTitle)
    /// A title.
    public static let title = Font(.title)
    /// A second-level title.
    public static let title2 = Font(.title2)
    /// A third-level title.
    public static let title3 = Font(.title3)
    /// A headline.
    public static let headline = Font(.headline)
    /// A subheadline.
    public static let subheadline = Font(.subheadline)
    /// Body text.
    public static let body = Font(.body)
    /// A callout.
    public static let callout = Font(.callout)
    /// A footnote.
    public static let footnote = Font(.footnote)
    /// A caption.
    public static let caption = Font(.caption)
    /// A smaller caption.
    public static let caption2 = Font(.caption2)

    /// The system font at `size` points.
    public static func system(size: Double, weight: Weight? = nil, design: Design? = nil) -> Font {
        var font = Font(.custom, size: size)
        font.spec.weight = weight?.name
        font.spec.monospaced = design == .monospaced
        return font
    }

    /// The system font in `style`.
    public static func system(_ style: TextStyle, design: Design? = nil, weight: Weight? = nil) -> Font {
        var font = Font(style.name)
        font.spec.weight = weight?.name
        font.spec.monospaced = design == .monospaced
        return font
    }

    /// A font by name; on Linux the system font at `size`.
    public static func custom(_ name: String, size: Double) -> Font { Font(.custom, size: size) }

    /// This font in bold.
    public func bold() -> Font { weight(.bold) }
    /// This font in italics.
    public func italic() -> Font {
        var copy = self
        copy.spec.italic = true
        return copy
    }
    /// This font at `weight`.
    public func weight(_ weight: Weight) -> Font {
        var copy = self
        copy.spec.weight = weight.name
        return copy
    }
    /// This font, monospaced.
    public func monospaced() -> Font {
        var copy = self
        copy.spec.monospaced = true
        return copy
    }
    /// Accepted and ignored on Linux.
    public func monospacedDigit() -> Font { self }

    /// A font's weight.
    public struct Weight: Sendable, Hashable {
        let name: FontWeightName
        /// Ultra light.
        public static let ultraLight = Weight(name: .ultraLight)
        /// Thin.
        public static let thin = Weight(name: .thin)
        /// Light.
        public static let light = Weight(name: .light)
        /// Regular.
        public static let regular = Weight(name: .regular)
        /// Medium.
        public static let medium = Weight(name: .medium)
        /// Semibold.
        public static let semibold = Weight(name: .semibold)
        /// Bold.
        public static let bold = Weight(name: .bold)
        /// Heavy.
        public static let heavy = Weight(name: .heavy)
        /// Black.
        public static let black = Weight(name: .black)
    }

    /// A font's design; on Linux only `.monospaced` changes anything.
    public enum Design: Sendable, Hashable {
        /// The default design.
        case `default`
        /// Serif.
        case serif
        /// Rounded.
        case rounded
        /// Monospaced.
        case monospaced
    }

    /// A text style, for `Font.system(_:)`.
    public enum TextStyle: Sendable, Hashable, CaseIterable {
        /// SwiftUI's text styles, largest first.
        case largeTitle, title, title2, title3, headline, subheadline, body, callout, footnote, caption, caption2
        var name: FontSpec.Name {
            switch self {
            case .largeTitle: .largeTitle
            case .title: .title
            case .title2: .title2
            case .title3: .title3
            case .headline: .headline
            case .subheadline: .subheadline
            case .body: .body
            case .callout: .callout
            case .footnote: .footnote
            case .caption: .caption
            case .caption2: .caption2
            }
        }
    }
}
