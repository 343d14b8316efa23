import AppexCore
import AppexHost
import AppexVocabulary
import AppexWidgetKit
import Foundation
import Logging

// One launch of a widget extension: what it must answer, checked, stored; failures explained.
extension WidgetHost {
    // MARK: - Fetching

    /// One launch of a widget extension: its descriptors if unknown, then each timeline asked
    /// for, and a placeholder for a widget whose first timeline failed. What the launch brought
    /// is stored in one transaction at its end (a commit is a sync to disk); each failure is
    /// recorded for its widget.
    ///
    /// - Returns: the process, still to be ended (``endInBackground(_:)``) once the widgets are
    ///   shown; `nil` when none could be made.
    func perform(_ fetch: Fetch, clock: WidgetClock.Shifted) async -> AppExtensionProcess? {
        let process: AppExtensionProcess
        if let running = warm.take(fetch.identity.bundleIdentifier, version: fetch.version) {
            process = running
        } else {
            var processConfiguration = launchConfiguration(for: fetch.identity)
            if configuration.warmPeriod > .zero {
                // Kept warm after the fetch: its process ends on its own once idle that long, and
                // leaves the pool if it crashes while idle.
                processConfiguration.idleTimeout = configuration.warmPeriod
                let (warm, identifier) = (warm, fetch.identity.bundleIdentifier)
                processConfiguration.onInterruption = { _ in warm.dropIfEnded(identifier) }
            }
            do {
                process = try await AppExtensionProcess(configuration: processConfiguration, discovery: discovery)
            } catch {
                record(error, for: fetch, at: clock.read())
                return nil
            }
        }
        await fetchAll(fetch, from: process, clock: clock)
        return process
    }

    /// After a fetch: keeps `process` warm (``Configuration/warmPeriod``) if it still runs, and
    /// ends what it does not keep, off the caller's path.
    func retire(_ process: AppExtensionProcess, of fetch: Fetch) {
        guard configuration.warmPeriod > .zero else {
            Self.endInBackground([process])
            return
        }
        Self.endInBackground(
            warm.keep(
                process,
                bundleIdentifier: fetch.identity.bundleIdentifier,
                version: fetch.version,
                budget: configuration.warmMemoryBudget
            )
        )
    }

    /// How the host launches the widget extension `identity`, for a timeline, a preview or an
    /// intent alike: its sandbox, the host's deadline and memory limits, the host's logger.
    func launchConfiguration(for identity: AppExtensionIdentity) -> AppExtensionProcess.Configuration {
        var launch = AppExtensionProcess.Configuration(
            identity: identity,
            hostBundlePath: discovery.hostPath,
            environment: configuration.environment,
            logger: configuration.logger
        )
        launch.launchTimeout = configuration.deadline
        launch.limitsMemoryByAddressSpace = configuration.limitsMemoryByAddressSpace
        return launch
    }

    /// Ends launched processes off the caller's path. Tearing a process down wakes its threads,
    /// which would take the processor from the host's own work while it shows the widgets; the
    /// processes die with the host anyway (their parent-death signal).
    static func endInBackground(_ processes: [AppExtensionProcess]) {
        guard !processes.isEmpty else { return }
        Task.detached(priority: .background) {
            for process in processes { process.invalidate() }
        }
    }

