import ActivityKit
import AppexCore
import AppexHost
import AppexSystem
import AppexVocabulary
import AppexWidgetKit
import Foundation
import Synchronization

// Live Activities: an app's `Activity.request`, `update` and `end` write a file each under
// `$APPEX_HOME/Widgets/Activities`; the host draws each running one with the app's widget
// extension's `ActivityConfiguration` for its attributes type and shows it as one more widget
// state (a tile on the desktop) until it is dismissed. Drawing an activity takes nothing from
// a widget's reload budget, as on iOS, where activity updates have no widget budget.
extension WidgetHost {
    /// An activity as last drawn: of which revision, stale or not, and its tree or why not.
    struct DrawnActivity: Sendable {
        var revision: Int
        var isStale: Bool
        var at: Date
        var tree: [UInt8]?
        var failure: (code: String, reason: String)?
    }

    /// A shown activity and the widget that draws it.
    struct RunningActivity {
        var record: ActivityRecord
        var found: DiscoveredExtension
        var identity: AppExtensionIdentity
        var descriptor: WidgetDescriptor
        var app: String?

        /// Its key among the states: the widget's kind and the activity's identifier.
        var key: WidgetKey {
            WidgetKey(
                extensionIdentifier: identity.bundleIdentifier,
                kind: descriptor.kind + "#" + record.id,
                family: .systemMedium
            )
        }
    }

    var activitiesFolder: String { ActivityRecord.folder(home: configuration.environment.home) }

    /// The activities shown at `now` with the enabled widget that draws each (the first of the
    /// activity's app's widget extensions with an `ActivityConfiguration` for its attributes;
    /// of any app's when the activity was not started inside one). An activity no widget draws
    /// is not shown; one dismissed is removed.
    func runningActivities(now: Date) throws(AppexError) -> [RunningActivity] {
        let home = configuration.environment.home
        ActivityRecord.removeDismissed(home: home, now: now)
        let records = ActivityRecord.all(home: home).filter { !$0.isDismissed(at: now) }
        guard !records.isEmpty else { return [] }
        var drawers: [(found: DiscoveredExtension, identity: AppExtensionIdentity, app: String?, WidgetDescriptor)] = []
        for found in try discovery.snapshot().extensions where found.state == .enabled {
            guard let identity = found.identity,
                let descriptors = try store.descriptors(
                    extension: identity.bundleIdentifier,
                    version: Self.version(of: found)
                )
            else { continue }
            let app = found.origin == .app ? Self.app(containing: found.path) : nil
            for descriptor in descriptors where descriptor.isActivity {
                drawers.append((found, identity, app, descriptor))
            }
        }
        return records.sorted { ($0.relevanceScore, $0.updatedAt) > ($1.relevanceScore, $1.updatedAt) }.compactMap {
            record in
            let kind = WidgetDescriptor.activityPrefix + record.type
            guard
                let drawer = drawers.first(where: {
                    $0.3.kind == kind && (record.app == nil || $0.app == record.app)
                })
            else { return nil }
            return RunningActivity(
                record: record,
                found: drawer.found,
                identity: drawer.identity,
                descriptor: drawer.3,
                app: drawer.app
            )
        }
    }

    /// Draws every shown activity whose content changed (a new revision, or it went stale)
    /// since it was last drawn, one launch of its widget extension each; forgets the others.
    func drawActivities(now: Date) async {
        let running: [RunningActivity]
        do { running = try runningActivities(now: now) } catch {
            configuration.logger.error("cannot read Live Activities", metadata: ["error": "\(error)"])
            return
        }
        let ids = Set(running.map(\.record.id))
        let drawn = drawnActivities.withLock { drawn in
            drawn = drawn.filter { ids.contains($0.key) }
            return drawn
        }
        for activity in running {
            let stale = activity.record.isStale(at: now)
            if let last = drawn[activity.record.id], last.revision == activity.record.revision, last.isStale == stale {
                continue
            }
            var result = DrawnActivity(revision: activity.record.revision, isStale: stale, at: now)
            do throws(AppexError) {
                result.tree = try await draw(activity, isStale: stale).tree
            } catch {
                configuration.logger.warning(
                    "cannot draw a Live Activity",
                    metadata: ["activity": "\(activity.record.id)", "error": "\(error)"]
                )
                result.failure = (error.code.name, error.message)
            }
            drawnActivities.withLock { $0[activity.record.id] = result }
        }
    }

    /// Launches the activity's widget extension and asks for its Lock Screen view.
    private func draw(_ activity: RunningActivity, isStale: Bool) async throws(AppexError) -> EncodedEntry {
        let key = WidgetKey(
            extensionIdentifier: activity.identity.bundleIdentifier,
            kind: activity.descriptor.kind,
            family: .systemMedium
        )
        let payload = try Self.payload(of: activity.record, isStale: isStale)
        let process: AppExtensionProcess
        do {
            process = try await AppExtensionProcess(
                configuration: launchConfiguration(for: activity.identity),
                discovery: discovery
            )
        } catch {
            throw Self.explain(
                error,
                extension: key.extensionIdentifier,
                kind: key.kind,
                deadline: configuration.deadline
            )
        }
        defer { process.invalidate() }
        return try await entry(
            .configured(
                configuration: payload,
                request: .snapshot(kind: key.kind, family: key.family, isPreview: false)
            ),
            of: key,
            from: process
        )
    }

    /// What the widget gets: the activity's identifier, attributes, state and staleness, as
    /// JSON (the app's JSON read and written again, so that only JSON reaches the widget).
    static func payload(of record: ActivityRecord, isStale: Bool) throws(AppexError) -> [UInt8] {
        struct Payload: Encodable {
            let id: String
            let attributes: JSONValue
            let state: JSONValue
            let isStale: Bool
        }
        do {
            let decoder = JSONDecoder()
            let payload = Payload(
                id: record.id,
                attributes: try decoder.decode(JSONValue.self, from: Data(record.attributes.utf8)),
                state: try decoder.decode(JSONValue.self, from: Data(record.state.utf8)),
                isStale: isStale
            )
            return [UInt8](try JSONEncoder().encode(payload))
        } catch {
            throw AppexError(
                .corruptValue,
                "Live Activity \(record.id) (\(record.type)): its attributes or state are not JSON",
                context: AppexError.Context(path: record.id + ".activity")
            )
        }
    }

    /// A state for each shown activity, as last drawn.
    func activityStates(now: Date) throws(AppexError) -> [WidgetState] {
        let drawn = drawnActivities.withLock { $0 }
        return try runningActivities(now: now).map { activity in
            let last = drawn[activity.record.id]
            let tree = last?.tree.flatMap { try? trees.tree($0) }
            let health: WidgetState.Health
            if let failure = last?.failure, let at = last?.at {
                health = .stale(code: failure.code, reason: failure.reason, since: at)
            } else {
                health = tree == nil ? .notLoaded : .current
            }
            var descriptor = activity.descriptor
            descriptor.description =
                activity.record.activityState == .active ? "Live Activity" : "Live Activity (ended)"
            return WidgetState(
                key: activity.key,
                descriptor: descriptor,
                discovered: activity.found,
                app: activity.app,
                fetchedAt: last?.at,
                entries: tree.map {
                    [
                        WidgetState.Entry(
                            date: Date(timeIntervalSince1970: activity.record.updatedAt),
                            relevance: nil,
                            tree: $0
                        )
                    ]
                } ?? [],
                nextReload: nil,
                policy: nil,
                health: health,
                budgetUsed: 0,
                budgetLimit: configuration.dailyReloadBudget,
                placeholder: nil
            )
        }
    }
}
