// A widget from another team (Lingua Labs), installed on APPEX_EXTENSIONS_PATH (seed 004): the
// system's widget host does not show it until the owner runs `appex widgets enable
// com.lingualabs.widgets`. It needs nothing of ContactsExplorer: a word a day, from its bundle.
import AppexWidgetKit
import Foundation

struct WordEntry: TimelineEntry {
    var date: Date
    var word: String
    var meaning: String
}

struct WordProvider: TimelineProvider {
    static let words: [(String, String)] = [
        ("Fernweh", "a longing for far-off places"),
        ("Feierabend", "the moment work is done for the day"),
        ("Gemütlichkeit", "warmth, friendliness and good cheer"),
        ("Torschlusspanik", "the fear that time is running out"),
        ("Zeitgeist", "the spirit of the time"),
    ]

    func placeholder(in context: Context) -> WordEntry {
        WordEntry(date: Date(), word: "Wort", meaning: "word")
    }

    func getSnapshot(in context: Context, completion: @escaping (WordEntry) -> Void) {
        completion(entry(for: Date()))
    }

    func getTimeline(in context: Context, completion: @escaping (Timeline<WordEntry>) -> Void) {
        let now = Date()
        let tomorrow = Calendar.current.startOfDay(for: now).addingTimeInterval(86_400)
        completion(Timeline(entries: [entry(for: now), entry(for: tomorrow)], policy: .atEnd))
    }

    func entry(for date: Date) -> WordEntry {
        let day = Int(date.timeIntervalSince1970 / 86_400)
        let (word, meaning) = Self.words[day % Self.words.count]
        return WordEntry(date: date, word: word, meaning: meaning)
    }
}

struct WordView: View {
    var entry: WordEntry

    var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            Text("German word of the day").font(.caption).foregroundStyle(.secondary)
            Text(entry.word).font(.headline)
            Text(entry.meaning)
        }
        .containerBackground(.fill.tertiary, for: .widget)
    }
}

@main
struct LinguaWidgets: Widget {
    var body: some WidgetConfiguration {
        StaticConfiguration(kind: "WordOfTheDay", provider: WordProvider()) { entry in
            WordView(entry: entry)
        }
        .configurationDisplayName("Word of the Day")
        .description("A German word a day, from Lingua Labs.")
        .supportedFamilies([.systemSmall, .systemMedium])
    }
}
