import AppexWidgetKit

// A widget extension written the way WidgetKit sample code is: a bundle with an `if #available`
// widget, an entry view that switches on `@Environment(\.widgetFamily)`, text with interpolated
// dates and formatted numbers, shapes, progress and gauges, overlays, links, previews. Only the
// import differs from what compiles against WidgetKit and SwiftUI (`#Preview` aside).

struct HeroEntry: TimelineEntry {
    let date: Date
    let name: String
    let level: Int
    let health: Double
    let nextBattle: Date
    var relevance: TimelineEntryRelevance? { TimelineEntryRelevance(score: Float(health)) }
}

struct HeroProvider: TimelineProvider {
    func placeholder(in context: Context) -> HeroEntry {
        HeroEntry(date: Date(), name: "Hero", level: 1, health: 1, nextBattle: Date().addingTimeInterval(3600))
    }

    func getSnapshot(in context: Context, completion: @escaping (HeroEntry) -> Void) {
        completion(placeholder(in: context))
    }

    func getTimeline(in context: Context, completion: @escaping (Timeline<HeroEntry>) -> Void) {
        let now = Date()
        let entries = (0..<3).map { step in
            HeroEntry(
                date: now.addingTimeInterval(Double(step) * 600),
                name: "Spouty",
                level: 12 + step,
                health: 0.8 - Double(step) * 0.2,
                nextBattle: now.addingTimeInterval(5400)
            )
        }
        completion(Timeline(entries: entries, policy: .after(now.addingTimeInterval(1800))))
    }
}

struct HeroAvatar: View {
    var body: some View {
        ZStack {
            ContainerRelativeShape().fill(.fill.tertiary)
            Circle().fill(Color.orange.opacity(0.5))
            Image(systemName: "star.fill").foregroundStyle(.yellow)
        }
        .frame(width: 44, height: 44)
    }
}

struct HeroEntryView: View {
    var entry: HeroProvider.Entry
    @Environment(\.widgetFamily) var family

    var body: some View {
        switch family {
        case .accessoryRectangular:
            Gauge(value: entry.health) {
                Text("HP")
            } currentValueLabel: {
                Text(entry.health, format: .percent)
            }
            .gaugeStyle(.accessoryLinearCapacity)
        case .accessoryInline:
            Text("\(entry.name) fights \(entry.nextBattle, style: .relative)")
        case .systemSmall:
            VStack(alignment: .leading, spacing: 4) {
                HeroAvatar()
                Text(entry.name).font(.headline).lineLimit(1)
                Text("Level \(entry.level)").font(.caption).foregroundStyle(.secondary)
                ProgressView(value: entry.health)
            }
            .widgetURL(URL(string: "heroes://hero/\(entry.name)"))
        default:
            HStack(alignment: .top) {
                HeroAvatar()
                VStack(alignment: .leading) {
                    Label("Level \(entry.level)", systemImage: "bolt.fill")
                        .font(.system(.title3, design: .rounded))
                    Text("Next battle ") + Text(entry.nextBattle, style: .timer).bold()
                    Link(destination: URL(string: "heroes://battle")!) {
                        Label {
                            Text("Battle").textCase(.uppercase)
                        } icon: {
                            Image(systemName: "bolt").foregroundStyle(.red)
                        }
                    }
                }
                Spacer(minLength: 0)
            }
            .overlay(alignment: .topTrailing) {
                Capsule().stroke(.secondary, lineWidth: 1).frame(width: 20, height: 8)
            }
        }
    }
}

struct HeroWidget: Widget {
    let kind = "Hero"

    var body: some WidgetConfiguration {
        StaticConfiguration(kind: kind, provider: HeroProvider()) { entry in
            HeroEntryView(entry: entry)
                .containerBackground(for: .widget) { Color.gray.opacity(0.2) }
        }
        .configurationDisplayName("Hero")
        .description("Your hero's health and next battle.")
        .supportedFamilies([.systemSmall, .systemMedium, .accessoryRectangular, .accessoryInline])
        .contentMarginsDisabled()
    }
}

struct LeaderboardWidget: Widget {
    var body: some WidgetConfiguration {
        StaticConfiguration(kind: "Leaderboard", provider: HeroProvider()) { entry in
            VStack {
                ForEach(0..<3) { rank in
                    HStack {
                        Text("#\(rank + 1)").monospacedDigit()
                        Text(entry.name)
                        Spacer()
                        Text(entry.level * (3 - rank), format: .number)
                    }
                }
                Divider()
                Text("Updated \(entry.date, style: .time)").font(.footnote)
            }
            .padding(.horizontal)
            .environment(\.colorScheme, .dark)
            .containerBackground(.background, for: .widget)
        }
        .configurationDisplayName("Leaderboard")
        .supportedFamilies([.systemMedium, .systemLarge])
    }
}

@main
struct HeroWidgets: WidgetBundle {
    var body: some Widget {
        HeroWidget()
        if #available(iOS 17.0, macOS 14.0, *) {
            LeaderboardWidget()
        }
    }
}

struct HeroWidget_Previews: PreviewProvider {
    static var previews: some View {
        HeroEntryView(entry: HeroEntry(date: Date(), name: "Hero", level: 1, health: 1, nextBattle: Date()))
            .previewContext(WidgetPreviewContext(family: .systemSmall))
    }
}
