import AppexCore
import AppexHost
import AppexVocabulary
import AppexWidgetKit
import Foundation
import Logging

// What the host has stored for a widget, as the state renderers and tools read.
extension WidgetHost {
    // MARK: - States

    func state(
        _ key: WidgetKey,
        _ descriptor: WidgetDescriptor,
        _ found: DiscoveredExtension,
        now: Date
    ) throws(AppexError)
        -> WidgetState
    {
        let app = found.origin == .app ? Self.app(containing: found.path) : nil
        // A widget not yet described has only its extension's describe attempt.
        let standing =
            key.kind.isEmpty
            ? WidgetStore.Standing(attempt: try store.lastAttempt(Self.describeKey(key.extensionIdentifier)))
            : try store.standing(of: key, app: app, day: WidgetClock.day(of: now))
        let stored = standing.timeline
        let attempt = standing.attempt
        let entries = (stored?.timeline.entries ?? [])
            .sorted { $0.date < $1.date }
            .map { entry in
                WidgetState.Entry(
                    date: Date(timeIntervalSince1970: entry.date),
                    relevance: entry.relevance,
                    tree: try? trees.tree(entry.tree)
                )
            }
        let health: WidgetState.Health
        if found.state != .enabled {
            health = .notLoaded
        } else if let attempt, let failure = attempt.failure, failure.code != WidgetStore.inFlight {
            if failure.code == AppexError.Code.reloadBudgetExhausted.name {
                health = .budgetExhausted(
                    limit: configuration.dailyReloadBudget,
                    renewsAt: WidgetClock.nextDay(after: attempt.at)
                )
            } else {
                health = .stale(code: failure.code, reason: failure.reason, since: attempt.at)
            }
        } else if stored == nil {
            health = .notLoaded
        } else {
            health = .current
        }
        var nextReload: Date?
        var policy: String?
        if let timeline = stored?.timeline {
            switch timeline.policy {
            case .atEnd:
                policy = "atEnd"
                nextReload = timeline.entries.map(\.date).max().map(Date.init(timeIntervalSince1970:))
            case .after(let date):
                nextReload = Date(timeIntervalSince1970: date)
                policy = "after " + WidgetState.time(Date(timeIntervalSince1970: date))
            case .never:
                policy = "never"
            }
        }
        return WidgetState(
            key: key,
            descriptor: descriptor,
            discovered: found,
            app: app,
            fetchedAt: stored?.fetchedAt,
            entries: entries,
            nextReload: nextReload,
            policy: policy,
            health: health,
            budgetUsed: standing.budgetUsed,
            budgetLimit: configuration.dailyReloadBudget,
            placeholder: standing.placeholder.flatMap { try? trees.tree($0.tree) }
        )
    }
}
