/// An action a person performs from a widget, as App Intents' `AppIntent`: a `Button(intent:)`
/// or `Toggle(isOn:intent:)` in a widget's view carries one, and a tap performs it in the
/// widget's extension process; the widget host then asks for a new timeline.
///
/// ```swift
/// struct MarkDoneIntent: AppIntent {
///     static let title: LocalizedStringResource = "Mark done"
///     @Parameter(title: "Task") var task: String
///
///     init() {}
///     init(task: String) { self.task = task }
///
///     func perform() async throws -> some IntentResult {
///         try TaskStore.shared.markDone(task)
///         return .result()
///     }
/// }
/// ```
///
/// Its parameters cross from the view to the tap as JSON (an intent is `Codable`: its
/// `@Parameter` properties are encoded by name), so an intent holds the values a tap needs, not
/// references.
public protocol AppIntent: Codable, Sendable {
    /// The intent's name, as a person reads it.
    static var title: LocalizedStringResource { get }
    /// What the intent does, in a sentence (empty unless the intent says).
    static var description: IntentDescription { get }
    /// An intent with its parameters unset (the system sets them before it performs).
    init()
    /// How the parameters read as a sentence (``ParameterSummary``).
    associatedtype SummaryContent: ParameterSummary = NoParameterSummary
    /// The parameters as a sentence; none unless the intent says.
    @ParameterSummaryBuilder<Self> static var parameterSummary: SummaryContent { get }
    /// What `perform()` returns: `.result()`.
    associatedtype PerformResult: IntentResult
    /// Does what the intent says, in the widget's extension process.
    func perform() async throws -> PerformResult
}

extension AppIntent {
    /// No description.
    public static var description: IntentDescription { IntentDescription("") }
}

extension AppIntent where SummaryContent == NoParameterSummary {
    /// No summary.
    public static var parameterSummary: NoParameterSummary { NoParameterSummary() }
}

/// An intent migrated from a SiriKit intent, as App Intents' `CustomIntentMigratedAppIntent`:
/// it names the SiriKit intent class it replaces (kept for the record; Linux has no SiriKit).
public protocol CustomIntentMigratedAppIntent: AppIntent {
    /// The SiriKit intent class's name.
    static var intentClassName: String { get }
}

/// What an intent's `perform()` returns.
public protocol IntentResult: Sendable {}

/// A result that opens another intent when its own is done, as App Intents' `OpensIntent`:
/// `return .result(opensIntent: ShowHeroIntent(hero: hero))`. The widget's process performs the
/// opened intent right after, and the widget host asks for one new timeline for both.
public protocol OpensIntent: IntentResult {}

/// The result of an intent that returns nothing but its completion, or the intent it opens.
public struct IntentResultContainer: IntentResult, OpensIntent {
    /// The intent to perform next; `nil` for none.
    let opened: (any AppIntent)?
    init(opening opened: (any AppIntent)? = nil) { self.opened = opened }
}

extension IntentResult where Self == IntentResultContainer {
    /// The intent completed.
    public static func result() -> Self { IntentResultContainer() }
    /// The intent completed; `intent` is performed next.
    public static func result(opensIntent intent: some AppIntent) -> Self { IntentResultContainer(opening: intent) }
}

/// A string resource to show a person, as Foundation's `LocalizedStringResource` on Apple
/// platforms (which swift-corelibs-foundation lacks): written as a string literal.
public struct LocalizedStringResource: Sendable, Hashable, ExpressibleByStringInterpolation,
    CustomStringConvertible
{
    /// The key, which is the text shown (no localization tables on Linux yet).
    public var key: String
    /// A resource of `key`.
    public init(_ key: String) { self.key = key }
    /// A resource from a literal.
    public init(stringLiteral value: String) { key = value }
    /// The text.
    public var description: String { key }
}
