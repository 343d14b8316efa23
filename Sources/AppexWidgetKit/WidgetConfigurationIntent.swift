/// The intent a configurable widget's person sets, as WidgetKit's `WidgetConfigurationIntent`:
/// its `@Parameter`s are the widget's settings, which the widget host keeps for each placed
/// widget and passes to the provider's `timeline(for:in:)`.
///
/// ```swift
/// struct ConfigurationAppIntent: WidgetConfigurationIntent {
///     static let title: LocalizedStringResource = "Configuration"
///     static let description = IntentDescription("This is an example widget.")
///
///     @Parameter(title: "Favorite Emoji", default: "😃")
///     var favoriteEmoji: String
/// }
/// ```
///
/// Its parameters are described to the widget host by their property names (the keys of the
/// intent's `Codable` form): text, numbers, switches, dates, web addresses, an ``AppEnum``'s
/// cases, and the values a ``DynamicOptionsProvider`` lists.
public protocol WidgetConfigurationIntent: AppIntent {}

extension WidgetConfigurationIntent {
    /// Nothing to do: a configuration intent is read, not performed.
    public func perform() async throws -> IntentResultContainer { .result() }
}
