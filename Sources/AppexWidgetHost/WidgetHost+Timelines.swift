import AppexCore
import AppexHost
import AppexSystem
import AppexVocabulary
import AppexWidgetKit
import Foundation
import Logging

// The scheduler's entry points: refresh (plan, then fetch what is due) and states; reload
// requests read from disk; helpers the other parts share. Planning, fetching and states each
// have a file.
extension WidgetHost {
    /// Brings every enabled widget up to date at `now` and returns every widget's state.
    ///
    /// Acts on apps' reload requests first; then launches a widget extension only when one of
    /// its widgets needs a timeline: on first display, when its `.atEnd` timeline has ended or
    /// its `.after` date has passed, when its app asked for a reload, or when its person
    /// configured it or performed one of its intents. Each fetch but the last kind takes one
    /// reload from the widget's daily budget. A widget whose extension crashes, hangs past
    /// ``Configuration/deadline`` or answers garbage keeps its last good timeline (or its
    /// placeholder), marked stale with the reason; the others are unaffected.
    ///
    /// - Parameters:
    ///   - now: the moment to schedule for; default: the environment's clock (tests move that,
    ///     or pass a later date, instead of waiting).
    ///   - family: the family to show each widget in when it supports it; default (and for a
    ///     widget that does not): its first supported one.
    /// - Throws: ``/AppexVocabulary/AppexError`` `storage` or `registry` when the host's own state cannot be
    ///   read or written. A widget's failure is never thrown: it is in that widget's state.
    public func refresh(
        now: Date? = nil,
        family: WidgetFamily? = nil
    ) async throws(AppexError)
        -> [WidgetState]
    {
        let now = now ?? configuration.environment.clock.now
        try ingestReloadRequests(now: now)
        let fetches = try plan(now: now, family: family)
        var launched: [(AppExtensionProcess, Fetch)] = []
        if !fetches.isEmpty {
            // Times the fetches record run on the caller's clock: `now`, then as much later as
            // has really passed since.
            let clock = WidgetClock.Shifted(to: now)
            let limit = max(1, configuration.concurrentFetches)
            launched = await withTaskGroup(of: (AppExtensionProcess, Fetch)?.self) { group in
                var running = 0
                for fetch in fetches {
                    if running == limit {
                        // A process whose fetch is over while others start: kept warm or ended now.
                        if let finished = await group.next(), let (process, done) = finished {
                            retire(process, of: done)
                        }
                        running -= 1
                    }
                    group.addTask { await self.perform(fetch, clock: clock).map { ($0, fetch) } }
                    running += 1
                }
                return await group.reduce(into: []) { if let finished = $1 { $0.append(finished) } }
            }
        }
        // The last fetches' processes are kept warm or ended once the states are read, off this path.
        defer { for (process, fetch) in launched { retire(process, of: fetch) } }
        await drawActivities(now: now)
        return try states(now: now, family: family)
    }

    /// Every widget's state at `now`, from what the host has stored: launches nothing.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `storage` or `registry`.
    public func states(now: Date? = nil, family: WidgetFamily? = nil) throws(AppexError) -> [WidgetState] {
        let now = now ?? configuration.environment.clock.now
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
            // A Live Activity's widget is shown once per running activity, below.
            for descriptor in descriptors where !descriptor.isActivity {
                let key = Self.key(of: descriptor, in: identity, family: family)
                states.append(try state(key, descriptor, found, now: now))
            }
        }
        return states + (try activityStates(now: now))
    }

    // MARK: - Reload requests

    /// Records each request file under `Widgets/Reloads` in the state, then removes the file:
    /// a request is acted on once, even if the host is killed between the two steps.
    func ingestReloadRequests(now: Date) throws(AppexError) {
        let folder = reloadsFolder
        guard let names = try? Syscalls.directoryEntries(folder) else { return }
        for name in names.sorted() where name.hasSuffix(".request") {
            let path = folder + "/" + name
            guard let bytes = try? Syscalls.readFile(path, limit: 8192) else { continue }
            if let request = WidgetReloadRequest(decoding: bytes) {
                _ = try store.recordReload(name: name, request, now: now)
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

    /// The widget `descriptor` of the extension `identity`, in `family` when it supports it, else
    /// in its first supported one.
    static func key(
        of descriptor: WidgetDescriptor,
        in identity: AppExtensionIdentity,
        family: WidgetFamily?
    ) -> WidgetKey {
        WidgetKey(
            extensionIdentifier: identity.bundleIdentifier,
            kind: descriptor.kind,
            family: family.flatMap { descriptor.supportedFamilies.contains($0) ? $0 : nil }
                ?? descriptor.supportedFamilies.first ?? .systemSmall
        )
    }

    /// The `.app` whose `Extensions/` holds the extension at `path`.
    static func app(containing path: String) -> String? {
        let extensions = (path as NSString).deletingLastPathComponent
        guard (extensions as NSString).lastPathComponent == AppexBundle.File.extensions else { return nil }
        // With links resolved, as `WidgetCenter` names the app of the process that asks.
        return URL(fileURLWithPath: (extensions as NSString).deletingLastPathComponent).resolvingSymlinksInPath().path
    }
}

extension Duration {
    /// The duration in seconds, as `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
