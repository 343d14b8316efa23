/// How an intent's parameters read as a sentence, as App Intents' `ParameterSummary`:
///
/// ```swift
/// static var parameterSummary: some ParameterSummary {
///     When(\.$showsAll, .equalTo, true) {
///         Summary("Every hero")
///     } otherwise: {
///         Summary("Show \(\.$hero)") { \.$showsStats }
///     }
/// }
/// ```
///
/// It compiles as on Apple platforms and is kept by the intent; the widget desktop's "Edit
/// widget" form lists every parameter, in the order the intent declares them.
public protocol ParameterSummary: Sendable {}

/// An intent with no summary of its own.
public struct NoParameterSummary: ParameterSummary {
    /// No summary.
    public init() {}
}

/// A sentence that names an intent's parameters (`"Show \(\.$hero)"`), and the parameters
/// listed below it.
public struct Summary<Intent: AppIntent>: ParameterSummary {
    /// The sentence, with each named parameter as `${name}`.
    public let text: String

    /// A summary that reads `format`.
    public init(_ format: SummaryText<Intent>) { text = format.text }

    /// A summary that reads `format`, over the parameters `table` lists.
    public init(_ format: SummaryText<Intent>, @ParameterListBuilder<Intent> _ table: () -> [PartialKeyPath<Intent>]) {
        text = format.text
        _ = table()
    }
}

/// The sentence of a ``Summary``: literal text and parameters' key paths (`\.$hero`).
public struct SummaryText<Intent: AppIntent>: ExpressibleByStringInterpolation, Sendable {
    let text: String

    /// Text with parameters in it.
    public init(stringInterpolation: Interpolation) { text = stringInterpolation.text }
    /// Text alone.
    public init(stringLiteral value: String) { text = value }

    /// Builds a ``SummaryText``.
    public struct Interpolation: StringInterpolationProtocol, Sendable {
        var text = ""
        /// Room for the literal's parts.
        public init(literalCapacity: Int, interpolationCount: Int) {}
        /// Literal text.
        public mutating func appendLiteral(_ literal: String) { text += literal }
        /// A parameter, as `${name}`.
        public mutating func appendInterpolation<Value>(_ keyPath: KeyPath<Intent, IntentParameter<Value>>) {
            text += "${\(Self.name(of: keyPath))}"
        }

        /// The property's name: found by the parameter's identity in a new intent (a key path
        /// does not carry names on Linux).
        static func name<Value>(of keyPath: KeyPath<Intent, IntentParameter<Value>>) -> String {
            let intent = Intent()
            let parameter = intent[keyPath: keyPath]
            let label = Mirror(reflecting: intent).children.first { ($0.value as AnyObject) === parameter }?.label
            return label.map { String($0.dropFirst()) } ?? "?"
        }
    }
}

/// One summary or another, by a parameter's value, as App Intents' `When`.
public struct When<Intent: AppIntent>: ParameterSummary {
    /// The summary shown when the parameter is equal to the value.
    public init<Value: Equatable, Then: ParameterSummary, Otherwise: ParameterSummary>(
        _ keyPath: KeyPath<Intent, IntentParameter<Value>>,
        _ comparison: EquatableComparisonOperator,
        _ value: Value,
        @ParameterSummaryBuilder<Intent> _ then: () -> Then,
        @ParameterSummaryBuilder<Intent> otherwise: () -> Otherwise
    ) {
        _ = (then(), otherwise())
    }

    /// The summary shown in a widget of one family or another (`When(widgetFamily: .equalTo, .systemSmall)`).
    public init<Then: ParameterSummary, Otherwise: ParameterSummary>(
        widgetFamily comparison: EquatableComparisonOperator,
        _ family: WidgetFamily,
        @ParameterSummaryBuilder<Intent> _ then: () -> Then,
        @ParameterSummaryBuilder<Intent> otherwise: () -> Otherwise
    ) {
        _ = (then(), otherwise())
    }
}

/// How a ``When`` compares.
public enum EquatableComparisonOperator: Sendable, Hashable {
    /// Equal.
    case equalTo
    /// Not equal.
    case notEqualTo
}

/// Builds an intent's ``ParameterSummary``.
@resultBuilder
public enum ParameterSummaryBuilder<Intent: AppIntent> {
    /// A summary.
    public static func buildExpression(_ summary: Summary<Intent>) -> Summary<Intent> { summary }
    /// A choice of summaries.
    public static func buildExpression(_ summary: When<Intent>) -> When<Intent> { summary }
    /// No summary.
    public static func buildExpression(_ summary: NoParameterSummary) -> NoParameterSummary { summary }
    /// The one summary.
    public static func buildBlock<Content: ParameterSummary>(_ content: Content) -> Content { content }
}

/// Builds the list of parameters under a ``Summary``.
@resultBuilder
public enum ParameterListBuilder<Intent: AppIntent> {
    /// A parameter.
    public static func buildExpression<Value>(
        _ keyPath: KeyPath<Intent, IntentParameter<Value>>
    )
        -> [PartialKeyPath<Intent>]
    {
        [keyPath]
    }
    /// The parameters, in order.
    public static func buildBlock(_ parts: [PartialKeyPath<Intent>]...) -> [PartialKeyPath<Intent>] {
        parts.flatMap { $0 }
    }
}
