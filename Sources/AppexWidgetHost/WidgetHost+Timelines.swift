import AppexCoding
import AppexCore
import AppexHost
import AppexSystem
import AppexWidgetKit
import Foundation
import Logging

// The scheduler: which widgets need a timeline now, the budget, one launch per extension for
// what it must answer, and the states renderers draw.
extension WidgetHost {
    /// Brings every enabled widget up to date at `now` and returns every widget's state.
    ///
    /// Acts on apps' reload requests first; then launches a widget extension only when one of
    /// its widgets needs a timeline: on first display, when its `.atEnd` timeline has ended or
    /// its `.after` date has passed, or when its app asked for a reload. Each fetch takes one
    /// reload from the widget's daily budget. A widget whose extension crashes, hangs past
    /// ``Configuration/deadline`` or answers garbage keeps its last good timeline (or its
    /// placeholder), marked stale with the reason; the others are unaffected.
    ///
    /// - Parameters:
    ///   - now: the moment to schedule for (tests pass a later date instead of waiting).
    ///   - families: the family to show per kind; default: each widget's first supported one.
    /// - Throws: ``AppexError`` `storage` or `registry` when the host's own state cannot be
    ///   read or written. A widget's failure is never thrown: it is in that widget's state.
    public func refresh(
        now: Date = Date(),
        families: [String: WidgetFamily] = [:]
    ) async throws(AppexError)
        -> [WidgetState]
    {
        try ingestReloadRequests()
        let plan = try plan(now: now, families: families)
        let fetches = plan.fetches
        if !fetches.isEmpty {
            let limit = max(1, configuration.concurrentFetches)
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for fetch in fetches {
                    if running == limit {
                        await group.next()
                        running -= 1
                    }
                    group.addTask { await self.perform(fetch, now: now) }
                    running += 1
                }
            }
        }
        return try states(now: now, families: families)
    }

    /// Every widget's state at `now`, from what the host has stored: launches nothing.
    ///
    /// - Throws: ``AppexError`` `storage` or `registry`.
    public func states(now: Date = Date(), families: [String: WidgetFamily] = [:]) throws(AppexError) -> [WidgetState] {
        var states: [WidgetState] = []
        for found in try discovery.snapshot().extensions {
            guard let identity = found.identity else { continue }
            guard
                let descriptors = try store.descriptors(
                    extension: identity.bundleIdentifier,
                    version: Self.version(of: found)
                )
            else {
                let key = WidgetKey(extensionIdentifier: identity.bundleIdentifier, kind: "", family: .systemSmall)
                let descriptor = WidgetDescriptor(
                    kind: "",
                    displayName: identity.localizedName,
                    description: "",
                    supportedFamilies: [.systemSmall]
                )
                states.append(try state(key, descriptor, found, now: now))
                continue
            }
            for descriptor in descriptors {
                let family = families[descriptor.kind] ?? descriptor.supportedFamilies.first ?? .systemSmall
                let key = WidgetKey(
                    extensionIdentifier: identity.bundleIdentifier,
                    kind: descriptor.kind,
                    family: family
                )
                states.append(try state(key, descriptor, found, now: now))
            }
        }
        return states
    }

    // MARK: - Reload requests

    /// Records each request file under `Widgets/Reloads` in the state, then removes the file:
    /// a request is acted on once, even if the host is killed between the two steps.
    func ingestReloadRequests() throws(AppexError) {
        let folder = reloadsFolder
        guard let names = try? Syscalls.directoryEntries(folder) else { return }
        for name in names.sorted() where name.hasSuffix(".request") {
            let path = folder + "/" + name
            guard let bytes = try? Syscalls.readFile(path, limit: 8192) else { continue }
            if let request = WidgetReloadRequest(decoding: bytes) {
                _ = try store.recordReload(name: name, request)
                configuration.logger.info(
                    "reload requested",
                    metadata: ["kind": "\(request.kind ?? "all")", "app": "\(request.app ?? "any")"]
                )
            } else {
                configuration.logger.warning("ignored a reload request that is not one", metadata: ["file": "\(path)"])
            }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

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
                let family = families[descriptor.kind] ?? descriptor.supportedFamilies.first ?? .systemSmall
                let key = WidgetKey(
                    extensionIdentifier: identity.bundleIdentifier,
                    kind: descriptor.kind,
                    family: family
                )
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

    // MARK: - Fetching

    /// One launch of a widget extension: its descriptors if unknown, then each placeholder and
    /// timeline asked for. Each answer is stored as it comes; each failure is recorded for its
    /// widget.
    func perform(_ fetch: Fetch, now: Date) async {
        let logger = configuration.logger
        var processConfiguration = AppExtensionProcess.Configuration(
            identity: fetch.identity,
            hostBundlePath: discovery.hostPath,
            environment: configuration.environment,
            logger: logger
        )
        processConfiguration.launchTimeout = configuration.deadline
        let process: AppExtensionProcess
        do { process = try await AppExtensionProcess(configuration: processConfiguration, discovery: discovery) } catch
        {
            record(error, for: fetch, at: now)
            return
        }
        defer { process.invalidate() }
        var fetch = fetch
        if fetch.describe {
            let describeKey = Self.describeKey(fetch.identity.bundleIdentifier)
            do throws(AppexError) {
                guard case .widgets(let widgets) = try await ask(process, .describe, kind: nil) else {
                    throw AppexError(
                        .protocolViolation,
                        "\(fetch.identity.bundleIdentifier) answered its widgets with something else"
                    )
                }
                let checked = try Self.check(widgets, of: fetch.identity)
                try store.setDescriptors(checked, extension: fetch.identity.bundleIdentifier, version: fetch.version)
                try store.setTimeline(EncodedTimeline(entries: [], policy: .never), for: describeKey, at: now)
                logger.info(
                    "widgets described",
                    metadata: ["extension": "\(fetch.identity.bundleIdentifier)", "kinds": "\(checked.map(\.kind))"]
                )
            } catch {
                try? store.recordFailure(for: describeKey, at: now, code: error.code.name, reason: error.message)
                logger.warning(
                    "cannot describe widgets",
                    metadata: ["extension": "\(fetch.identity.bundleIdentifier)", "error": "\(error)"]
                )
                return
            }
            // Now that the widgets are known, fetch what they need in the same launch.
            if let planned = try? plan(now: now, families: [:]).fetches.first(where: {
                $0.identity.bundleIdentifier == fetch.identity.bundleIdentifier
            }) {
                fetch.placeholders = planned.placeholders
                fetch.timelines = planned.timelines
            }
        }
        for key in fetch.placeholders {
            do throws(AppexError) {
                guard
                    case .entry(let entry) = try await ask(
                        process,
                        .placeholder(kind: key.kind, family: key.family),
                        kind: key.kind
                    )
                else {
                    throw AppexError(
                        .protocolViolation,
                        "widget \(key.kind) answered its placeholder with something else"
                    )
                }
                try Self.check(entry, kind: key.kind)
                try store.setPlaceholder(entry, for: key)
            } catch {
                logger.warning("no placeholder", metadata: ["widget": "\(key)", "error": "\(error)"])
            }
        }
        for (key, why) in fetch.timelines {
            do throws(AppexError) {
                guard
                    case .timeline(let timeline) = try await ask(
                        process,
                        .timeline(kind: key.kind, family: key.family),
                        kind: key.kind
                    )
                else {
                    throw AppexError(.protocolViolation, "widget \(key.kind) answered its timeline with something else")
                }
                for entry in timeline.entries { try Self.check(entry, kind: key.kind) }
                try store.setTimeline(timeline, for: key, at: Date())
                logger.info(
                    "timeline fetched",
                    metadata: ["widget": "\(key)", "why": "\(why)", "entries": "\(timeline.entries.count)"]
                )
            } catch {
                try? store.recordFailure(for: key, at: Date(), code: error.code.name, reason: error.message)
                logger.warning("timeline failed", metadata: ["widget": "\(key)", "error": "\(error)"])
            }
        }
    }

    /// Records a launch failure for everything `fetch` was to bring.
    private func record(_ error: AppexError, for fetch: Fetch, at date: Date) {
        configuration.logger.warning(
            "cannot launch",
            metadata: ["extension": "\(fetch.identity.bundleIdentifier)", "error": "\(error)"]
        )
        if fetch.describe {
            try? store.recordFailure(
                for: Self.describeKey(fetch.identity.bundleIdentifier),
                at: date,
                code: error.code.name,
                reason: error.message
            )
        }
        for (key, _) in fetch.timelines {
            try? store.recordFailure(for: key, at: date, code: error.code.name, reason: error.message)
        }
    }

    /// Sends one request and decodes the answer; every failure as the widget's reason.
    func ask(
        _ process: AppExtensionProcess,
        _ request: WidgetRequest,
        kind: String?
    ) async throws(AppexError)
        -> WidgetReply
    {
        let name = process.configuration.identity.bundleIdentifier
        let bytes: [UInt8]
        do { bytes = try CompactEncoder().encode(request) } catch {
            throw AppexError(.coding, "cannot encode a request for \(name)", underlyingError: error)
        }
        let answer: [UInt8]
        do { answer = try await process.call(bytes, timeout: configuration.deadline) } catch {
            throw Self.explain(error, extension: name, kind: kind, deadline: configuration.deadline)
        }
        do { return try CompactDecoder().decode(WidgetReply.self, from: answer) } catch {
            throw AppexError(
                .protocolViolation,
                "\(name) answered garbage (\(answer.count) bytes that are no widget reply)",
                context: AppexError.Context(bundleIdentifier: name, widgetKind: kind),
                underlyingError: error
            )
        }
    }

    /// A call's failure in the words a widget's state shows.
    static func explain(_ error: AppexError, extension name: String, kind: String?, deadline: Duration) -> AppexError {
        let context = AppexError.Context(bundleIdentifier: name, peer: error.context.peer, widgetKind: kind)
        switch error.code {
        case .interrupted:
            return AppexError(
                .interrupted,
                "\(name) crashed while answering: \(error.message)",
                context: context,
                underlyingError: error
            )
        case .deadlineExceeded:
            return AppexError(
                .deadlineExceeded,
                "\(name) did not answer within \(deadline)",
                context: context,
                underlyingError: error
            )
        case .protocolViolation, .frameTooLarge, .closed:
            return AppexError(
                error.code,
                "\(name) answered garbage: \(error.message)",
                context: context,
                underlyingError: error
            )
        case .remoteFailure:
            // The extension's own error: for a view tree over the limit it names the widget.
            let code: AppexError.Code = error.message.contains("over the limit of") ? .viewTreeTooLarge : .remoteFailure
            return AppexError(code, error.message, context: context, underlyingError: error)
        default:
            return AppexError(error.code, error.message, context: context, underlyingError: error)
        }
    }

    /// The host's own check of an entry, whatever the extension checked: at most
    /// `ViewTree.byteLimit` bytes, and a tree this build reads.
    static func check(_ entry: EncodedEntry, kind: String) throws(AppexError) {
        guard entry.tree.count <= ViewTree.byteLimit else {
            throw AppexError(
                .viewTreeTooLarge,
                "widget \(kind) sent an entry whose view tree is \(entry.tree.count) bytes, over the limit of \(ViewTree.byteLimit)",
                context: AppexError.Context(widgetKind: kind)
            )
        }
        guard entry.date.isFinite else {
            throw AppexError(
                .protocolViolation,
                "widget \(kind) sent an entry with no valid date",
                context: AppexError.Context(widgetKind: kind)
            )
        }
        do { _ = try ViewTree(decoding: entry.tree) } catch {
            throw AppexError(
                .protocolViolation,
                "widget \(kind) sent a view tree this host cannot read: \(error.message)",
                context: AppexError.Context(widgetKind: kind),
                underlyingError: error
            )
        }
    }

    /// The descriptors as the host keeps them: named kinds, unique, with families.
    static func check(
        _ widgets: [WidgetDescriptor],
        of identity: AppExtensionIdentity
    ) throws(AppexError) -> [WidgetDescriptor] {
        var seen: Set<String> = []
        var checked: [WidgetDescriptor] = []
        for var widget in widgets {
            guard !widget.kind.isEmpty, widget.kind.count <= 200, seen.insert(widget.kind).inserted else {
                throw AppexError(
                    .protocolViolation,
                    "\(identity.bundleIdentifier) describes a widget with an empty, overlong or repeated kind \(widget.kind.debugDescription)",
                    context: AppexError.Context(bundleIdentifier: identity.bundleIdentifier, widgetKind: widget.kind)
                )
            }
            if widget.supportedFamilies.isEmpty { widget.supportedFamilies = WidgetFamily.systemFamilies }
            if widget.displayName.isEmpty { widget.displayName = widget.kind }
            checked.append(widget)
        }
        return checked
    }

    // MARK: - States

    func state(
        _ key: WidgetKey,
        _ descriptor: WidgetDescriptor,
        _ found: DiscoveredExtension,
        now: Date
    ) throws(AppexError)
        -> WidgetState
    {
        let stored = key.kind.isEmpty ? nil : try store.timeline(key)
        let attempt = try store.lastAttempt(key.kind.isEmpty ? Self.describeKey(key.extensionIdentifier) : key)
        let entries = (stored?.timeline.entries ?? [])
            .sorted { $0.date < $1.date }
            .map { entry in
                WidgetState.Entry(
                    date: Date(timeIntervalSince1970: entry.date),
                    relevance: entry.relevance,
                    tree: try? ViewTree(decoding: entry.tree)
                )
            }
        let health: WidgetState.Health
        if found.state != .enabled {
            health = .notLoaded
        } else if let attempt, let failure = attempt.failure {
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
            app: found.origin == .app ? Self.app(containing: found.path) : nil,
            fetchedAt: stored?.fetchedAt,
            entries: entries,
            nextReload: nextReload,
            policy: policy,
            health: health,
            budgetUsed: key.kind.isEmpty
                ? 0
                : try store.budgetUsed(
                    extension: key.extensionIdentifier,
                    kind: key.kind,
                    day: WidgetClock.day(of: now)
                ),
            budgetLimit: configuration.dailyReloadBudget,
            placeholder: key.kind.isEmpty
                ? nil : (try store.placeholder(key)).flatMap { try? ViewTree(decoding: $0.tree) }
        )
    }

    // MARK: - Helpers

    /// The key under which an extension's describe attempts are kept.
    static func describeKey(_ bundleIdentifier: String) -> WidgetKey {
        WidgetKey(extensionIdentifier: bundleIdentifier, kind: "", family: .systemSmall)
    }

    /// What identifies a build of a widget extension: the sizes and change times of the files at
    /// its top level (Info.plist, executable, entitlements, seal). Descriptors are asked for again
    /// when it changes. One directory read, no seal check: the launch verifies the seal.
    static func version(of found: DiscoveredExtension) -> String {
        guard let entries = try? Syscalls.directoryEntriesWithStatus(found.path) else { return "" }
        return entries.sorted { $0.printable < $1.printable }.map { entry in
            "\(entry.printable):\(entry.status.size)@\(entry.status.modificationNanoseconds)/\(entry.status.changeNanoseconds)"
        }.joined(separator: ";")
    }

    /// The `.app` whose `Extensions/` holds the extension at `path`.
    static func app(containing path: String) -> String? {
        let extensions = (path as NSString).deletingLastPathComponent
        guard (extensions as NSString).lastPathComponent == AppexBundle.File.extensions else { return nil }
        return (extensions as NSString).deletingLastPathComponent
    }
}

extension Duration {
    /// The duration in seconds, as `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
