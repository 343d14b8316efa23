import Synchronization

/// A widget configured by a SiriKit intent, as WidgetKit's `IntentConfiguration` (before App
/// Intents): a kind, the ``INIntent`` class, a provider and the view of each entry. Its person
/// configures it by picking one of the provider's `recommendations()`; with none picked the
/// provider gets a new intent.
public struct IntentConfiguration<Intent: INIntent, Content: View & SendableMetatype>: WidgetConfiguration {
    let widget: ResolvedWidget
    /// Implementation detail: the one widget this configuration describes.
    public var _widgets: _WidgetList { _WidgetList([widget]) }

    /// A widget of `kind`, configured by `intent`, whose entries `provider` makes and `content` draws.
    public init<Provider: IntentTimelineProvider>(
        kind: String,
        intent: Intent.Type,
        provider: Provider,
        @ViewBuilder content: @escaping @Sendable (Provider.Entry) -> Content
    ) where Provider.Intent == Intent {
        widget = ResolvedWidget(kind: kind, presetsOf: provider, content: content)
    }
}

/// Supplies a SiriKit-configured widget's entries, as WidgetKit's `IntentTimelineProvider`.
public protocol IntentTimelineProvider: Sendable {
    /// The entries this provider makes.
    associatedtype Entry: TimelineEntry
    /// The widget's intent class.
    associatedtype Intent: INIntent
    /// What the host says about the widget it asks for.
    typealias Context = TimelineProviderContext

    /// An entry to show at once, with sample data, before any timeline exists.
    func placeholder(in context: Context) -> Entry
    /// One entry for now, quickly, for `configuration`.
    func getSnapshot(for configuration: Intent, in context: Context, completion: @escaping (Entry) -> Void)
    /// The timeline for `configuration`.
    func getTimeline(for configuration: Intent, in context: Context, completion: @escaping (Timeline<Entry>) -> Void)
    /// The configurations a person picks from; none by default.
    func recommendations() -> [IntentRecommendation<Intent>]
}

extension IntentTimelineProvider {
    /// No presets.
    public func recommendations() -> [IntentRecommendation<Intent>] { [] }

    func snapshot(for configuration: Intent, in context: Context) async -> Entry {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            getSnapshot(for: configuration, in: context) { once.resume($0) }
        }
    }

    func timeline(for configuration: Intent, in context: Context) async -> Timeline<Entry> {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            getTimeline(for: configuration, in: context) { once.resume($0) }
        }
    }
}

/// A configuration a SiriKit provider suggests, as WidgetKit's `IntentRecommendation`.
public struct IntentRecommendation<Intent: INIntent> {
    /// The configured intent.
    public let intent: Intent
    /// What the preset shows, in a few words.
    public let description: String

    /// A preset of `intent`, described as `description`.
    public init<S: StringProtocol>(intent: Intent, description: S) {
        self.intent = intent
        self.description = String(description)
    }

    /// A preset of `intent`, described as `description`.
    public init(intent: Intent, description: Text) {
        self.intent = intent
        self.description = description.plainText
    }
}

/// A completion handler's continuation, resumed by its first call only (a provider that calls
/// its completion twice does not crash the extension).
private final class ResumeOnce<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = Mutex(continuation) }

    func resume(_ value: Value) {
        continuation.withLock { taken in
            defer { taken = nil }
            return taken
        }?.resume(returning: value)
    }
}

extension ResolvedWidget {
    /// A widget configured by picking one of `provider`'s recommendations: its configuration is
    /// `{"recommendation": N, "description": "…"}`, the preset found by its description (so a
    /// build that reorders its recommendations keeps the pick), by its place when none has it.
    init<Provider: IntentTimelineProvider, Content: View & SendableMetatype>(
        kind: String,
        presetsOf provider: Provider,
        content: @escaping @Sendable (Provider.Entry) -> Content
    ) {
        @Sendable func intent(_ context: TimelineProviderContext) -> Provider.Intent {
            let picked = try? JSONDecoder().decode(PickedPreset.self, from: Data(context.configuration))
            let presets = provider.recommendations()
            if let named = picked?.description, let preset = presets.first(where: { $0.description == named }) {
                return preset.intent
            }
            if let index = picked?.recommendation, presets.indices.contains(index) {
                return presets[index].intent
            }
            return Provider.Intent()
        }
        self.init(
            kind: kind,
            content: content,
            placeholder: { provider.placeholder(in: $0) },
            snapshot: { await provider.snapshot(for: intent($0), in: $0) },
            timeline: { await provider.timeline(for: intent($0), in: $0) },
            settings: {
                let presets = provider.recommendations().enumerated().map { index, preset in
                    WidgetRecommendation(
                        description: preset.description,
                        configuration: JSONValue.object([
                            "recommendation": .integer(Int64(index)), "description": .string(preset.description),
                        ]).json
                    )
                }
                return ([], presets)
            }
        )
    }
}

/// The configuration of a widget configured by its presets: the one picked.
private struct PickedPreset: Decodable, Sendable {
    var recommendation: Int?
    var description: String?
}
