internal import AppexSystem
public import AppexVocabulary
public import Foundation
internal import Synchronization

/// A Live Activity an app runs, as ActivityKit's `Activity`: the app requests it, updates its
/// content while it runs and ends it; the widget desktop shows it as a tile meanwhile, drawn by
/// the app's widget extension's `ActivityConfiguration` for `Attributes` (matched by the type's
/// name, as the app and its widget extension each compile the attributes' file).
///
/// ```swift
/// let activity = try Activity.request(
///     attributes: DeliveryAttributes(orderNumber: "42"),
///     content: ActivityContent(state: .init(minutesLeft: 20), staleDate: nil)
/// )
/// await activity.update(ActivityContent(state: .init(minutesLeft: 5), staleDate: nil))
/// await activity.end(nil, dismissalPolicy: .immediate)
/// ```
///
/// Each request, update and end rewrites the activity's file under
/// `$APPEX_HOME/Widgets/Activities` whole; a running widget host sees it at once.
public final class Activity<Attributes: ActivityAttributes>: Identifiable, Sendable {
    /// The activity's identifier.
    public let id: String
    /// What does not change.
    public let attributes: Attributes
    private let home: String
    /// Its file's record and the state that record holds, changed together.
    private let current: Mutex<(record: ActivityRecord, state: Attributes.ContentState)>

    private init(attributes: Attributes, state: Attributes.ContentState, record: ActivityRecord, home: String) {
        self.id = record.id
        self.attributes = attributes
        self.home = home
        self.current = Mutex((record, state))
    }

    /// The content shown now.
    public var content: ActivityContent<Attributes.ContentState> {
        let (record, state) = current.withLock { $0 }
        return ActivityContent(
            state: state,
            staleDate: record.staleDate.map(Date.init(timeIntervalSince1970:)),
            relevanceScore: record.relevanceScore
        )
    }

    /// The content state shown now (iOS 16.1's name).
    @available(*, deprecated, renamed: "content.state")
    public var contentState: Attributes.ContentState { content.state }

    /// Where the activity is in its life: `stale` once its content's stale date passed.
    public var activityState: ActivityState {
        let record = current.withLock { $0.record }
        return record.activityState == .active && record.isStale(at: Date()) ? .stale : record.activityState
    }

    /// Always `nil`: Linux has no push service.
    public var pushToken: Data? { nil }

    /// Starts an activity showing `content`.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalidValue` when `pushType` is `.token` (no push
    ///   service here) or the attributes or state do not encode; `fileSystem` when its file
    ///   cannot be written (the message names it).
    public static func request(
        attributes: Attributes,
        content: ActivityContent<Attributes.ContentState>,
        pushType: PushType? = nil
    ) throws(AppexError) -> Activity<Attributes> {
        guard pushType == nil else {
            throw AppexError(
                .invalidValue,
                "Live Activity \(typeName): push updates (pushType .token) need Apple's push service; update it from the app with update(_:)"
            )
        }
        let now = Date()
        let record = ActivityRecord(
            id: UUID().uuidString,
            app: ProcessControl.containingApp(),
            type: typeName,
            attributes: try json(attributes, "attributes"),
            state: try json(content.state, "content state"),
            staleDate: content.staleDate?.timeIntervalSince1970,
            relevanceScore: content.relevanceScore,
            activityState: .active,
            dismissAt: nil,
            updatedAt: now.timeIntervalSince1970,
            revision: 1
        )
        let home = ActivityRecord.home
        try record.write(home: home)
        return Activity(attributes: attributes, state: content.state, record: record, home: home)
    }

    /// Starts an activity showing `contentState` (iOS 16.1's form).
    @available(*, deprecated, renamed: "request(attributes:content:pushType:)")
    public static func request(
        attributes: Attributes,
        contentState: Attributes.ContentState,
        pushType: PushType? = nil
    ) throws(AppexError) -> Activity<Attributes> {
        try request(
            attributes: attributes,
            content: ActivityContent(state: contentState, staleDate: nil),
            pushType: pushType
        )
    }

