import AppexWidgetKit

// Configurable widgets written as WidgetKit code is: an App Intents configuration (text with a
// default, a number, a switch, an AppEnum, values from a DynamicOptionsProvider, presets), and a
// SiriKit intent configuration over a hand-written INIntent class, configured by its presets.
// Only the import differs from what compiles against WidgetKit, AppIntents and Intents.

enum Mood: String, AppEnum {
    case happy, sleepy

    static let typeDisplayRepresentation: TypeDisplayRepresentation = "Mood"
    static let caseDisplayRepresentations: [Mood: DisplayRepresentation] = [
        .happy: "Happy", .sleepy: DisplayRepresentation(title: "Sleepy", subtitle: "Zzz"),
    ]
}

struct ColorNames: DynamicOptionsProvider {
    func results() async throws -> [String] { ["Red", "Green", "Blue"] }
}

struct ConfigurationAppIntent: WidgetConfigurationIntent {
    static let title: LocalizedStringResource = "Configuration"
    static let description = IntentDescription("An emoji, how many, and a mood.")

    @Parameter(title: "Favorite Emoji", default: "😃")
    var favoriteEmoji: String

    @Parameter(title: "Count", default: 1)
    var count: Int

    @Parameter(title: "Shout", default: false)
    var shout: Bool

    @Parameter(title: "Mood", default: .happy)
    var mood: Mood

    @Parameter(title: "Color", optionsProvider: ColorNames())
    var color: String?
}

struct EmojiEntry: TimelineEntry {
    let date: Date
    let configuration: ConfigurationAppIntent
}

struct EmojiProvider: AppIntentTimelineProvider {
    func placeholder(in context: Context) -> EmojiEntry {
        EmojiEntry(date: Date(), configuration: ConfigurationAppIntent())
    }

    func snapshot(for configuration: ConfigurationAppIntent, in context: Context) async -> EmojiEntry {
        EmojiEntry(date: Date(), configuration: configuration)
    }

    func timeline(for configuration: ConfigurationAppIntent, in context: Context) async -> Timeline<EmojiEntry> {
        Timeline(entries: [EmojiEntry(date: Date(), configuration: configuration)], policy: .never)
    }

    func recommendations() -> [AppIntentRecommendation<ConfigurationAppIntent>] {
        let party = ConfigurationAppIntent()
        party.favoriteEmoji = "🎉"
        party.count = 3
        return [AppIntentRecommendation(intent: party, description: "Party")]
    }
}

struct EmojiWidget: Widget {
    var body: some WidgetConfiguration {
        AppIntentConfiguration(kind: "Emoji", intent: ConfigurationAppIntent.self, provider: EmojiProvider()) { entry in
            let emoji = String(
                repeating: entry.configuration.favoriteEmoji,
                count: max(0, min(entry.configuration.count, 5))
            )
            VStack {
                Text(entry.configuration.shout ? emoji + "!" : emoji)
                Text("mood \(entry.configuration.mood.rawValue)")
                Text("color \(entry.configuration.color ?? "none")")
            }
            .containerBackground(.fill.tertiary, for: .widget)
        }
        .configurationDisplayName("Emoji")
        .description("An emoji, as many times as you like.")
    }
}

// What Xcode generates from an .intentdefinition file, written by hand.
class Hero: INObject {}

class HeroSelectionIntent: INIntent {
    var hero: Hero?
}

struct HeroProvider: IntentTimelineProvider {
    func placeholder(in context: Context) -> HeroEntry { HeroEntry(date: Date(), name: "Nobody") }

    func getSnapshot(
        for configuration: HeroSelectionIntent,
        in context: Context,
        completion: @escaping (HeroEntry) -> Void
    ) {
        completion(HeroEntry(date: Date(), name: configuration.hero?.displayString ?? "Nobody"))
    }

    func getTimeline(
        for configuration: HeroSelectionIntent,
        in context: Context,
        completion: @escaping (Timeline<HeroEntry>) -> Void
    ) {
        let entry = HeroEntry(date: Date(), name: configuration.hero?.displayString ?? "Nobody")
        completion(Timeline(entries: [entry], policy: .never))
    }

    func recommendations() -> [IntentRecommendation<HeroSelectionIntent>] {
        // A later build may list them in another order: a file `hero-order` in the extension's
        // container (its HOME) saying `reversed` stands for one.
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/tmp"
        let reversed = (try? String(contentsOfFile: home + "/hero-order", encoding: .utf8)) == "reversed"
        return (reversed ? ["Egghead", "Spouty"] : ["Spouty", "Egghead"]).map { name in
            let intent = HeroSelectionIntent()
            intent.hero = Hero(identifier: name.lowercased(), display: name)
            return IntentRecommendation(intent: intent, description: name)
        }
    }
}

struct HeroEntry: TimelineEntry {
    let date: Date
    let name: String
}

struct HeroWidget: Widget {
    var body: some WidgetConfiguration {
        IntentConfiguration(kind: "Hero", intent: HeroSelectionIntent.self, provider: HeroProvider()) { entry in
            VStack {
                Text("hero \(entry.name)")
                // Healed in an hour: a countdown the desktop keeps moving between entries.
                ProgressView(timerInterval: entry.date...entry.date.addingTimeInterval(3600), countsDown: true)
            }
        }
        .configurationDisplayName("Hero")
    }
}

@main
struct ConfiguredWidgets: WidgetBundle {
    var body: some Widget {
        EmojiWidget()
        HeroWidget()
        HeadlineWidget()
        GreetingWidget()
        RangerWidget()
        LampControl()
        BellControl()
        #if canImport(ActivityKit)
        DeliveryActivity()
        #endif
    }
}
