/// What a view tree is made of once resolved: the compact, versioned wire form a widget extension
/// sends its host, and what the host's renderers draw. Layout-free: sizes are the renderer's.
package indirect enum ViewNode: Codable, Hashable, Sendable {
    /// Nothing (an `EmptyView`, a false `if` without `else`).
    case empty
    /// Siblings without a layout of their own (a builder's several views, a `ForEach`): the
    /// enclosing stack lays them out; alone, they stack vertically.
    case group([ViewNode])
    /// Runs of text, each with its own style (a `Text`, or `Text`s joined with `+`).
    case text([TextRun])
    /// An SF Symbol by name (`Image(systemName:)`), or an asset image by name.
    case image(ImageSource)
    /// Children laid out along an axis, or on top of each other.
    case stack(StackAxis, alignment: NodeAlignment, spacing: Double?, children: [ViewNode])
    /// Flexible space along the enclosing stack's axis.
    case spacer(minLength: Double?)
    /// A thin line across the enclosing stack.
    case divider
    /// A title with an icon.
    case label(title: [TextRun], icon: ImageSource?)
    /// Content that opens `destination` when tapped.
    case link(destination: String, content: ViewNode)
    /// Text style that `content` and everything in it inherits.
    case styled(TextStyle, ViewNode)
    /// Padding around content, in points per edge (top, leading, bottom, trailing).
    case padding(NodeInsets, ViewNode)
    /// A frame: fixed or flexible size and the content's alignment inside it.
    case frame(FrameSpec, ViewNode)
    /// The URL the whole widget opens when tapped (`.widgetURL(_:)`).
    case widgetURL(String, ViewNode)
    /// A background behind content (`.containerBackground(_:for:)`, `.background(_:)`).
    case background(Paint, ViewNode)
    /// A control that performs an intent when tapped (`Button(intent:)`, `Toggle(isOn:intent:)`),
    /// drawn as its label.
    case control(IntentControl, label: ViewNode)
    /// A scene's control (`Button(action:)`, `Toggle(isOn: $flag)`, `TextField`, `Picker`),
    /// drawn with its label; the host sends its events back to the scene.
    case sceneControl(SceneControl, label: ViewNode)
    /// A shape (`Rectangle`, `Circle`, a `Path`, a custom `Shape`), filled or stroked.
    case shape(ShapeNode)
}

/// Which way a stack lays out.
package enum StackAxis: UInt8, Codable, Hashable, Sendable {
    case vertical, horizontal, depth
}

/// A stack's or frame's alignment, on both axes.
package struct NodeAlignment: Codable, Hashable, Sendable {
    package enum Horizontal: UInt8, Codable, Hashable, Sendable { case leading, center, trailing }
    package enum Vertical: UInt8, Codable, Hashable, Sendable { case top, center, bottom }
    package var horizontal: Horizontal
    package var vertical: Vertical
    package static let center = NodeAlignment(horizontal: .center, vertical: .center)
    package init(horizontal: Horizontal, vertical: Vertical) {
        self.horizontal = horizontal
        self.vertical = vertical
    }
}

/// Where an image comes from.
package enum ImageSource: Codable, Hashable, Sendable {
    case system(String)
    case named(String)
}

/// One run of text: what it says and how it looks.
package struct TextRun: Codable, Hashable, Sendable {
    package var content: TextContent
    package var style: TextStyle
    package init(content: TextContent, style: TextStyle = TextStyle()) {
        self.content = content
        self.style = style
    }
}

/// What a run says: fixed characters, or a date the renderer formats when it draws (so
/// `.relative` and `.timer` stay current without a new timeline).
package enum TextContent: Codable, Hashable, Sendable {
    case verbatim(String)
    /// Seconds since 1970 and the style.
    case date(Double, DateStyleName)
}

/// `Text.DateStyle`, by name.
package enum DateStyleName: UInt8, Codable, Hashable, Sendable {
    case time, date, relative, offset, timer
}

