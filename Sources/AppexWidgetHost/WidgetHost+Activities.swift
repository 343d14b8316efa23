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
    /// An activity as last drawn: of which write (revision and time: two processes may write
    /// the same revision), stale or not, its last good tree, and why the last drawing failed.
    struct DrawnActivity: Sendable {
        var revision: Int
        var updatedAt: Double
        var isStale: Bool
        var at: Date
        var tree: [UInt8]?
        var failure: (code: String, reason: String)?

        /// Whether this drawing shows `record` as it is at `now`.
        func shows(_ record: ActivityRecord, at now: Date) -> Bool {
            revision == record.revision && updatedAt == record.updatedAt && isStale == record.isStale(at: now)
        }
    }

    /// A shown activity and the widget that draws it.
    struct RunningActivity {
        var record: ActivityRecord
        var drawer: ActivityDrawer

        /// Its key among the states: the widget's kind and the activity's identifier.
        var key: WidgetKey {
            WidgetKey(
                extensionIdentifier: drawer.identity.bundleIdentifier,
                kind: drawer.descriptor.kind + "#" + record.id,
                family: .systemMedium
            )
        }
    }

    /// An enabled widget with an `ActivityConfiguration`, and the app it is in.
    struct ActivityDrawer {
        var found: DiscoveredExtension
        var identity: AppExtensionIdentity
        var app: String?
        var descriptor: WidgetDescriptor
    }

    var activitiesFolder: String { ActivityRecord.folder(home: configuration.environment.home) }

    /// The activities shown at `now` with the enabled widget that draws each (the first of the
    /// activity's app's widget extensions with an `ActivityConfiguration` for its attributes;
    /// of any app's when the activity was not started inside one), most relevant first. An
    /// activity no widget draws is not shown. `all`: the records, when read already. Reads
    /// only: ``drawActivities(now:)`` removes the dismissed ones' files.
    func runningActivities(
        _ all: [ActivityRecord]? = nil,
        now: Date
    ) throws(AppexError) -> [RunningActivity] {
        let records = (all ?? ActivityRecord.all(home: configuration.environment.home)).filter {
            !$0.isDismissed(at: now)
        }
        guard !records.isEmpty else { return [] }
        var drawers: [ActivityDrawer] = []
        for found in try discovery.snapshot().extensions where found.state == .enabled {
            guard let identity = found.identity,
                let descriptors = try store.descriptors(
                    extension: identity.bundleIdentifier,
                    version: Self.version(of: found)
                )
            else { continue }
            let app = found.origin == .app ? Self.app(containing: found.path) : nil
            for descriptor in descriptors where descriptor.isActivity {
                drawers.append(ActivityDrawer(found: found, identity: identity, app: app, descriptor: descriptor))
            }
        }
        return records.sorted { ($0.relevanceScore, $0.updatedAt) > ($1.relevanceScore, $1.updatedAt) }.compactMap {
            record in
            let kind = WidgetDescriptor.activityPrefix + record.type
            let drawer = drawers.first { $0.descriptor.kind == kind && (record.app == nil || $0.app == record.app) }
            return drawer.map { RunningActivity(record: record, drawer: $0) }
        }
    }

    /// Draws every shown activity whose content changed (a new write, or it went stale) since
    /// it was last drawn, one launch of its widget extension each; forgets the others, and
    /// removes the files of those dismissed. A drawing that fails keeps the last good one,
    /// marked stale with the reason, as a widget keeps its last good timeline.
    func drawActivities(now: Date) async {
        let home = configuration.environment.home
        let records = ActivityRecord.all(home: home)
        for record in records where record.isDismissed(at: now) { record.remove(home: home) }
        let running: [RunningActivity]
        do { running = try runningActivities(records, now: now) } catch {
            configuration.logger.error("cannot read Live Activities", metadata: ["error": "\(error)"])
            return
        }
        let ids = Set(running.map(\.record.id))
        let drawn = drawnActivities.withLock { drawn in
            drawn = drawn.filter { ids.contains($0.key) }
            return drawn
        }
        for activity in running where drawn[activity.record.id]?.shows(activity.record, at: now) != true {
            let record = activity.record
            let stale = record.isStale(at: now)
            var result = DrawnActivity(
                revision: record.revision,
                updatedAt: record.updatedAt,
                isStale: stale,
                at: now,
                tree: drawn[record.id]?.tree
            )
            do throws(AppexError) {
                let key = WidgetKey(
                    extensionIdentifier: activity.drawer.identity.bundleIdentifier,
                    kind: activity.drawer.descriptor.kind,
                    family: .systemMedium
                )
                let request = WidgetRequest.configured(
                    configuration: try payload(of: record, isStale: stale),
                    request: .snapshot(kind: key.kind, family: key.family, isPreview: false)
                )
                result.tree = try await launchedEntry(request, of: key, identity: activity.drawer.identity).tree
            } catch {
                configuration.logger.warning(
                    "cannot draw a Live Activity",
                    metadata: ["activity": "\(record.id)", "error": "\(error)"]
                )
                result.failure = (error.code.name, error.message)
            }
            drawnActivities.withLock { $0[record.id] = result }
        }
    }

    /// What the widget gets: the activity's identifier, attributes, state and staleness, as
    /// JSON (the app's JSON read and written again, so that only JSON reaches the widget).
    func payload(of record: ActivityRecord, isStale: Bool) throws(AppexError) -> [UInt8] {
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
            let path = activitiesFolder + "/" + record.id + ".activity"
            throw AppexError(
                .corruptValue,
                "Live Activity \(record.id) (\(record.type)) in \(path): its attributes or state are not JSON: \(error)",
                context: AppexError.Context(path: path)
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
            var descriptor = activity.drawer.descriptor
            descriptor.description =
                activity.record.activityState == .active ? "Live Activity" : "Live Activity (ended)"
            return WidgetState(
                key: activity.key,
                descriptor: descriptor,
                discovered: activity.drawer.found,
                app: activity.drawer.app,
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
                // When it next changes by itself: its content goes stale, or it is dismissed.
                nextReload: activity.record.nextChange(after: now),
                policy: nil,
                health: health,
                budgetUsed: 0,
                budgetLimit: configuration.dailyReloadBudget,
                placeholder: nil
            )
        }
    }
}
