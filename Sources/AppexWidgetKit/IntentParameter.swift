import Synchronization

/// A parameter of an ``AppIntent``, as App Intents' `@Parameter`: a person sets it (a widget's
/// configuration, from the widget desktop's "Edit widget" or `appex widgets configure`), or the
/// code that makes the intent does.
///
/// ```swift
/// struct ConfigurationAppIntent: WidgetConfigurationIntent {
///     static let title: LocalizedStringResource = "Configuration"
///     @Parameter(title: "Favorite Emoji", default: "😃")
///     var favoriteEmoji: String
/// }
///
/// let intent = ConfigurationAppIntent()
/// intent.favoriteEmoji = "🤩"  // a `let` intent: the parameter holds the value, as Apple's does
/// ```
///
/// The parameter is a reference, as Apple's `IntentParameter` is: a copy of an intent shares its
/// parameters' values. It is encoded by its property's name when the intent crosses a process
/// boundary (a tap's intent, a widget's configuration).
@propertyWrapper
public final class IntentParameter<Value: Codable & Sendable>: Codable, Sendable {
    let value: Mutex<Value?>
    /// The parameter's name, as a person reads it.
    public let title: LocalizedStringResource?
    /// What the parameter is for, in a sentence (kept; not shown yet).
    public let parameterDescription: LocalizedStringResource?
    let defaultValue: Value?
    let options: (any ParameterOptions)?

    /// A parameter named `title`, set to `default` until something sets it.
    public init(
        title: LocalizedStringResource? = nil,
        description: LocalizedStringResource? = nil,
        default: Value? = nil
    ) {
        self.title = title
        parameterDescription = description
        defaultValue = `default`
        value = Mutex(`default`)
        options = nil
    }

    /// A parameter whose values a person picks from what `optionsProvider` lists.
    public init<Provider: DynamicOptionsProvider>(
        title: LocalizedStringResource? = nil,
        description: LocalizedStringResource? = nil,
        default: Value? = nil,
        optionsProvider: Provider
    ) {
        self.title = title
        parameterDescription = description
        defaultValue = `default`
        value = Mutex(`default`)
        options = DynamicOptions(provider: optionsProvider)
    }

    /// A parameter with an initial value: `@Parameter(title: "Count") var count = 3`.
    public init(wrappedValue: Value, title: LocalizedStringResource? = nil, description: LocalizedStringResource? = nil)
    {
        self.title = title
        parameterDescription = description
        defaultValue = wrappedValue
        value = Mutex(wrappedValue)
        options = nil
    }

    /// The value. An optional parameter never set is `nil`; reading a required one that was never
    /// set is the intent's own error, as on Apple platforms (an intent the widget host configures
    /// always has every parameter: a missing one takes its default).
    public var wrappedValue: Value {
        get {
            if let current = value.withLock({ $0 }) { return current }
            if let none = (Value.self as? any ExpressibleByNilLiteral.Type)?.init(nilLiteral: ()) as? Value {
                return none
            }
            preconditionFailure("the intent parameter \(title?.key ?? "(untitled)") was read before it was set")
        }
        set { value.withLock { $0 = newValue } }
    }

    /// The parameter itself (`$name`), as Apple's.
    public var projectedValue: IntentParameter<Value> { self }

    /// Encodes the value (`null` when unset).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let current = value.withLock({ $0 }) {
            try container.encode(current)
        } else {
            try container.encodeNil()
        }
    }

    /// Decodes the value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let decoded = try container.decode(Value.self)
        value = Mutex(decoded)
        title = nil
        parameterDescription = nil
        defaultValue = nil
        options = nil
    }
}

/// App Intents' name for an intent's parameter: `@Parameter(title: "Name") var name: String`.
public typealias Parameter = IntentParameter
