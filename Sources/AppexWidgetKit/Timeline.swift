/// One moment of a widget's timeline: the date it is shown from, and what to show then.
///
/// Entries cross no process boundary: the extension draws each into a ``ViewTree`` itself. They
/// must be `Sendable`, which a `struct` of `Sendable` values is without saying so.
public protocol TimelineEntry: Sendable {
    /// When the widget starts showing this entry.
    var date: Date { get }
    /// How relevant the entry is; `nil` (the default) when the widget does not say.
    var relevance: TimelineEntryRelevance? { get }
}

extension TimelineEntry {
    /// `nil`: the entry does not say how relevant it is.
    public var relevance: TimelineEntryRelevance? { nil }
}

/// How relevant an entry is, as a score; kept with the timeline and shown by `appex widgets list`.
public struct TimelineEntryRelevance: Sendable, Hashable, Codable {
    /// The score: higher is more relevant.
    public let score: Float
    /// How long the score holds, in seconds; 0 for as long as the entry is shown.
    public let duration: TimeInterval
    /// A relevance of `score` for `duration` seconds.
    public init(score: Float, duration: TimeInterval = 0) {
        self.score = score
        self.duration = duration
    }
}

/// When the widget host asks for the next timeline.
public struct TimelineReloadPolicy: Sendable, Hashable {
    package enum Storage: Sendable, Hashable {
        case atEnd
        case after(Date)
        case never
    }
    package let storage: Storage

    /// When the last entry's date has come.
    public static let atEnd = TimelineReloadPolicy(storage: .atEnd)
    /// Only when the containing app asks (`WidgetCenter`).
    public static let never = TimelineReloadPolicy(storage: .never)
    /// Once `date` has passed.
    public static func after(_ date: Date) -> TimelineReloadPolicy { TimelineReloadPolicy(storage: .after(date)) }
}

/// A widget's entries and when to ask for more, as in WidgetKit.
public struct Timeline<EntryType: TimelineEntry>: Sendable {
    /// The entries, in any order: the host shows each from its date.
    public let entries: [EntryType]
    /// When to ask for the next timeline.
    public let policy: TimelineReloadPolicy

    /// A timeline of `entries`, reloaded as `policy` says.
    public init(entries: [EntryType], policy: TimelineReloadPolicy) {
        self.entries = entries
        self.policy = policy
    }
}

/// What the widget host tells a provider about the widget it asks for.
public struct TimelineProviderContext: Sendable {
    /// The family being drawn.
    public let family: WidgetFamily
    /// The family's size, in points. (Computed, not stored: `CGSize` is Foundation's on Linux,
    /// and a stored one keeps all of Foundation in every release widget executable, 50 MB and
    /// 1.4 ms a launch; a computed one is dropped by the linker when the widget never asks.)
    public var displaySize: CGSize { family.displaySize }
    /// `true` when the entry is for a gallery or preview (`appex widgets show --preview`), not
    /// for the widget on screen: answer quickly with sample data.
    public let isPreview: Bool
    /// The environment the views are resolved in.
    public let environmentVariants = EnvironmentVariants()
    /// The placed widget's configuration: a JSON object of its intent's parameters by name
    /// (empty for the defaults, and for a widget its person does not configure).
    package let configuration: [UInt8]

    package init(family: WidgetFamily, isPreview: Bool, configuration: [UInt8] = []) {
        self.family = family
        self.isPreview = isPreview
        self.configuration = configuration
    }

    /// The environments a widget may be drawn in; on Linux, one.
    public struct EnvironmentVariants: Sendable {}
}

/// Supplies a widget's entries, as WidgetKit's `TimelineProvider`: a placeholder at once, a
/// snapshot quickly, and timelines when the widget host asks.
///
/// Implement either the completion-handler forms (as Xcode's template does) or the `async`
/// forms; each has a default that calls the other, so implement at least one of each pair.
public protocol TimelineProvider: Sendable {
    /// The entries this provider makes.
    associatedtype Entry: TimelineEntry
    /// What the host says about the widget it asks for.
    typealias Context = TimelineProviderContext

    /// An entry to show at once, with sample data, before any timeline exists.
    func placeholder(in context: Context) -> Entry
    /// One entry for now, quickly (a gallery, a preview, `appex widgets show --preview`).
    func getSnapshot(in context: Context, completion: @escaping (Entry) -> Void)
    /// The timeline: entries for now and later, and when to ask again.
    func getTimeline(in context: Context, completion: @escaping (Timeline<Entry>) -> Void)
    /// One entry for now, quickly.
    func snapshot(in context: Context) async -> Entry
    /// The timeline.
    func timeline(in context: Context) async -> Timeline<Entry>
}

extension TimelineProvider {
    /// Calls ``getSnapshot(in:completion:)``.
    public func snapshot(in context: Context) async -> Entry {
        await withCheckedContinuation { continuation in
            getSnapshot(in: context) { continuation.resume(returning: $0) }
        }
    }

    /// Calls ``getTimeline(in:completion:)``.
    public func timeline(in context: Context) async -> Timeline<Entry> {
        await withCheckedContinuation { continuation in
            getTimeline(in: context) { continuation.resume(returning: $0) }
        }
    }

    /// Calls ``snapshot(in:)`` in a task.
    public func getSnapshot(in context: Context, completion: @escaping (Entry) -> Void) {
        let completion = CompletionBox(completion)
        Task { completion.call(await snapshot(in: context)) }
    }

    /// Calls ``timeline(in:)`` in a task.
    public func getTimeline(in context: Context, completion: @escaping (Timeline<Entry>) -> Void) {
        let completion = CompletionBox(completion)
        Task { completion.call(await timeline(in: context)) }
    }
}

/// A completion handler carried into the task that produces its value. WidgetKit's handlers are
/// not `@Sendable` (Xcode's template declares them so), yet WidgetKit calls them from any
/// thread; so does this, once.
private struct CompletionBox<Value: Sendable>: @unchecked Sendable {
    let call: (Value) -> Void
    init(_ call: @escaping (Value) -> Void) { self.call = call }
}
