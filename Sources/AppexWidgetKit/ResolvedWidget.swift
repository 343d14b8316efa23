/// One widget, ready to answer: its descriptor and its provider and view, type-erased.
struct ResolvedWidget: Sendable {
    typealias Placeholder = @Sendable (TimelineProviderContext) throws(AppexError) -> EncodedEntry
    typealias Snapshot = @Sendable (TimelineProviderContext) async throws(AppexError) -> EncodedEntry
    typealias Timeline = @Sendable (TimelineProviderContext) async throws(AppexError) -> EncodedTimeline
    /// The parameters a person sets and the presets of a configurable widget.
    typealias Settings = @Sendable () async -> ([WidgetParameter], [WidgetRecommendation])
    /// Draws an entry of a family into its encoded view tree.
    typealias Encode<Entry> = @Sendable (Entry, WidgetFamily) throws(AppexError) -> EncodedEntry

    var descriptor: WidgetDescriptor
    let placeholder: Placeholder
    let snapshot: Snapshot
    let timeline: Timeline
    /// `nil` for a widget its person does not configure.
    let configuration: Settings?

    /// A widget of `kind` drawn by `content`, whose entries the given calls make (each provider
    /// flavour below says how it calls its provider; the drawing is the same for all).
    init<Entry: TimelineEntry, Content: View & SendableMetatype>(
        kind: String,
        content: @escaping @Sendable (Entry) -> Content,
        placeholder: @escaping @Sendable (TimelineProviderContext) throws(AppexError) -> Entry,
        snapshot: @escaping @Sendable (TimelineProviderContext) async throws(AppexError) -> Entry,
        timeline:
            @escaping @Sendable (TimelineProviderContext) async throws(AppexError) -> AppexWidgetKit.Timeline<Entry>,
        settings: Settings? = nil
    ) {
        descriptor = WidgetDescriptor(
            kind: kind,
            displayName: kind,
            description: "",
            supportedFamilies: WidgetFamily.systemFamilies
        )
        let encode = Self.encoder(kind: kind, content: content)
        self.placeholder = { context throws(AppexError) in try encode(try placeholder(context), context.family) }
        self.snapshot = { context throws(AppexError) in try encode(try await snapshot(context), context.family) }
        self.timeline = { context throws(AppexError) in
            let made = try await timeline(context)
            var entries: [EncodedEntry] = []
            entries.reserveCapacity(made.entries.count)
            for entry in made.entries { entries.append(try encode(entry, context.family)) }
            return EncodedTimeline(entries: entries, policy: EncodedPolicy(made.policy))
        }
        configuration = settings
    }

    /// A widget its person does not configure (``StaticConfiguration``).
    init<Provider: TimelineProvider, Content: View & SendableMetatype>(
        kind: String,
        provider: Provider,
        content: @escaping @Sendable (Provider.Entry) -> Content
    ) {
        self.init(
            kind: kind,
            content: content,
            placeholder: { provider.placeholder(in: $0) },
            snapshot: { await provider.snapshot(in: $0) },
            timeline: { await provider.timeline(in: $0) }
        )
    }

    /// A configurable widget (``AppIntentConfiguration``): each call decodes the placed widget's
    /// configuration (``TimelineProviderContext/configuration``) into the provider's intent.
    init<Provider: AppIntentTimelineProvider, Content: View & SendableMetatype>(
        kind: String,
        configuredBy provider: Provider,
        content: @escaping @Sendable (Provider.Entry) -> Content
    ) {
        @Sendable func intent(_ context: TimelineProviderContext) async throws(AppexError) -> Provider.Intent {
            do {
                return try await IntentConfigurationCoding.intent(Provider.Intent.self, from: context.configuration)
            } catch {
                throw AppexError(error.code, "widget \(kind): \(error.message)", context: .init(widgetKind: kind))
            }
        }
        self.init(
            kind: kind,
            content: content,
            placeholder: { provider.placeholder(in: $0) },
            snapshot: { context throws(AppexError) in
                await provider.snapshot(for: try await intent(context), in: context)
            },
            timeline: { context throws(AppexError) in
                await provider.timeline(for: try await intent(context), in: context)
            },
            settings: {
                let parameters = await IntentConfigurationCoding.parameters(of: Provider.Intent.self)
                let presets = provider.recommendations().map { recommendation in
                    WidgetRecommendation(
                        description: recommendation.description,
                        configuration: IntentConfigurationCoding.text(of: recommendation.intent)
                    )
                }
                return (parameters, presets)
            }
        )
    }

    /// Draws an entry into its encoded view tree, within the tree's limits.
    private static func encoder<Entry: TimelineEntry, Content: View & SendableMetatype>(
        kind: String,
        content: @escaping @Sendable (Entry) -> Content
    ) -> Encode<Entry> {
        { (entry: Entry, family: WidgetFamily) throws(AppexError) -> EncodedEntry in
            let tree: [UInt8]
            do throws(AppexError) { tree = try ViewTree(content(entry), family: family).encoded() } catch {
                // The tree's own refusal (too deep) does not know whose it is: say it.
                throw AppexError(
                    error.code,
                    "widget \(kind): the view of its entry for \(entry.date): \(error.message)",
                    context: AppexError.Context(widgetKind: kind)
                )
            }
            guard tree.count <= ViewTree.byteLimit else {
                throw AppexError(
                    .viewTreeTooLarge,
                    "widget \(kind): the view of its entry for \(entry.date) encodes to \(tree.count) bytes, over the limit of \(ViewTree.byteLimit)",
                    context: AppexError.Context(widgetKind: kind)
                )
            }
            return EncodedEntry(date: entry.date.timeIntervalSince1970, relevance: entry.relevance, tree: tree)
        }
    }
}
