/// A widget its person configures, as WidgetKit's `AppIntentConfiguration`: a kind, the intent
/// whose parameters are its settings, a provider that gets them, and the view of each entry.
///
/// ```swift
/// struct Trailerboard: Widget {
///     var body: some WidgetConfiguration {
///         AppIntentConfiguration(kind: "Trailerboard", intent: ConfigurationAppIntent.self, provider: Provider()) { entry in
///             Text(entry.configuration.favoriteEmoji)
///         }
///     }
/// }
/// ```
///
/// The widget host keeps each placed widget's configuration (set from the widget desktop's
/// "Edit widget" form, or `appex widgets configure KIND --set name=value`) and passes it to every
/// call of the provider; a parameter never set takes its default.
public struct AppIntentConfiguration<Intent: WidgetConfigurationIntent, Content: View & SendableMetatype>:
    WidgetConfiguration
{
    let widget: ResolvedWidget
    /// Implementation detail: the one widget this configuration describes.
    public var _widgets: _WidgetList { _WidgetList([widget]) }

    /// A widget of `kind`, configured by `intent`, whose entries `provider` makes and `content` draws.
    public init<Provider: AppIntentTimelineProvider>(
        kind: String,
        intent: Intent.Type = Intent.self,
        provider: Provider,
        @ViewBuilder content: @escaping @Sendable (Provider.Entry) -> Content
    ) where Provider.Intent == Intent {
        widget = ResolvedWidget(kind: kind, configuredBy: provider, content: content)
    }
}
