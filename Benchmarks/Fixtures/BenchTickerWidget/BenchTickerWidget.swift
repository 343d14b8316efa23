// The widget extension window.widgets.100 launches a hundred copies of: one widget whose
// timeline has an entry every second for two minutes, so it changes every second without a
// launch.
import AppexWidgetKit
import Foundation

struct TickEntry: TimelineEntry {
    let date: Date
    let tick: Int
}

struct TickProvider: TimelineProvider {
    func placeholder(in context: Context) -> TickEntry { TickEntry(date: Date(), tick: 0) }

    func getSnapshot(in context: Context, completion: @escaping (TickEntry) -> Void) {
        completion(TickEntry(date: Date(), tick: 0))
    }

    func getTimeline(in context: Context, completion: @escaping (Timeline<TickEntry>) -> Void) {
        // Whole seconds, so that every copy ticks at the same moments.
        let start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let entries = (0..<120).map { TickEntry(date: start.addingTimeInterval(Double($0)), tick: $0) }
        completion(Timeline(entries: entries, policy: .atEnd))
    }
}

@main
struct BenchTickerWidget: Widget {
    var body: some WidgetConfiguration {
        StaticConfiguration(kind: "Ticker", provider: TickProvider()) { entry in
            VStack {
                Text("Tick \(entry.tick)").font(.headline)
                Text(entry.date, style: .time)
            }
        }
        .configurationDisplayName("Ticker")
        .supportedFamilies([.systemSmall])
    }
}