    /// Shows `content` from now on. An activity that ended is not changed. As in ActivityKit it
    /// does not throw: a file that cannot be written is reported on standard error.
    public func update(_ content: ActivityContent<Attributes.ContentState>) async {
        write(content, ending: nil)
    }

    /// Shows `content`; the alert is not shown (the widget desktop has no alerts).
    public func update(
        _ content: ActivityContent<Attributes.ContentState>,
        alertConfiguration: AlertConfiguration?
    )
        async
    {
        write(content, ending: nil)
    }

    /// Shows `contentState` (iOS 16.1's form).
    @available(*, deprecated, renamed: "update(_:)")
    public func update(using contentState: Attributes.ContentState) async {
        write(ActivityContent(state: contentState, staleDate: nil), ending: nil)
    }

    /// Ends the activity with `content` (or its content now) shown until `dismissalPolicy`'s date.
    public func end(
        _ content: ActivityContent<Attributes.ContentState>?,
        dismissalPolicy: ActivityUIDismissalPolicy = .default
    ) async {
        write(content, ending: dismissalPolicy)
    }

    /// Ends the activity (iOS 16.1's form).
    @available(*, deprecated, renamed: "end(_:dismissalPolicy:)")
    public func end(
        using contentState: Attributes.ContentState? = nil,
        dismissalPolicy: ActivityUIDismissalPolicy = .default
    )
        async
    {
        write(contentState.map { ActivityContent(state: $0, staleDate: nil) }, ending: dismissalPolicy)
    }

    /// This app's activities of `Attributes` that are running or ended but still shown.
    public static var activities: [Activity<Attributes>] {
        let home = ActivityRecord.home
        let app = ProcessControl.containingApp()
        let now = Date()
        return ActivityRecord.all(home: home).filter {
            $0.type == typeName && $0.app == app && !$0.isDismissed(at: now)
        }
        .compactMap { record in
            guard
                let attributes = try? JSONDecoder().decode(Attributes.self, from: Data(record.attributes.utf8)),
                let state = try? JSONDecoder().decode(Attributes.ContentState.self, from: Data(record.state.utf8))
            else { return nil }
            return Activity(attributes: attributes, state: state, record: record, home: home)
        }
    }

    private func write(_ content: ActivityContent<Attributes.ContentState>?, ending policy: ActivityUIDismissalPolicy?)
    {
        do {
            let encoded = try content.map { content throws(AppexError) in
                (content, try Self.json(content.state, "content state"))
            }
            try current.withLock { current throws(AppexError) in
                guard current.record.activityState == .active else { return }
                var record = current.record
                let now = Date()
                if let (content, state) = encoded {
                    record.state = state
                    record.staleDate = content.staleDate?.timeIntervalSince1970
                    record.relevanceScore = content.relevanceScore
                }
                if let policy {
                    record.activityState = .ended
                    record.dismissAt = policy.dismissal(endedAt: now).timeIntervalSince1970
                }
                record.updatedAt = now.timeIntervalSince1970
                record.revision += 1
                // Kept only once written: a write that failed leaves the activity as it was.
                try record.write(home: home)
                current.record = record
                if let (content, _) = encoded { current.state = content.state }
            }
        } catch {
            Terminal.writeStandardError("Activity \(id): \(error)\n")
        }
    }

    /// The attributes type's name, as `ActivityConfiguration` names it.
    static var typeName: String { String(describing: Attributes.self) }

    static func json<Value: Encodable>(_ value: Value, _ what: String) throws(AppexError) -> String {
        do { return String(decoding: try JSONEncoder().encode(value), as: UTF8.self) } catch {
            throw AppexError(.invalidValue, "Live Activity \(typeName): its \(what) do not encode as JSON: \(error)")
        }
    }
}
