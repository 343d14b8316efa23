// The widget the widget figures draw, shared by the benchmark widget extension (BenchWidget)
// and the rendering benchmarks: a title, five rows (symbol, name, spacer, relative date), a
// divider and a footer, on the widget's container background.
import AppexWidgetKit
import Foundation

/// One entry of the benchmark list widget.
public struct BenchListEntry: TimelineEntry {
    /// One row: a name and the date shown relative to now.
    public struct Row: Sendable, Identifiable {
        public var id: Int
        public var name: String
        public var date: Date

        public init(id: Int, name: String, date: Date) {
            self.id = id
            self.name = name
            self.date = date
        }
    }

    public var date: Date
    public var title: String
    public var rows: [Row]
    public var footer: String

    public init(date: Date, title: String, rows: [Row], footer: String) {
        self.date = date
        self.title = title
        self.rows = rows
        self.footer = footer
    }

    /// A typical entry shown from `date`: five people, each seen some minutes before it.
    public static func sample(at date: Date) -> BenchListEntry {
        let names = ["Ada Lovelace", "Grace Hopper", "Katherine Johnson", "Alan Turing", "Edsger Dijkstra"]
        let rows = names.enumerated().map { index, name in
            Row(id: index, name: name, date: date.addingTimeInterval(-Double(index + 1) * 420))
        }
        return BenchListEntry(date: date, title: "Recently active", rows: rows, footer: "5 of 12 contacts")
    }
}

/// How an entry of the benchmark list widget looks.
public struct BenchListView: View {
    public var entry: BenchListEntry

    public init(entry: BenchListEntry) { self.entry = entry }

    public var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            Text(entry.title).font(.headline)
            ForEach(entry.rows) { row in
                HStack {
                    Image(systemName: "person.crop.circle")
                    Text(row.name)
                    Spacer()
                    Text(row.date, style: .relative).foregroundStyle(.secondary)
                }
            }
            Divider()
            Text(entry.footer).font(.caption).foregroundStyle(.secondary)
        }
        .containerBackground(.fill.tertiary, for: .widget)
    }
}
