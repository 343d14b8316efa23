import AppexCore
import AppexHost
import AppexVocabulary
import AppexWidgetKit
import Foundation
import Logging

// The scheduler's decisions: what each widget needs at a moment, with the budget taken.
extension WidgetHost {
    // MARK: - Planning

    struct Fetch: Sendable {
        var found: DiscoveredExtension
        var identity: AppExtensionIdentity
        var version: String
        var family: WidgetFamily?
        var describe: Bool
        /// Described before at another version: another build replaced the bundle, so every
        /// widget's stored timeline is the old build's and is fetched again.
        var replaced = false
        var placeholders: [WidgetKey] = []
        var timelines: [(key: WidgetKey, why: String)] = []
    }

    /// What must be fetched at `now`: a fetch per extension with anything due, the budget taken
    /// and each widget marked in flight.
    func plan(now: Date, family: WidgetFamily?) throws(AppexError) -> [Fetch] {
        var fetches: [Fetch] = []
        for found in try discovery.snapshot().extensions where found.state == .enabled {
            guard let identity = found.identity else { continue }
            let version = Self.version(of: found)
            guard let descriptors = try store.descriptors(extension: identity.bundleIdentifier, version: version) else {
                // Unknown widgets: ask for them (and then for what they need) in one launch,
                // marked in flight so that another refresh does not describe them too.
                let claimed = try store.claimDescribe(
                    Self.describeKey(identity.bundleIdentifier),
                    at: now,
                    retryAfterFailure: configuration.retryInterval.timeInterval,
                    inFlightLimit: inFlightLimit
                )
                guard claimed else { continue }
                var fetch = Fetch(found: found, identity: identity, version: version, family: family, describe: true)
                fetch.replaced = try store.hasDescriptors(extension: identity.bundleIdentifier)
                fetches.append(fetch)
                continue
            }
            let planned = try plan(
                found,
                identity: identity,
                version: version,
                family: family,
                now: now,
                descriptors: descriptors
            )
            if let fetch = planned {
                fetches.append(fetch)
            }
        }
        return fetches
    }

    /// What one described extension must answer at `now`, or `nil` when nothing is due.
    func plan(
        _ found: DiscoveredExtension,
        identity: AppExtensionIdentity,
        version: String,
        family: WidgetFamily?,
        now: Date,
        descriptors: [WidgetDescriptor]
    ) throws(AppexError) -> Fetch? {
        var fetch = Fetch(found: found, identity: identity, version: version, family: family, describe: false)
        let app = found.origin == .app ? Self.app(containing: found.path) : nil
        let day = WidgetClock.day(of: now)
        // A Live Activity's widget has no timeline: it draws running activities (WidgetHost+Activities).
        for descriptor in descriptors where !descriptor.isActivity {
            let key = Self.key(of: descriptor, in: identity, family: family)
            let standing = try store.standing(of: key, app: app, day: day)
            guard let why = need(key, standing, now: now) else { continue }
            if why == Self.askedByPerson {
                try store.beginFreeFetch(for: key, at: now)
            } else {
                let taken = try store.takeReload(
                    for: key,
                    day: day,
                    limit: configuration.dailyReloadBudget,
                    at: now
                )
                guard let used = taken else {
                    let reason =
                        "needs a timeline (\(why)) but used its reload budget of \(configuration.dailyReloadBudget) for \(day)"
                    if standing.attempt?.failure?.code != AppexError.Code.reloadBudgetExhausted.name {
                        configuration.logger.warning("reload budget used up", metadata: ["widget": "\(key)"])
                    }
                    try store.recordFailure(
                        for: key,
                        at: now,
                        code: AppexError.Code.reloadBudgetExhausted.name,
                        reason: reason
                    )
                    continue
                }
                ExtensionCounters.of(
                    identity.bundleIdentifier,
                    in: configuration.environment,
                    logger: configuration.logger
                )
                .reloaded(budgetUsed: used, of: configuration.dailyReloadBudget)
            }
            if standing.placeholder == nil { fetch.placeholders.append(key) }
            fetch.timelines.append((key, why))
        }
        return fetch.timelines.isEmpty && fetch.placeholders.isEmpty ? nil : fetch
    }

    /// Why a widget is fetched when its person changed its configuration or performed one of
    /// its intents: such a fetch takes nothing from its reload budget, as in WidgetKit.
    static let askedByPerson = "asked by its person"

    /// How long a fetch may be in flight before the host takes it for lost (its host was killed):
    /// every request of a launch has its deadline.
    var inFlightLimit: TimeInterval { configuration.deadline.timeInterval * 10 + 5 }

    /// Why `key`, standing as it does, needs a timeline at `now`, or `nil` when it does not.
    func need(_ key: WidgetKey, _ standing: WidgetStore.Standing, now: Date) -> String? {
        let stored = standing.timeline
        let attempt = standing.attempt
        if let attempt, attempt.failure?.code == WidgetStore.inFlight {
            // Another refresh (this process's or another's) is fetching it; one that never
            // finished is tried again.
            if now < attempt.at + inFlightLimit { return nil }
            return "a fetch that did not finish"
        }
        let lastTry = attempt?.at ?? stored?.fetchedAt ?? .distantPast
        if let asked = standing.personRequested, asked > lastTry {
            return Self.askedByPerson
        }
        if let requested = standing.reloadRequested, requested > lastTry {
            return "reload requested"
        }
        if let failure = attempt?.failure, let attempt {
            if failure.code == AppexError.Code.reloadBudgetExhausted.name {
                if WidgetClock.day(of: attempt.at) == WidgetClock.day(of: now) { return nil }
            } else if now < attempt.at + configuration.retryInterval.timeInterval {
                return nil
            }
        }
        guard let stored else { return "first display" }
        let earliest = stored.fetchedAt + configuration.minimumReloadInterval.timeInterval
        switch stored.timeline.policy {
        case .never:
            return attempt?.failure == nil ? nil : "retry after a failure"
        case .atEnd:
            let end = stored.timeline.entries.map(\.date).max() ?? stored.fetchedAt.timeIntervalSince1970
            if now.timeIntervalSince1970 >= end && now >= earliest { return "its timeline ended" }
        case .after(let date):
            if now.timeIntervalSince1970 >= date && now >= earliest { return "its reload date passed" }
        }
        if attempt?.failure != nil { return "retry after a failure" }
        return nil
    }
}
