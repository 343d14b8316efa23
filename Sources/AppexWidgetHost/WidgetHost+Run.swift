import AppexCore
import AppexSystem
import Foundation
import Logging

extension WidgetHost {
    /// Keeps every widget current until the task iterating it is cancelled, yielding their
    /// states at once (an empty array when no widget is installed) and then whenever what a
    /// renderer draws changes.
    ///
    /// Between changes it launches nothing and wakes only when something is due: the next
    /// entry's date, a timeline's reload date, a retry, a reload request (watched with
    /// inotify under `$APPEX_HOME/Widgets/Reloads`, so a running host acts on it at once), a
    /// Live Activity's request, update or end (`Widgets/Activities`, watched too), an
    /// enable or disable (the registry is watched too), or a change on the apps path or in a
    /// folder of `APPEX_EXTENSIONS_PATH`; and at
    /// least every `rescan` to notice anything else.
    ///
    /// - Parameters:
    ///   - family: the family to show each widget in when it supports it; default (and for a
    ///     widget that does not): its first supported one.
    ///   - rescan: the longest sleep between two looks. Default 60 s.
    public func updates(
        family: WidgetFamily? = nil,
        rescan: Duration = .seconds(60)
    ) -> AsyncStream<
        [WidgetState]
    > {
        let (stream, continuation) = AsyncStream.makeStream(
            of: [WidgetState].self,
            bufferingPolicy: .bufferingNewest(1)
        )
        let wakeup = Wakeup()
        var tokens: [EventThread.Token] = []
        try? Syscalls.makeDirectories(reloadsFolder, mode: 0o700)
        try? Syscalls.makeDirectories(activitiesFolder, mode: 0o700)
        // The reloads folder, the apps path and each app's Extensions/ (those there now; others
        // are seen at the next rescan), and the search path's folders: a widget bundled again
        // there (`appex widgets serve --watch`) is drawn at once.
        var apps: [String] = configuration.environment.extensionSearchPath
        for entry in configuration.environment.appsPath {
            apps.append(entry)
            let names: [String] = (try? FileManager.default.contentsOfDirectory(atPath: entry)) ?? []
            for name in names where name.hasSuffix(".app") { apps.append(entry + "/" + name + "/Extensions") }
        }
        // The registry: an enable or disable from any process (a shell's `appex widgets enable`,
        // a window's toggle) shows at once.
        let registry = configuration.environment.registryDirectory
        try? Syscalls.makeDirectories(registry, mode: 0o700)
        // Live Activities: a request, update or end shows at once.
        for folder in [reloadsFolder, activitiesFolder, registry] + apps {
            if let token = try? EventThread.shared.whenDirectoryChanges(folder, { wakeup.signal() }) {
                tokens.append(token)
            }
        }
        let logger = configuration.logger
        let task = Task {
            // What was last sent; nil before the first states, which are sent even when there
            // are none (a desktop with no widget shows so at once, not "Loading").
            var last: [String]? = nil
            while !Task.isCancelled {
                let now = configuration.environment.clock.now
                var wait = rescan
                do {
                    // What is stored first: an entry whose date came is drawn now, not after the
                    // launches a refresh may make (a reload due at the same moment, say).
                    if let previous = last, !previous.isEmpty {
                        let stored = try self.states(now: now, family: family)
                        let drawn = stored.map { Self.signature(of: $0, at: now) }
                        if drawn != last {
                            last = drawn
                            continuation.yield(stored)
                        }
                    }
                    let states = try await refresh(now: now, family: family)
                    let drawn = states.map { Self.signature(of: $0, at: now) }
                    if drawn != last {
                        last = drawn
                        continuation.yield(states)
                    }
                    if let due = Self.nextDue(states, after: now, configuration: configuration) {
                        wait = min(wait, .seconds(max(0.05, due.timeIntervalSince(now))))
                    }
                } catch {
                    logger.error("cannot refresh widgets", metadata: ["error": "\(error)"])
                }
                await wakeup.wait(atMost: wait)
            }
            continuation.finish()
        }
        let watches = tokens
        continuation.onTermination = { _ in
            task.cancel()
            for token in watches { EventThread.shared.cancel(token) }
        }
        return stream
    }

    /// What a renderer draws of `state` at `date`, as a comparable string.
    static func signature(of state: WidgetState, at date: Date) -> String {
        let entry = state.entry(at: date)
        return
            "\(state.key)|\(entry?.date.timeIntervalSince1970 ?? -1)|\(state.fetchedAt?.timeIntervalSince1970 ?? -1)|\(state.statusLine ?? "")"
    }

    /// The next moment anything is due for any widget.
    package static func nextDue(_ states: [WidgetState], after now: Date, configuration: Configuration) -> Date? {
        var dates: [Date] = []
        for state in states {
            if let next = state.nextEntryDate(after: now) { dates.append(next) }
            if let reload = state.nextReload, let fetched = state.fetchedAt {
                // A Live Activity's next change (stale, dismissed) is a redraw, not a reload.
                dates.append(
                    state.descriptor.isActivity
                        ? reload : max(reload, fetched + configuration.minimumReloadInterval.timeInterval)
                )
            }
            switch state.health {
            case .stale(_, _, let since): dates.append(since + configuration.retryInterval.timeInterval)
            case .budgetExhausted(_, let renewsAt): dates.append(renewsAt)
            default: break
            }
        }
        return dates.filter { $0 > now }.min()
    }
}
