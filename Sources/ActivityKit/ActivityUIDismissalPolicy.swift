public import Foundation

/// How long an ended Live Activity stays on the widget desktop, as ActivityKit's
/// `ActivityUIDismissalPolicy`.
public struct ActivityUIDismissalPolicy: Sendable, Hashable {
    let seconds: TimeInterval?
    let date: Date?

    /// Up to four hours after it ended, as on iOS's Lock Screen.
    public static let `default` = ActivityUIDismissalPolicy(seconds: 4 * 3600, date: nil)
    /// Gone at once.
    public static let immediate = ActivityUIDismissalPolicy(seconds: 0, date: nil)
    /// Until `date` (at most four hours after it ended).
    public static func after(_ date: Date) -> ActivityUIDismissalPolicy {
        ActivityUIDismissalPolicy(seconds: nil, date: date)
    }

    /// When an activity that ended at `end` stops being shown.
    func dismissal(endedAt end: Date) -> Date {
        if let date { return min(date, end.addingTimeInterval(4 * 3600)) }
        return end.addingTimeInterval(seconds ?? 0)
    }
}
