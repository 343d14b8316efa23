import Foundation

/// The widget host's notion of days: budgets renew at midnight UTC.
enum WidgetClock {
    static let dayFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter
    }()

    /// `yyyy-MM-dd` of `date`, in UTC.
    static func day(of date: Date) -> String { dayFormatter.string(from: date) }

    /// The next midnight UTC after `date`: when the budget renews.
    static func nextDay(after date: Date) -> Date {
        let seconds = date.timeIntervalSince1970
        return Date(timeIntervalSince1970: (seconds / 86_400).rounded(.down) * 86_400 + 86_400)
    }

    /// A clock that reads `now` at its start and runs at the real clock's pace from there.
    struct Shifted: Sendable {
        let offset: TimeInterval
        /// A clock that reads `now` at once.
        init(to now: Date) { offset = now.timeIntervalSince(Date()) }
        /// The time on this clock.
        func read() -> Date { Date().addingTimeInterval(offset) }
    }
}
