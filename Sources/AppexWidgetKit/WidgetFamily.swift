/// The sizes a widget comes in, as in WidgetKit.
public enum WidgetFamily: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// A small square.
    case systemSmall
    /// A wide rectangle, as tall as a small one.
    case systemMedium
    /// A large square.
    case systemLarge
    /// Twice as wide as a large one.
    case systemExtraLarge
    /// A small circle (lock screen, watch).
    case accessoryCircular
    /// A few lines (lock screen, watch).
    case accessoryRectangular
    /// One line of text (lock screen).
    case accessoryInline

    /// The family's name, as in WidgetKit (`systemSmall`).
    public var description: String { rawValue }

    /// The size the family is drawn at, in points (an iPhone's, as the HTML renderer uses them).
    public var displaySize: CGSize { CGSize(width: points.width, height: points.height) }

    /// The size the family is drawn at, in points, without Foundation's `CGSize` (which a view
    /// resolver using it would link into every widget executable).
    var points: (width: Double, height: Double) {
        switch self {
        case .systemSmall: (170, 170)
        case .systemMedium: (364, 170)
        case .systemLarge: (364, 382)
        case .systemExtraLarge: (796, 382)
        case .accessoryCircular: (76, 76)
        case .accessoryRectangular: (172, 76)
        case .accessoryInline: (257, 26)
        }
    }

    /// The families a widget supports unless it says otherwise: the home screen's.
    public static let systemFamilies: [WidgetFamily] = [.systemSmall, .systemMedium, .systemLarge, .systemExtraLarge]
}
