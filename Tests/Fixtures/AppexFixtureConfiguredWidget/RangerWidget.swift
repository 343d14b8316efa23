import AppexWidgetKit

// A widget configured with an AppEntity, as App Intents' widgets pick a thing of the app's: the
// configuration keeps the ranger's identifier and the intent gets the ranger back from its
// query. Its summary reads as a sentence; its button's intent opens another, performed after.

struct Ranger: AppEntity {
    let id: String
    let name: String

    static let typeDisplayRepresentation: TypeDisplayRepresentation = "Ranger"
    static let defaultQuery = RangerQuery()
    var displayRepresentation: DisplayRepresentation { DisplayRepresentation(title: "\(name)") }

    /// The rangers there are: Spouty and Egghead, and Cake unless `$HOME/retired` names it.
    static var all: [Ranger] {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/tmp"
        let retired = (try? String(contentsOfFile: home + "/retired", encoding: .utf8)) ?? ""
        return [
            Ranger(id: "spouty", name: "Spouty"), Ranger(id: "egghead", name: "Egghead"),
            Ranger(id: "cake", name: "Cake"),
        ]
        .filter { !retired.contains($0.id) }
    }
}

struct RangerQuery: EntityQuery {
    func entities(for identifiers: [Ranger.ID]) async throws -> [Ranger] {
        Ranger.all.filter { identifiers.contains($0.id) }
    }
    func suggestedEntities() async throws -> [Ranger] { Ranger.all }
    func defaultResult() async -> Ranger? { Ranger.all.first }
}

struct RangerIntent: WidgetConfigurationIntent {
    static let title: LocalizedStringResource = "Ranger"

    @Parameter(title: "Ranger")
    var ranger: Ranger?

    @Parameter(title: "Show all", default: false)
    var showsAll: Bool

    static var parameterSummary: some ParameterSummary {
        When(\.$showsAll, .equalTo, true) {
            Summary("Every ranger")
        } otherwise: {
            Summary("Show \(\.$ranger)") { \.$showsAll }
        }
    }
}

/// Heals the ranger, then opens the intent that writes the log.
struct HealIntent: AppIntent {
    static let title: LocalizedStringResource = "Heal"

    func perform() async throws -> some IntentResult & OpensIntent {
        try RangerLog.write("healed")
        return .result(opensIntent: LogIntent())
    }
}

struct LogIntent: AppIntent {
    static let title: LocalizedStringResource = "Log"

    func perform() async throws -> some IntentResult {
        try RangerLog.write("logged")
        return .result()
    }
}

enum RangerLog {
    static func write(_ line: String) throws {
        let path = (ProcessInfo.processInfo.environment["HOME"] ?? "/tmp") + "/ranger-log"
        let old = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        try (old + line + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}

struct RangerEntry: TimelineEntry {
    let date: Date
    let name: String
}

struct RangerProvider: AppIntentTimelineProvider {
    func placeholder(in context: Context) -> RangerEntry { RangerEntry(date: Date(), name: "…") }

    func snapshot(for configuration: RangerIntent, in context: Context) async -> RangerEntry {
        RangerEntry(date: Date(), name: configuration.ranger?.name ?? "no ranger")
    }

    func timeline(for configuration: RangerIntent, in context: Context) async -> Timeline<RangerEntry> {
        Timeline(entries: [await snapshot(for: configuration, in: context)], policy: .never)
    }
}

struct RangerWidget: Widget {
    var body: some WidgetConfiguration {
        AppIntentConfiguration(kind: "Ranger", intent: RangerIntent.self, provider: RangerProvider()) { entry in
            VStack {
                Text(entry.name)
                Button(intent: HealIntent()) { Text("Heal") }
            }
        }
        .configurationDisplayName("Ranger")
    }
}
