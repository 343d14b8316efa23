import AppexWidgetKit

// A Live Activity's views, as a widget extension declares them: the Lock Screen view (the
// desktop's tile) and the Dynamic Island (compiled, not drawn). The attributes are the app's
// (Tests/Fixtures/AppexFixtureWidgetApp compiles the same declaration).

struct DeliveryAttributes: ActivityAttributes {
    struct ContentState: Codable & Hashable {
        var minutesLeft: Int
    }

    let orderNumber: String
}

struct DeliveryActivity: Widget {
    var body: some WidgetConfiguration {
        ActivityConfiguration(for: DeliveryAttributes.self) { context in
            VStack {
                Text("Order \(context.attributes.orderNumber)")
                Text(context.isStale ? "late" : "\(context.state.minutesLeft) min")
            }
            .activityBackgroundTint(Color.blue.opacity(0.25))
            .activitySystemActionForegroundColor(.white)
        } dynamicIsland: { context in
            DynamicIsland {
                expanded(context)
            } compactLeading: {
                Text("🚚")
            } compactTrailing: {
                Text("\(context.state.minutesLeft)")
            } minimal: {
                Text("🚚")
            }
            .keylineTint(.blue)
        }
    }

    @DynamicIslandExpandedContentBuilder
    private func expanded(_ context: ActivityViewContext<DeliveryAttributes>) -> DynamicIslandExpandedContent<some View>
    {
        DynamicIslandExpandedRegion(.leading) { Text("🚚") }
        DynamicIslandExpandedRegion(.trailing) { Text("\(context.state.minutesLeft) min") }
        DynamicIslandExpandedRegion(.bottom) { Text("Order \(context.attributes.orderNumber)") }
    }
}
