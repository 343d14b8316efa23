import AppexCoding
import AppexCore
import AppexHost
import AppexSystem
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
        var describe: Bool
        var placeholders: [WidgetKey]
        var timelines: [(key: WidgetKey, why: String)]
    }

    struct Plan {
        var fetches: [Fetch] = []
    }

    /// What must be fetched at `now`, with the budget taken for each timeline.
    func plan(now: Date, families: [String: WidgetFamily]) throws(AppexError) -> Plan {
        var plan = Plan()
        for found in try discovery.snapshot().extensions where found.state == .enabled {
            guard let identity = found.identity else { continue }
            let version = Self.version(of: found)
            guard let descriptors = try store.descriptors(extension: identity.bundleIdentifier, version: version) else {
                // Unknown widgets: ask for them (and then for what they need) in one launch.
                let failed = try store.lastAttempt(Self.describeKey(identity.bundleIdentifier))
                if let failed, failed.failure != nil, now < failed.at + configuration.retryInterval.timeInterval {
                    continue
                }
                plan.fetches.append(
                    Fetch(
                        found: found,
                        identity: identity,
                        version: version,
                        describe: true,
                        placeholders: [],
                        timelines: []
                    )
                )
                continue
            }
            var fetch = Fetch(
                found: found,
                identity: identity,
                version: version,
                describe: false,
                placeholders: [],
                timelines: []
            )
            for descriptor in descriptors {
                let key = Self.key(of: descriptor, in: identity, families: families)
                let app = found.origin == .app ? Self.app(containing: found.path) : nil
                guard let why = try need(key, app: app, now: now) else { continue }
                let day = WidgetClock.day(of: now)
                guard
                    try store.takeReload(
                        extension: key.extensionIdentifier,
                        kind: key.kind,
                        day: day,
                        limit: configuration.dailyReloadBudget
                    )
                else {
                    let reason =
                        "needs a timeline (\(why)) but used its reload budget of \(configuration.dailyReloadBudget) for \(day)"
                    if try store.lastAttempt(key)?.failure?.code != AppexError.Code.reloadBudgetExhausted.name {
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
                if try store.placeholder(key) == nil { fetch.placeholders.append(key) }
                fetch.timelines.append((key, why))
            }
            if !fetch.timelines.isEmpty || !fetch.placeholders.isEmpty { plan.fetches.append(fetch) }
        }
        return plan
    }

    /// Why `key` needs a timeline at `now`, or `nil` when it does not.
    func need(_ key: WidgetKey, app: String?, now: Date) throws(AppexError) -> String? {
        let stored = try store.timeline(key)
        let attempt = try store.lastAttempt(key)
        let lastTry = attempt?.at ?? stored?.fetchedAt ?? .distantPast
        if let requested = try store.latestReload(kind: key.kind, app: app), requested > lastTry {
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
