// Values that only modifiers ignored on Linux take (see View+Ignored.swift).

extension Image {
    /// An image's scale relative to text; ignored on Linux.
    public enum Scale: Sendable, Hashable {
        /// Small.
        case small
        /// Medium.
        case medium
        /// Large.
        case large
    }
}

/// How lines of text align; ignored on Linux.
public enum TextAlignment: Sendable, Hashable {
    /// Leading.
    case leading
    /// Centred.
    case center
    /// Trailing.
    case trailing
}

/// Why content is redacted; ignored on Linux.
public struct RedactionReasons: OptionSet, Sendable, Hashable {
    /// The reasons as bits.
    public let rawValue: Int
    /// Makes a set from bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// A placeholder.
    public static let placeholder = RedactionReasons(rawValue: 1)
    /// Private content.
    public static let privacy = RedactionReasons(rawValue: 2)
}

/// How content changes are animated; ignored on Linux.
public struct ContentTransition: Sendable, Hashable {
    let name: String
    /// Numbers roll.
    public static func numericText(countsDown: Bool = false) -> ContentTransition {
        ContentTransition(name: "numericText")
    }
    /// No animation.
    public static let identity = ContentTransition(name: "identity")
    /// Cross-fade.
    public static let opacity = ContentTransition(name: "opacity")
}

extension Text {
    /// A case to draw text in; ignored on Linux.
    public enum Case: Sendable, Hashable {
        /// Upper case.
        case uppercase
        /// Lower case.
        case lowercase
    }

    /// Where text that does not fit is cut; always its end on Linux.
    public enum TruncationMode: Sendable, Hashable {
        /// At the start.
        case head
        /// In the middle.
        case middle
        /// At the end.
        case tail
    }
}

/// How content fills its frame; ignored on Linux.
public enum ContentMode: Sendable, Hashable {
    /// Fits inside.
    case fit
    /// Fills, cut at the edges.
    case fill
}

/// How accessibility elements combine; ignored on Linux.
public enum AccessibilityChildBehavior: Sendable, Hashable {
    /// Ignored.
    case ignore
    /// Combined.
    case combine
    /// Kept.
    case contain
}

/// How a label is drawn; ignored on Linux (a struct where SwiftUI has a protocol).
public struct LabelStyle: Sendable, Hashable {
    let name: String
    /// The platform's choice.
    public static let automatic = LabelStyle(name: "automatic")
    /// Icon and title.
    public static let titleAndIcon = LabelStyle(name: "titleAndIcon")
    /// The title alone.
    public static let titleOnly = LabelStyle(name: "titleOnly")
    /// The icon alone.
    public static let iconOnly = LabelStyle(name: "iconOnly")
}

/// How progress is drawn; ignored on Linux (a struct where SwiftUI has a protocol).
public struct ProgressViewStyle: Sendable, Hashable {
    let name: String
    /// The platform's choice.
    public static let automatic = ProgressViewStyle(name: "automatic")
    /// A bar.
    public static let linear = ProgressViewStyle(name: "linear")
    /// A ring.
    public static let circular = ProgressViewStyle(name: "circular")
}