/// The inheritable text attributes; `nil` means "as the enclosing view says".
package struct TextStyle: Codable, Hashable, Sendable {
    package var font: FontSpec?
    package var weight: FontWeightName?
    package var italic: Bool?
    package var foreground: Paint?
    package var lineLimit: Int?
    package var isEmpty: Bool { self == TextStyle() }
    package init(
        font: FontSpec? = nil,
        weight: FontWeightName? = nil,
        italic: Bool? = nil,
        foreground: Paint? = nil,
        lineLimit: Int? = nil
    ) {
        self.font = font
        self.weight = weight
        self.italic = italic
        self.foreground = foreground
        self.lineLimit = lineLimit
    }

    /// `self` where set, else `outer`: what a child inherits from its parent.
    package func inheriting(from outer: TextStyle) -> TextStyle {
        TextStyle(
            font: font ?? outer.font,
            weight: weight ?? outer.weight,
            italic: italic ?? outer.italic,
            foreground: foreground ?? outer.foreground,
            lineLimit: lineLimit ?? outer.lineLimit
        )
    }
}

/// A font: a text style (`.title`) or a point size.
package struct FontSpec: Codable, Hashable, Sendable {
    package enum Name: UInt8, Codable, Hashable, Sendable {
        case largeTitle, title, title2, title3, headline, subheadline, body, callout, footnote, caption, caption2
        case custom
    }
    package var name: Name
    package var size: Double?
    package var weight: FontWeightName?
    package var italic: Bool
    package var monospaced: Bool

    package init(name: Name, size: Double?, weight: FontWeightName?, italic: Bool, monospaced: Bool) {
        self.name = name
        self.size = size
        self.weight = weight
        self.italic = italic
        self.monospaced = monospaced
    }
}

/// `Font.Weight`, by name.
package enum FontWeightName: UInt8, Codable, Hashable, Sendable {
    case ultraLight, thin, light, regular, medium, semibold, bold, heavy, black
    /// Whether a renderer without weights should draw it bold.
    package var isBold: Bool { rawValue >= FontWeightName.semibold.rawValue }
}

/// How something is painted: a hierarchical level, a fixed colour, or the system's fill.
package enum Paint: Codable, Hashable, Sendable {
    /// `.primary` (0) … `.quaternary` (3).
    case hierarchical(UInt8)
    /// sRGB components and opacity, 0…1.
    case color(red: Double, green: Double, blue: Double, opacity: Double)
    /// A named system colour (`.red`, `.accentColor`), kept by name so renderers pick their shade.
    case named(String)
    /// `.fill` at a hierarchical level (`.fill.tertiary` is 2).
    case fill(UInt8)
    /// The widget's own background (`.background`).
    case background
    /// A linear gradient through colours (paints of the other kinds), from a start to an end
    /// point of the area, each in the area's unit square.
    case linearGradient(colors: [Paint], startX: Double, startY: Double, endX: Double, endY: Double)

    /// The paint's first colour: itself, or a gradient's first.
    package var firstColor: Paint {
        if case .linearGradient(let colors, _, _, _, _) = self { return colors.first ?? .hierarchical(0) }
        return self
    }
}

/// Padding per edge, in points.
package struct NodeInsets: Codable, Hashable, Sendable {
    package var top: Double
    package var leading: Double
    package var bottom: Double
    package var trailing: Double

    package init(top: Double, leading: Double, bottom: Double, trailing: Double) {
        self.top = top
        self.leading = leading
        self.bottom = bottom
        self.trailing = trailing
    }
}

/// A frame's sizes (points; `.infinity` for "as wide as allowed") and alignment.
package struct FrameSpec: Codable, Hashable, Sendable {
    package var width: Double?
    package var height: Double?
    package var maxWidth: Double?
    package var maxHeight: Double?
    package var alignment: NodeAlignment

    package init(width: Double?, height: Double?, maxWidth: Double?, maxHeight: Double?, alignment: NodeAlignment) {
        self.width = width
        self.height = height
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.alignment = alignment
    }
}
