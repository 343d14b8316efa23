/// One widget, ready to answer: its descriptor and its provider and view, type-erased.
struct ResolvedWidget: Sendable {
    var descriptor: WidgetDescriptor
    let placeholder: @Sendable (TimelineProviderContext) throws(AppexError) -> EncodedEntry
    let snapshot: @Sendable (TimelineProviderContext) async throws(AppexError) -> EncodedEntry
    let timeline: @Sendable (TimelineProviderContext) async throws(AppexError) -> EncodedTimeline

    init<Provider: TimelineProvider, Content: View & SendableMetatype>(
        kind: String,
        provider: Provider,
        content: @escaping @Sendable (Provider.Entry) -> Content
    ) {
        descriptor = WidgetDescriptor(
            kind: kind,
            displayName: kind,
            description: "",
            supportedFamilies: WidgetFamily.systemFamilies
        )
        @Sendable func encode(_ entry: Provider.Entry, _ family: WidgetFamily) throws(AppexError) -> EncodedEntry {
            let tree: [UInt8]
            do { tree = try ViewTree(content(entry), family: family).encoded() } catch {
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
        placeholder = { context throws(AppexError) in try encode(provider.placeholder(in: context), context.family) }
        snapshot = { context throws(AppexError) in try encode(await provider.snapshot(in: context), context.family) }
        timeline = { context throws(AppexError) in
            let timeline = await provider.timeline(in: context)
            var entries: [EncodedEntry] = []
            entries.reserveCapacity(timeline.entries.count)
            for entry in timeline.entries { entries.append(try encode(entry, context.family)) }
            return EncodedTimeline(entries: entries, policy: EncodedPolicy(timeline.policy))
        }
    }
}
