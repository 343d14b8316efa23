internal import AppexWidgetKit

/// How the renderers draw images without drawing pictures: an emoji for the common SF Symbols,
/// the name in brackets for the rest and for asset images.
///
/// Every emoji in the table has emoji presentation by default (no variation selector), so
/// terminals agree that it takes two cells.
enum SymbolGlyphs {
    /// The emoji for `name`, or for the name without its last dot-separated parts, one by one
    /// (`star.circle.fill` is drawn as `star`); `nil` when no such symbol is in the table.
    static func emoji(forSymbol name: String) -> String? {
        var candidate = name
        while true {
            if let emoji = table[candidate] { return emoji }
            guard let dot = candidate.lastIndex(of: ".") else { return nil }
            candidate = String(candidate[..<dot])
        }
    }

    /// What `source` is drawn as: an emoji, or `[name]`.
    static func text(for source: ImageSource) -> String {
        switch source {
        case .system(let name): emoji(forSymbol: name) ?? "[\(name)]"
        case .named(let name): "[\(name)]"
        }
    }

    private static let table: [String: String] = [
        "person": "👤", "person.crop.circle": "👤", "person.2": "👥", "star": "⭐", "heart": "💖",
        "clock": "🕒", "alarm": "⏰", "timer": "⏳", "hourglass": "⏳", "calendar": "📅", "envelope": "📧",
        "phone": "📞", "message": "💬", "bubble.left": "💬", "bubble.right": "💬", "cloud": "⛅",
        "cloud.sun": "⛅", "sun.max": "🔆", "cloud.rain": "☔", "umbrella": "☔", "moon": "🌙", "bolt": "⚡",
        "flame": "🔥", "leaf": "🍃", "checkmark": "✅", "checkmark.circle": "✅", "xmark": "❌",
        "xmark.circle": "❌", "plus": "➕", "minus": "➖", "bell": "🔔", "lightbulb": "💡", "house": "🏠", "gear": "🔧",
        "gearshape": "🔧", "wrench": "🔧", "exclamationmark.triangle": "❗", "exclamationmark": "❗",
        "questionmark": "❓", "arrow.clockwise": "🔄", "arrow.triangle.2.circlepath": "🔄", "lock": "🔒",
        "lock.open": "🔓", "key": "🔑", "cart": "🛒", "creditcard": "💳", "newspaper": "📰",
        "doc": "📄", "doc.text": "📄", "folder": "📁", "book": "📖", "bookmark": "🔖", "paperclip": "📎",
        "link": "🔗", "magnifyingglass": "🔍", "mappin": "📍", "location": "📍", "globe": "🌐", "car": "🚗",
        "airplane": "🛫", "tram": "🚋", "bicycle": "🚲", "figure.walk": "🚶", "cup.and.saucer": "☕",
        "camera": "📷", "music.note": "🎵", "headphones": "🎧", "tv": "📺", "desktopcomputer": "💻",
        "laptopcomputer": "💻", "iphone": "📱", "battery.100": "🔋", "chart.bar": "📊", "flag": "🚩",
        "gift": "🎁", "tray": "📥", "square.and.pencil": "📝", "pencil": "📝", "trophy": "🏆",
    ]
}
