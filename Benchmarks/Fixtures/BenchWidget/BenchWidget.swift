// The widget extension the widget figures launch: one widget, a static configuration, and a
// timeline of three entries a minute apart.
import AppexWidgetKit
import BenchWidgetViews
import Foundation

struct BenchListProvider: TimelineProvider {
    func placeholder(in context: Context) -> BenchListEntry { .sample(at: Date()) }

    func getSnapshot(in context: Context, completion: @escaping (BenchListEntry) -> Void) {
        completion(.sample(at: Date()))
    }

    func getTimeline(in context: Context, completion: @escaping (Timeline<BenchListEntry>) -> Void) {
        let now = Date()
        let entries = (0..<3).map { BenchListEntry.sample(at: now.addingTimeInterval(Double($0) * 60)) }
        completion(Timeline(entries: entries, policy: .atEnd))
    }
}

@main
struct BenchWidget: Widget {
    var body: some WidgetConfiguration {
        StaticConfiguration(kind: "BenchList", provider: BenchListProvider()) { entry in
            BenchListView(entry: entry)
        }
        .configurationDisplayName("Recently active")
        .description("Five people and when each was last seen.")
        .supportedFamilies([.systemLarge])
    }
}
