internal import Foundation

/// The views of a Live Activity, as WidgetKit's `ActivityConfiguration`: its Lock Screen view
/// (the widget desktop shows it as a tile while the activity runs) and its Dynamic Island
/// regions (they compile and are not drawn: Linux has no island).
///
/// ```swift
/// struct DeliveryActivity: Widget {
///     var body: some WidgetConfiguration {
///         ActivityConfiguration(for: DeliveryAttributes.self) { context in
///             Text("Order \(context.attributes.orderNumber): \(context.state.minutesLeft) min")
///         } dynamicIsland: { context in
///             DynamicIsland {
///                 DynamicIslandExpandedRegion(.center) { Text("\(context.state.minutesLeft) min") }
///             } compactLeading: {
///                 Text("🚚")
///             } compactTrailing: {
///                 Text("\(context.state.minutesLeft)")
///             } minimal: {
///                 Text("🚚")
///             }
///         }
///     }
/// }
/// ```
///
/// Its kind is `activity:` and the attributes type's name; the widget host never asks it for a
/// timeline, only for the view of a running activity (request 05 with the activity's JSON).
public struct ActivityConfiguration<Attributes: ActivityAttributes>: WidgetConfiguration {
    let widget: ResolvedWidget
    /// Implementation detail: the one widget this configuration describes.
    public var _widgets: _WidgetList { _WidgetList([widget]) }

    /// The views of activities of `attributes`: `content` on the Lock Screen (the desktop's
    /// tile), `dynamicIsland` in the Dynamic Island (not drawn).
    public init<Content: View & SendableMetatype>(
        for attributes: Attributes.Type = Attributes.self,
        @ViewBuilder content: @escaping @Sendable (ActivityViewContext<Attributes>) -> Content,
        dynamicIsland: @escaping @Sendable (ActivityViewContext<Attributes>) -> DynamicIsland
    ) {
        let kind = Self.kind
        @Sendable func entry(_ context: TimelineProviderContext) throws(AppexError) -> ActivityEntry<Attributes> {
            let payload: ActivityPayload<Attributes>
            do {
                payload = try JSONDecoder().decode(ActivityPayload<Attributes>.self, from: Data(context.configuration))
            } catch {
                throw AppexError(
                    .invalidValue,
                    "widget \(kind) draws a running Live Activity of \(Attributes.self): the host sent no activity it can read (\(error))",
                    context: .init(widgetKind: kind)
                )
            }
            let view = ActivityViewContext(
                attributes: payload.attributes,
                state: payload.state,
                isStale: payload.isStale,
                activityID: payload.id
            )
            return ActivityEntry(date: Date(), context: view)
        }
        var widget = ResolvedWidget(
            kind: kind,
            content: { (entry: ActivityEntry<Attributes>) in content(entry.context) },
            placeholder: { context throws(AppexError) in try entry(context) },
            snapshot: { context throws(AppexError) in try entry(context) },
            timeline: { context throws(AppexError) in Timeline(entries: [try entry(context)], policy: .never) }
        )
        widget.descriptor.displayName = "\(Attributes.self)"
        widget.descriptor.description = "Live Activity"
        widget.descriptor.supportedFamilies = [.systemMedium]
        self.widget = widget
    }

    /// The kind of an activity configuration for `Attributes`.
    static var kind: String { WidgetDescriptor.activityPrefix + "\(Attributes.self)" }
}

/// One drawing of an activity.
struct ActivityEntry<Attributes: ActivityAttributes>: TimelineEntry {
    let date: Date
    let context: ActivityViewContext<Attributes>
}