    /// What ``perform(_:clock:)`` asks `process` for, stored in one transaction.
    private func fetchAll(_ fetch: Fetch, from process: AppExtensionProcess, clock: WidgetClock.Shifted) async {
        let logger = configuration.logger
        var fetch = fetch
        var batch = WidgetStore.Batch()
        // Timelines asked for before the plan wanted them (a new extension's): when, and what came.
        var asked: [WidgetKey: (sent: Date, answer: Result<EncodedTimeline, AppexError>)] = [:]
        if fetch.describe {
            let describeKey = Self.describeKey(fetch.identity.bundleIdentifier)
            let checked: [WidgetDescriptor]
            do throws(AppexError) {
                guard case .widgets(let widgets) = try await ask(process, .describe, kind: nil) else {
                    throw Self.unexpectedReply("its widgets", bundle: fetch.identity.bundleIdentifier, kind: nil)
                }
                checked = try Self.check(widgets, of: fetch.identity)
            } catch  where error.code == .cancelled || Task.isCancelled {
                // The host is stopping: described at the next start.
                var cancelled = WidgetStore.Batch()
                cancelled.cancelled = [describeKey]
                do { try store.commit(cancelled) } catch {
                    logger.error(
                        "cannot store that a describe was cut short",
                        metadata: ["extension": "\(fetch.identity.bundleIdentifier)", "error": "\(error)"]
                    )
                }
                return
            } catch {
                try? store.recordFailure(
                    for: describeKey,
                    at: clock.read(),
                    code: error.code.name,
                    reason: error.message
                )
                logger.warning(
                    "cannot describe widgets",
                    metadata: ["extension": "\(fetch.identity.bundleIdentifier)", "error": "\(error)"]
                )
                return
            }
            batch.descriptors = (fetch.identity.bundleIdentifier, fetch.version, checked)
            batch.timelines.append((describeKey, EncodedTimeline(entries: [], policy: .never), clock.read()))
            logger.info(
                "widgets described",
                metadata: ["extension": "\(fetch.identity.bundleIdentifier)", "kinds": "\(checked.map(\.kind))"]
            )
            // A new extension's widgets all need their first display, and this refresh alone
            // describes it (the describe is marked in flight): their timelines are asked for at
            // once, while the plan takes the budget beside the requests rather than before them.
            // An answer the plan does not want (no budget left) is dropped, uncounted.
            let described = fetch
            async let planning = Result { () throws(AppexError) in
                try self.plan(
                    described.found,
                    identity: described.identity,
                    version: described.version,
                    family: described.family,
                    now: clock.read(),
                    descriptors: checked
                )
            }
            for descriptor in checked {
                let key = Self.key(of: descriptor, in: fetch.identity, family: fetch.family)
                guard asked[key] == nil else { continue }
                let sent = clock.read()
                do throws(AppexError) {
                    asked[key] = (sent, .success(try await timeline(of: key, from: process)))
                } catch {
                    asked[key] = (sent, .failure(error))
                }
            }
            if case .success(let planned?) = await planning {
                fetch.placeholders = planned.placeholders
                fetch.timelines = planned.timelines
            }
            if fetch.replaced {
                // Another build of the extension: what is stored is the old build's. Its widgets
                // show the new build's timelines now, as a new extension's do (no budget taken),
                // and ask for a new placeholder should one fail.
                for descriptor in checked {
                    let key = Self.key(of: descriptor, in: fetch.identity, family: fetch.family)
                    if !fetch.timelines.contains(where: { $0.key == key }) {
                        fetch.timelines.append((key, "its extension was replaced by another build"))
                    }
                    if !fetch.placeholders.contains(key) { fetch.placeholders.append(key) }
                }
            }
        }
        for (key, why) in fetch.timelines {
            // The attempt counts from when the request was sent: a reload asked for while the
            // widget answers may come too late for this answer, so it is still due after it.
            let sent = asked[key]?.sent ?? clock.read()
            do throws(AppexError) {
                let timeline: EncodedTimeline
                if let answer = asked[key]?.answer {
                    timeline = try answer.get()
                } else {
                    timeline = try await self.timeline(of: key, from: process)
                }
                batch.timelines.append((key, timeline, sent))
                logger.info(
                    "timeline fetched",
                    metadata: ["widget": "\(key)", "why": "\(why)", "entries": "\(timeline.entries.count)"]
                )
            } catch  where error.code == .cancelled || Task.isCancelled {
                // The host is stopping: not the widget's failure. It is due again at the next start.
                batch.cancelled.append(key)
            } catch {
                batch.failures.append((key, sent, error.code.name, error.message))
                logger.warning("timeline failed", metadata: ["widget": "\(key)", "error": "\(error)"])
                // With no timeline to show, the placeholder is what the widget shows: ask for it,
                // unless the widget hangs (asking would wait a deadline more).
                if fetch.placeholders.contains(key), error.code != .deadlineExceeded,
                    let entry = await placeholder(of: key, from: process)
                {
                    batch.placeholders.append((key, entry))
                }
            }
        }
        do { try store.commit(batch) } catch {
            logger.error(
                "cannot store what a widget launch brought",
                metadata: ["extension": "\(fetch.identity.bundleIdentifier)", "error": "\(error)"]
            )
        }
    }

    /// The timeline the widget `key` answers, checked.
    private func timeline(
        of key: WidgetKey,
        from process: AppExtensionProcess
    ) async throws(AppexError)
        -> EncodedTimeline
    {
        let request = try configured(.timeline(kind: key.kind, family: key.family), for: key)
        guard case .timeline(let timeline) = try await ask(process, request, kind: key.kind) else {
            throw Self.unexpectedReply("its timeline", bundle: key.extensionIdentifier, kind: key.kind)
        }
        for entry in timeline.entries { try check(entry, of: key) }
        return timeline
    }

