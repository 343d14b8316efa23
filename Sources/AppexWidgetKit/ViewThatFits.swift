/// The first of its views that fits, as SwiftUI's `ViewThatFits`: an inline accessory's long
/// sentence, then a shorter one, then a timer alone.
///
/// The view tree is made in the widget's process, before any renderer lays it out, so "fits" is
/// measured there: a view's natural width, its texts at half an em a character (a whole em for
/// wide characters, the date styles at their usual length), against the family's width. The
/// last view is taken when none fits.
public struct ViewThatFits<Content: View>: View {
    let content: Content

    /// The first view of `content` that fits in the widget's width (`axes` is accepted: the
    /// width is what is measured).
    public init(in axes: Axis.Set = [.horizontal, .vertical], @ViewBuilder content: () -> Content) {
        self.content = content()
    }

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: the first child whose natural width fits the family's.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        let node = ViewResolver.node(of: view.content)
        let children: [ViewNode]
        if case .group(let group) = node { children = group } else { children = [node] }
        let width = resolution.environment.offeredSpace.width
        resolution.node = children.first { NaturalWidth.of($0) <= width } ?? children.last ?? .empty
    }
}

/// Axes, as SwiftUI's `Axis`.
public enum Axis: Sendable, Hashable {
    /// Left to right.
    case horizontal
    /// Top to bottom.
    case vertical

    /// A set of axes.
    public struct Set: OptionSet, Sendable, Hashable {
        /// The bits.
        public let rawValue: Int8
        /// A set of `rawValue`'s bits.
        public init(rawValue: Int8) { self.rawValue = rawValue }
        /// Left to right.
        public static let horizontal = Set(rawValue: 1)
        /// Top to bottom.
        public static let vertical = Set(rawValue: 2)
    }
}

/// A node's natural width in points, estimated from its texts (see ``ViewThatFits``).
enum NaturalWidth {
    static func of(_ node: ViewNode, fontSize: Double = 17) -> Double {
        switch node {
        case .text(let runs):
            return runs.reduce(0) { width, run in
                switch run.content {
                case .verbatim(let string):
                    return width + string.unicodeScalars.reduce(0) { $0 + ($1.value > 0x2E7F ? 1 : 0.5) } * fontSize
                case .date(_, let style):
                    let characters: Double =
                        switch style {
                        case .time: 8
                        case .date: 12
                        case .relative: 12
                        case .offset: 10
                        case .timer: 7
                        }
                    return width + characters * 0.5 * fontSize
                }
            }
        case .label(let title, _):
            return of(.text(title), fontSize: fontSize) + fontSize * 1.5
        case .stack(.horizontal, _, let spacing, let children):
            return children.reduce(0) { $0 + of($1, fontSize: fontSize) }
                + Double(max(0, children.count - 1)) * (spacing ?? 8)
        case .stack(_, _, _, let children), .group(let children):
            return children.map { of($0, fontSize: fontSize) }.max() ?? 0
        case .styled(let style, let child):
            return of(child, fontSize: style.font.map(FontSpec.pointSize(of:)) ?? fontSize)
        case .padding(let insets, let child):
            return of(child, fontSize: fontSize) + insets.leading + insets.trailing
        case .frame(let frame, let child):
            return frame.width ?? of(child, fontSize: fontSize)
        case .link(_, let child), .widgetURL(_, let child), .background(_, let child), .control(_, let child),
            .sceneControl(_, let child):
            return of(child, fontSize: fontSize)
        case .image: return fontSize
        case .empty, .spacer, .divider, .shape: return 0
        }
    }
}

extension FontSpec {
    /// The font's size in points: its own, or its text style's (the sizes the HTML renderer draws).
    static func pointSize(of font: FontSpec) -> Double {
        if let size = font.size { return size }
        switch font.name {
        case .largeTitle: return 34
        case .title: return 28
        case .title2: return 22
        case .title3: return 20
        case .headline, .body, .custom: return 17
        case .callout: return 16
        case .subheadline: return 15
        case .footnote: return 13
        case .caption: return 12
        case .caption2: return 11
        }
    }
}
