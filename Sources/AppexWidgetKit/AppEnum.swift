/// An enumeration a parameter can hold, as App Intents' `AppEnum`: a person picks one of its
/// cases, each shown by its display representation.
///
/// ```swift
/// enum Flavor: String, AppEnum {
///     case vanilla, chocolate
///     static let typeDisplayRepresentation: TypeDisplayRepresentation = "Flavor"
///     static let caseDisplayRepresentations: [Flavor: DisplayRepresentation] = [
///         .vanilla: "Vanilla", .chocolate: "Chocolate",
///     ]
/// }
/// ```
public protocol AppEnum: RawRepresentable, CaseIterable, Hashable, Codable, Sendable
where RawValue: Codable & Sendable {
    /// The type's name, as a person reads it.
    static var typeDisplayRepresentation: TypeDisplayRepresentation { get }
    /// Each case as a person reads it; a case without one shows its raw value.
    static var caseDisplayRepresentations: [Self: DisplayRepresentation] { get }
}

/// How a value is shown to a person, as App Intents' `DisplayRepresentation`: a title, and a
/// subtitle that may be left out. Written as a string literal for a title alone.
public struct DisplayRepresentation: Sendable, Hashable, ExpressibleByStringInterpolation {
    /// The title.
    public var title: LocalizedStringResource
    /// A second line; `nil` for none.
    public var subtitle: LocalizedStringResource?

    /// A representation of `title`, and `subtitle` if any.
    public init(title: LocalizedStringResource, subtitle: LocalizedStringResource? = nil) {
        self.title = title
        self.subtitle = subtitle
    }

    /// A representation whose title is `value`.
    public init(stringLiteral value: String) { self.init(title: LocalizedStringResource(value)) }
}

/// How a type is named to a person, as App Intents' `TypeDisplayRepresentation`. Written as a
/// string literal.
public struct TypeDisplayRepresentation: Sendable, Hashable, ExpressibleByStringInterpolation {
    /// The type's name.
    public var name: LocalizedStringResource

    /// A representation named `name`.
    public init(name: LocalizedStringResource) { self.name = name }

    /// A representation named `value`.
    public init(stringLiteral value: String) { name = LocalizedStringResource(value) }
}
