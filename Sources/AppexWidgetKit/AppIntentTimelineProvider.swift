/// Supplies a configurable widget's entries, as WidgetKit's `AppIntentTimelineProvider`: each
/// call gets the placed widget's configuration, the intent with the parameters its person set.
///
/// ```swift
/// struct Provider: AppIntentTimelineProvider {
///     func placeholder(in context: Context) -> SimpleEntry {
///         SimpleEntry(date: Date(), configuration: ConfigurationAppIntent())
///     }
///     func snapshot(for configuration: ConfigurationAppIntent, in context: Context) async -> SimpleEntry {
///         SimpleEntry(date: Date(), configuration: configuration)
///     }
///     func timeline(for configuration: ConfigurationAppIntent, in context: Context) async -> Timeline<SimpleEntry> {
///         Timeline(entries: [SimpleEntry(date: Date(), configuration: configuration)], policy: .atEnd)
///     }
/// }
/// ```
public protocol AppIntentTimelineProvider: Sendable {
    /// The entries this provider makes.
    associatedtype Entry: TimelineEntry
    /// The widget's configuration intent.
    associatedtype Intent: WidgetConfigurationIntent
    /// What the host says about the widget it asks for.
    typealias Context = TimelineProviderContext

    /// An entry to show at once, with sample data, before any timeline exists.
    func placeholder(in context: Context) -> Entry
    /// One entry for now, quickly, for `configuration`.
    func snapshot(for configuration: Intent, in context: Context) async -> Entry
    /// The timeline for `configuration`: entries for now and later, and when to ask again.
    func timeline(for configuration: Intent, in context: Context) async -> Timeline<Entry>
    /// Configurations to offer as presets (the widget desktop's choices); none by default.
    func recommendations() -> [AppIntentRecommendation<Intent>]
}

extension AppIntentTimelineProvider {
    /// No presets.
    public func recommendations() -> [AppIntentRecommendation<Intent>] { [] }
}

/// A configuration a provider suggests, as WidgetKit's `AppIntentRecommendation`.
public struct AppIntentRecommendation<Intent: WidgetConfigurationIntent>: Sendable {
    /// The configured intent.
    public let intent: Intent
    /// What the preset shows, in a few words.
    public let description: String

    /// A preset of `intent`, described as `description`.
    public init(intent: Intent, description: LocalizedStringResource) {
        self.intent = intent
        self.description = description.key
    }

    /// A preset of `intent`, described as `description`.
    public init<S: StringProtocol>(intent: Intent, description: S) {
        self.intent = intent
        self.description = String(description)
    }
}
