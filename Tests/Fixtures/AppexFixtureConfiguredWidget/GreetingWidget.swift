import AppexWidgetKit

// A widget whose intent has a required parameter with no default: its person must set it first.

struct GreetingIntent: WidgetConfigurationIntent {
    static let title: LocalizedStringResource = "Greeting"

    @Parameter(title: "Name")
    var name: String
}

struct GreetingEntry: TimelineEntry {
    let date: Date
    let name: String
}

struct GreetingProvider: AppIntentTimelineProvider {
    func placeholder(in context: Context) -> GreetingEntry { GreetingEntry(date: Date(), name: "…") }

    func snapshot(for configuration: GreetingIntent, in context: Context) async -> GreetingEntry {
        GreetingEntry(date: Date(), name: configuration.name)
    }

    func timeline(for configuration: GreetingIntent, in context: Context) async -> Timeline<GreetingEntry> {
        Timeline(entries: [GreetingEntry(date: Date(), name: configuration.name)], policy: .never)
    }
}

struct GreetingWidget: Widget {
    var body: some WidgetConfiguration {
        AppIntentConfiguration(kind: "Greeting", intent: GreetingIntent.self, provider: GreetingProvider()) { entry in
            Text("Hello \(entry.name)")
        }
        .configurationDisplayName("Greeting")
    }
}
