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
    /// An intent with its parameters unset (the system sets them before it performs).
    init()
    /// What `perform()` returns: `.result()`.
    associatedtype PerformResult: IntentResult
    /// Does what the intent says, in the widget's extension process.
    func perform() async throws -> PerformResult
}

/// What an intent's `perform()` returns.
public protocol IntentResult: Sendable {}

/// The result of an intent that returns nothing but its completion.
public struct IntentResultContainer: IntentResult {
    init() {}
}

extension IntentResult where Self == IntentResultContainer {
    /// The intent completed.
    public static func result() -> Self { IntentResultContainer() }
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

/// A parameter of an ``AppIntent``, as App Intents' `@Parameter`: encoded by its property's
/// name when the intent crosses to the tap, and required when it is read back.
@propertyWrapper
public struct Parameter<Value: Codable & Sendable>: Codable, Sendable {
    private var value: Value?
    /// The parameter's name, as a person reads it.
    public let title: LocalizedStringResource?

    /// A parameter named `title`, unset until the intent's initializer sets it, or `default`.
    public init(title: LocalizedStringResource? = nil, default: Value? = nil) {
        self.title = title
        self.value = `default`
    }

    /// A parameter with an initial value.
    public init(wrappedValue: Value, title: LocalizedStringResource? = nil) {
        self.title = title
        self.value = wrappedValue
    }

    /// The value. Reading one that was never set is the intent's own error, as on Apple
    /// platforms: an intent decoded from a tap always has every parameter.
    public var wrappedValue: Value {
        get {
            guard let value else {
                preconditionFailure("the intent parameter \(title?.key ?? "(untitled)") was read before it was set")
            }
            return value
        }
        set { value = newValue }
    }

    /// Encodes the value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    /// Decodes the value, which must be there.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        value = try container.decode(Value.self)
        title = nil
    }
}
