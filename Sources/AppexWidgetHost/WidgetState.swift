public import AppexHost
public import AppexWidgetKit
import Foundation

/// One widget as the widget host sees it now: what it is, where it comes from, its timeline and
/// whether that timeline is current.
public struct WidgetState: Sendable {
    /// The widget: extension, kind and the family shown.
    public let key: WidgetKey
    /// What the widget says about itself.
    public let descriptor: WidgetDescriptor
    /// The widget extension, as discovery found it.
    public let discovered: DiscoveredExtension
    /// The app the widget ships in, when it was found inside one on the apps path.
    public let app: String?
    /// When the last good timeline was fetched; `nil` when there is none.
    public let fetchedAt: Date?
    /// The last good timeline's entries, by date.
    public let entries: [Entry]
    /// When the host asks for the next timeline: the last entry's date (`.atEnd`), the given
    /// date (`.after`), or `nil` (`.never`, or no timeline). For a Live Activity: when it is
    /// next drawn again by itself (its content goes stale, or it is dismissed).
    public let nextReload: Date?
    /// The last good timeline's policy, in words: `atEnd`, `after <date>`, `never`.
    public let policy: String?
    /// Why the widget shows what it shows, when that is not simply its current timeline.
    public let health: Health
    /// Reloads used today (UTC) and the daily budget.
    public let budgetUsed: Int
    /// The daily reload budget.
    public let budgetLimit: Int
    /// The placeholder's view, shown while no timeline exists.
    public let placeholder: ViewTree?

    /// A timeline entry the host keeps.
    public struct Entry: Sendable {
        /// When it starts to show.
        public let date: Date
        /// How relevant the widget said it is.
        public let relevance: TimelineEntryRelevance?
        /// Its view; `nil` when the stored bytes cannot be read by this build.
        public let tree: ViewTree?
    }

    /// Whether the widget's timeline is current.
    public enum Health: Sendable, Hashable {
        /// The timeline is current.
        case current
        /// No timeline yet and none being fetched (the widget is not enabled).
        case notLoaded
        /// The last fetch failed: the widget keeps its last good timeline (or its placeholder).
        /// `code` is the `AppexError` code's name; `reason` says what happened.
        case stale(code: String, reason: String, since: Date)
        /// The daily reload budget is used up: the widget keeps its last timeline until
        /// `renewsAt` (midnight UTC).
        case budgetExhausted(limit: Int, renewsAt: Date)
    }

    /// The entry to show at `date`: the last whose date has come, else the first.
    public func entry(at date: Date) -> Entry? {
        entries.last(where: { $0.date <= date }) ?? entries.first
    }

    /// The date after `date` at which another entry starts to show, if any.
    public func nextEntryDate(after date: Date) -> Date? {
        entries.first(where: { $0.date > date })?.date
    }

    /// One line about the widget's health, or `nil` when its timeline is current.
    public var statusLine: String? {
        switch health {
        case .current: return nil
        case .notLoaded: return "not loaded (\(discovered.state.rawValue))"
        case .stale(let code, let reason, let since):
            let shown = entries.isEmpty ? "its placeholder" : "its last good timeline"
            return "stale since \(Self.time(since)): \(code): \(reason); showing \(shown)"
        case .budgetExhausted(let limit, let renewsAt):
            return
                "reload budget of \(limit) per day used up; keeps its last timeline until \(Self.time(renewsAt))"
        }
    }

    /// The frame a renderer draws at `date`.
    public func frame(at date: Date = Date()) -> WidgetFrame {
        WidgetFrame(
            kind: key.kind,
            displayName: descriptor.displayName,
            family: key.family,
            tree: entry(at: date)?.tree ?? placeholder,
            status: statusLine,
            now: date
        )
    }

    static func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
