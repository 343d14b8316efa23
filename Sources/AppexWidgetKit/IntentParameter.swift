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
/// boundary (a tap's intent, a widget's configuration). Its value is `Codable`, or an
/// ``AppEntity`` (kept by its identifier, found again by its query), or an optional of one.
@propertyWrapper
public final class IntentParameter<Value: Sendable>: Codable, Sendable {
    let value: Mutex<Value?>
    /// An entity's identifier, read and not yet looked up by its query.
    let pendingEntity = Mutex<JSONValue?>(nil)
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

    /// Encodes the value (`null` when unset; an entity's identifier for an entity).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        guard let current = value.withLock({ $0 }), !ParameterValues.isNone(current) else {
            if let pending = pendingEntity.withLock({ $0 }) {
                try container.encode(pending)
            } else {
                try container.encodeNil()
            }
            return
        }
        if let entity = current as? any AppEntity {
            try ParameterValues.encodeIdentifier(of: entity, in: &container)
        } else if let encodable = current as? any Encodable {
            try container.encode(encodable)
        } else {
            throw EncodingError.invalidValue(
                current,
                .init(
                    codingPath: encoder.codingPath,
                    debugDescription: "\(Value.self) is neither Codable nor an AppEntity"
                )
            )
        }
    }

    /// Decodes the value; an entity's identifier is kept until the intent is configured
    /// (its query is asked then).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        title = nil
        parameterDescription = nil
        defaultValue = nil
        options = nil
        if ParameterValues.entityType(of: Value.self) != nil {
            value = Mutex(nil)
            if !container.decodeNil() {
                let identifier = try container.decode(JSONValue.self)
                pendingEntity.withLock { $0 = identifier }
            }
        } else if let type = Value.self as? any Decodable.Type, let decoded = try container.decode(type) as? Value {
            value = Mutex(decoded)
        } else {
            throw DecodingError.typeMismatch(
                Value.self,
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "\(Value.self) is neither Codable nor an AppEntity"
                )
            )
        }
    }
}

/// What a parameter's value is, seen through `Optional`.
enum ParameterValues {
    /// Whether `value` is an optional holding nothing.
    static func isNone(_ value: Any) -> Bool {
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional && mirror.children.isEmpty
    }

    /// The entity type a parameter of `type` holds (seen through `Optional`), if it holds one.
    static func entityType(of type: Any.Type) -> (any AppEntity.Type)? {
        let base = (type as? any OptionalParameterValue.Type)?.wrappedType ?? type
        return base as? any AppEntity.Type
    }

    /// Encodes an entity as its identifier.
    static func encodeIdentifier(of entity: some AppEntity, in container: inout any SingleValueEncodingContainer) throws
    {
        try container.encode(entity.id)
    }
}

/// App Intents' name for an intent's parameter: `@Parameter(title: "Name") var name: String`.
public typealias Parameter = IntentParameter
