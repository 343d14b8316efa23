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
    public var displaySize: CGSize {
        switch self {
        case .systemSmall: CGSize(width: 170, height: 170)
        case .systemMedium: CGSize(width: 364, height: 170)
        case .systemLarge: CGSize(width: 364, height: 382)
        case .systemExtraLarge: CGSize(width: 796, height: 382)
        case .accessoryCircular: CGSize(width: 76, height: 76)
        case .accessoryRectangular: CGSize(width: 172, height: 76)
        case .accessoryInline: CGSize(width: 257, height: 26)
        }
    }

    /// The families a widget supports unless it says otherwise: the home screen's.
    public static let systemFamilies: [WidgetFamily] = [.systemSmall, .systemMedium, .systemLarge, .systemExtraLarge]
}