    /// `request` for the placed widget `key`, with its configuration when its person set one.
    func configured(_ request: WidgetRequest, for key: WidgetKey) throws(AppexError) -> WidgetRequest {
        guard let configuration = try store.configuration(of: key) else { return request }
        return .configured(configuration: configuration, request: request)
    }

    /// The placeholder of `key`, or `nil` (logged) when the widget cannot give one. Sent without
    /// the widget's configuration: a provider's `placeholder(in:)` takes none (WidgetKit's too).
    private func placeholder(of key: WidgetKey, from process: AppExtensionProcess) async -> EncodedEntry? {
        do throws(AppexError) {
            return try await entry(.placeholder(kind: key.kind, family: key.family), of: key, from: process)
        } catch {
            configuration.logger.warning("no placeholder", metadata: ["widget": "\(key)", "error": "\(error)"])
            return nil
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

    /// The entry the widget `key` answers `request` (a placeholder or a snapshot) with, checked.
    func entry(
        _ request: WidgetRequest,
        of key: WidgetKey,
        from process: AppExtensionProcess
    ) async throws(AppexError) -> EncodedEntry {
        guard case .entry(let entry) = try await ask(process, request, kind: key.kind) else {
            throw Self.unexpectedReply("an entry", bundle: key.extensionIdentifier, kind: key.kind)
        }
        try check(entry, of: key)
        return entry
    }

    /// A reply of the wrong kind: the extension answered `what` with something else.
    static func unexpectedReply(_ what: String, bundle: String, kind: String?) -> AppexError {
        AppexError(
            .protocolViolation,
            "\(bundle) answered \(kind.map { "widget \($0)'s request for " } ?? "the request for ")\(what) with something else",
            context: AppexError.Context(bundleIdentifier: bundle, widgetKind: kind)
        )
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
        let answer: [UInt8]
        do { answer = try await process.call(request.encoded(), timeout: configuration.deadline) } catch {
            throw Self.explain(error, extension: name, kind: kind, deadline: configuration.deadline)
        }
        do { return try WidgetReply(decoding: answer) } catch {
            throw AppexError(
                .protocolViolation,
                "\(name) answered garbage (\(answer.count) bytes that are no widget reply): \(error)",
                context: AppexError.Context(bundleIdentifier: name, widgetKind: kind)
            )
        }
    }

    /// A call's failure in the words a widget's state shows.
    static func explain(_ error: AppexError, extension name: String, kind: String?, deadline: Duration) -> AppexError {
        let context = AppexError.Context(
            bundleIdentifier: name,
            peer: error.context.peer,
            widgetKind: kind,
            exceededLimit: error.context.exceededLimit
        )
        switch error.code {
        case .interrupted:
            // Past a limit it did not crash: it was ended, and the words say which limit.
            let what = error.context.exceededLimit == nil ? "crashed" : "was ended"
            return AppexError(
                .interrupted,
                "\(name) \(what) while answering: \(error.message)",
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
            // The widget's error arrives as its description, `CODE: message`.
            let code: AppexError.Code =
                error.message.contains(AppexError.Code.viewTreeTooLarge.name + ":") ? .viewTreeTooLarge : .remoteFailure
            return AppexError(code, error.message, context: context, underlyingError: error)
        default:
            return AppexError(error.code, error.message, context: context, underlyingError: error)
        }
    }

    /// The host's own check of an entry, whatever the extension checked: at most
    /// `ViewTree.byteLimit` bytes, and a tree this build reads.
    func check(_ entry: EncodedEntry, of key: WidgetKey) throws(AppexError) {
        let widget = "\(key.extensionIdentifier)'s widget \(key.kind)"
        let context = AppexError.Context(bundleIdentifier: key.extensionIdentifier, widgetKind: key.kind)
        guard entry.tree.count <= ViewTree.byteLimit else {
            throw AppexError(
                .viewTreeTooLarge,
                "\(widget) sent an entry whose view tree is \(entry.tree.count) bytes, over the limit of \(ViewTree.byteLimit)",
                context: context
            )
        }
        guard entry.date.isFinite else {
            throw AppexError(
                .protocolViolation,
                "\(widget) sent an entry with no valid date",
                context: context
            )
        }
        do { _ = try trees.tree(entry.tree) } catch {
            throw AppexError(
                .protocolViolation,
                "\(widget) sent a view tree this host cannot read: \(error.message)",
                context: context,
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
}
