internal import AppexWidgetKit
import Foundation

/// Formats the dates in a widget's texts against the moment drawn, for both renderers.
///
/// - `.time`: the locale's short time (`11:06 AM` in `en_US_POSIX`).
/// - `.date`: the locale's long date (`November 18, 2026`).
/// - `.relative`: the distance from now in its two largest units, in English: `2 hr 5 min ago`,
///   `in 5 min`, `1 day 3 hr ago`, `now`.
/// - `.offset`: the signed distance in its largest unit, in English: `+2 hours`, `-1 day`.
/// - `.timer`: a running clock of the distance, `4:59` or `1:02:03`.
///
/// Non-breaking spaces the locale's formats use are drawn as plain spaces, so output is the same
/// whichever ICU the system has. A date that is not finite, or further than a few thousand years
/// from 1970 or from now, is drawn as `—`.
final class DateText {
    private let timeZone: TimeZone
    private let locale: Locale
    private let now: Date
    private lazy var timeFormatter = formatter(dateStyle: .none, timeStyle: .short)
    private lazy var dateFormatter = formatter(dateStyle: .long, timeStyle: .none)

    /// Formats dates in `timeZone` and `locale`, against `now`.
    init(timeZone: TimeZone, locale: Locale, now: Date) {
        self.timeZone = timeZone
        self.locale = locale
        self.now = now
    }

    /// What `content` says when drawn.
    func string(for content: TextContent) -> String {
        switch content {
        case .verbatim(let string): string
        case .date(let seconds, let style): string(forDate: seconds, style: style)
        }
    }

    /// The date `seconds` after 1970, drawn in `style`.
    func string(forDate seconds: Double, style: DateStyleName) -> String {
        let unknown = "—"
        // About 3,000 years either way: beyond that formatters and integer conversions misbehave.
        let limit = 1e11
        guard seconds.isFinite, abs(seconds) < limit else { return unknown }
        let date = Date(timeIntervalSince1970: seconds)
        let delta = date.timeIntervalSince(now)
        guard delta.isFinite, abs(delta) < limit else { return unknown }
        switch style {
        case .time: return Self.plainSpaces(timeFormatter.string(from: date))
        case .date: return Self.plainSpaces(dateFormatter.string(from: date))
        case .relative: return Self.relative(Int(delta.rounded(.towardZero)))
        case .offset: return Self.offset(Int(delta.rounded(.towardZero)))
        case .timer: return Self.timer(abs(Int(delta.rounded(.towardZero))))
        }
    }

    private func formatter(dateStyle: DateFormatter.Style, timeStyle: DateFormatter.Style) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = timeZone
        formatter.dateStyle = dateStyle
        formatter.timeStyle = timeStyle
        return formatter
    }

    private static func plainSpaces(_ string: String) -> String {
        String(string.map { $0 == "\u{202F}" || $0 == "\u{00A0}" ? " " : $0 })
    }

    /// `2 hr 5 min ago`, `in 45 sec`, `now`.
    static func relative(_ delta: Int) -> String {
        let magnitude = abs(delta)
        guard magnitude > 0 else { return "now" }
        let days = magnitude / 86_400
        let units: [(Int, String)] = [
            (days, days == 1 ? "day" : "days"), (magnitude % 86_400 / 3_600, "hr"), (magnitude % 3_600 / 60, "min"),
            (magnitude % 60, "sec"),
        ]
        guard let first = units.firstIndex(where: { $0.0 > 0 }) else { return "now" }
        var words = "\(units[first].0) \(units[first].1)"
        if first + 1 < units.count, units[first + 1].0 > 0 {
            words += " \(units[first + 1].0) \(units[first + 1].1)"
        }
        return delta < 0 ? "\(words) ago" : "in \(words)"
    }

    /// `+2 hours`, `-1 day`, `+30 seconds`, `0 seconds`.
    static func offset(_ delta: Int) -> String {
        let magnitude = abs(delta)
        let (count, unit): (Int, String) =
            switch magnitude {
            case 86_400...: (magnitude / 86_400, "day")
            case 3_600...: (magnitude / 3_600, "hour")
            case 60...: (magnitude / 60, "minute")
            default: (magnitude, "second")
            }
        let sign = delta > 0 ? "+" : delta < 0 ? "-" : ""
        return "\(sign)\(count) \(unit)\(count == 1 ? "" : "s")"
    }

    /// `4:59`, `1:02:03`.
    static func timer(_ seconds: Int) -> String {
        let hours = seconds / 3_600
        let minutes = seconds % 3_600 / 60
        let rest = seconds % 60
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(rest))" : "\(minutes):\(twoDigits(rest))"
    }
}
