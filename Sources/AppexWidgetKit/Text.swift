/// A run of text, as in SwiftUI: a string, a date drawn in a style, or texts joined with `+`.
///
/// ```swift
/// Text("Updated ") + Text(entry.date, style: .relative).italic()
/// ```
///
/// Modifiers on a `Text` return a `Text`, so styled texts still join with `+`.
public struct Text: View, Hashable, Sendable {
    package var runs: [TextRun]

    /// A text showing `content` as written (no localization on Linux).
    public init<S: StringProtocol>(_ content: S) {
        runs = [TextRun(content: .verbatim(String(content)))]
    }

    /// A text showing `content` as written.
    public init(verbatim content: String) {
        runs = [TextRun(content: .verbatim(content))]
    }

    /// A text showing `date` in `style`, formatted when the widget is drawn, so `.relative` and
    /// `.timer` stay current between timeline entries.
    public init(_ date: Date, style: DateStyle) {
        runs = [TextRun(content: .date(date.timeIntervalSince1970, style.name))]
    }

    /// A text showing the interval from `interval`'s start to its end, formatted when drawn.
    public init(timerInterval interval: ClosedRange<Date>, countsDown: Bool = true) {
        runs = [
            TextRun(
                content: .date((countsDown ? interval.upperBound : interval.lowerBound).timeIntervalSince1970, .timer)
            )
        ]
    }

    init(runs: [TextRun]) { self.runs = runs }

    /// Never called.
    public var body: Never { fatalNever() }

    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        resolution.node = view.node(in: resolution.environment)
    }
    package func node(in environment: EnvironmentValues) -> ViewNode { .text(runs) }

    /// The two texts, one after the other.
    public static func + (lhs: Text, rhs: Text) -> Text {
        Text(runs: lhs.runs + rhs.runs)
    }

    /// How a date in a text is drawn.
    public struct DateStyle: Sendable, Hashable {
        let name: DateStyleName
        /// The time of day (`14:05`).
        public static let time = DateStyle(name: .time)
        /// The date (`22 November 2026`).
        public static let date = DateStyle(name: .date)
        /// The distance from now (`2 hours ago`, `in 5 minutes`).
        public static let relative = DateStyle(name: .relative)
        /// The signed offset from now (`+2 hours`).
        public static let offset = DateStyle(name: .offset)
        /// A running clock from or to the date (`4:59`).
        public static let timer = DateStyle(name: .timer)
    }

    private func styling(_ change: (inout TextStyle) -> Void) -> Text {
        var copy = self
        for index in copy.runs.indices { change(&copy.runs[index].style) }
        return copy
    }

    /// The text in `font`.
    public func font(_ font: Font?) -> Text { styling { $0.font = font?.spec } }
    /// The text in `weight`.
    public func fontWeight(_ weight: Font.Weight?) -> Text { styling { $0.weight = weight?.name } }
    /// The text in bold.
    public func bold() -> Text { bold(true) }
    /// The text in bold when `isActive`.
    public func bold(_ isActive: Bool) -> Text { styling { $0.weight = isActive ? .bold : .regular } }
    /// The text in italics.
    public func italic() -> Text { italic(true) }
    /// The text in italics when `isActive`.
    public func italic(_ isActive: Bool) -> Text { styling { $0.italic = isActive } }
    /// The text painted with `style`.
    public func foregroundStyle(_ style: some ShapeStyle) -> Text { styling { $0.foreground = paint(of: style) } }
    /// The text in `color`.
    public func foregroundColor(_ color: Color?) -> Text { styling { $0.foreground = color?.paint } }
    /// Accepted and ignored on Linux: monospaced digits are what a terminal draws anyway.
    public func monospacedDigit() -> Text { self }
    /// Accepted and ignored on Linux.
    public func kerning(_ kerning: Double) -> Text { self }
    /// Accepted and ignored on Linux.
    public func tracking(_ tracking: Double) -> Text { self }
    /// Accepted and ignored on Linux.
    public func baselineOffset(_ offset: Double) -> Text { self }
    /// Draws the text struck through; on Linux drawn as plain text.
    public func strikethrough(_ isActive: Bool = true, color: Color? = nil) -> Text { self }
    /// Draws the text underlined; on Linux drawn as plain text.
    public func underline(_ isActive: Bool = true, color: Color? = nil) -> Text { self }
}
