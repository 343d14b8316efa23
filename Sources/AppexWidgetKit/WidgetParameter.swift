/// One parameter of a configurable widget, as the widget host learns it: what the desktop's
/// "Edit widget" form and `appex widgets configure` show and check a value against.
///
/// Values are JSON text (`"😃"`, `3`, `true`), as the intent's `Codable` form has them.
public struct WidgetParameter: Sendable, Hashable, Codable {
    /// What kind of value the parameter holds: how a form asks for it.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Text (`String`).
        case text
        /// A whole number (`Int`).
        case integer
        /// A number (`Double`).
        case number
        /// On or off (`Bool`).
        case boolean
        /// A date (`Date`), as `JSONEncoder` writes one: seconds since 1 January 2001.
        case date
        /// A web address (`URL`).
        case url
        /// One of ``WidgetParameter/options`` (an `AppEnum`, or a value an options provider lists).
        case choice
    }

    /// One value a person can pick.
    public struct Option: Sendable, Hashable, Codable {
        /// The value, as JSON text.
        public var value: String
        /// How a person reads it.
        public var title: String

        /// An option of `value` (JSON text), read as `title`.
        public init(value: String, title: String) {
            self.value = value
            self.title = title
        }
    }

    /// The property's name: the key of the intent's `Codable` form.
    public var name: String
    /// The parameter's title (the name when it has none).
    public var title: String
    /// Its kind.
    public var kind: Kind
    /// Its default value, as JSON text; `nil` when it has none.
    public var defaultValue: String?
    /// Whether it may be left unset (an optional property).
    public var isOptional: Bool
    /// The values to pick from; empty when any value of the kind will do.
    public var options: [Option]

    /// Describes a parameter.
    public init(name: String, title: String, kind: Kind, defaultValue: String?, isOptional: Bool, options: [Option]) {
        self.name = name
        self.title = title
        self.kind = kind
        self.defaultValue = defaultValue
        self.isOptional = isOptional
        self.options = options
    }
}

/// A configuration a widget suggests (its provider's `recommendations()`): the widget desktop
/// offers these as preset choices.
public struct WidgetRecommendation: Sendable, Hashable, Codable {
    /// What the preset shows, in a few words.
    public var description: String
    /// The configuration: a JSON object of parameter values by name.
    public var configuration: String

    /// A preset of `configuration` (a JSON object), described as `description`.
    public init(description: String, configuration: String) {
        self.description = description
        self.configuration = configuration
    }
}
