public import Foundation

/// A property-list value: what an `Info.plist`, an entitlements file or an
/// `.appextensionpoint` file may hold, as a `Sendable` Swift value.
public enum PropertyListValue: Hashable, Sendable {
    /// A string (`<string>`).
    case string(String)
    /// An integer (`<integer>`), within `Int`'s range.
    case integer(Int)
    /// A floating-point number (`<real>`).
    case real(Double)
    /// A boolean (`<true/>` or `<false/>`).
    case boolean(Bool)
    /// A date (`<date>`).
    case date(Date)
    /// Bytes (`<data>`).
    case data(Data)
    /// An array of values (`<array>`).
    case array([PropertyListValue])
    /// A dictionary with string keys (`<dict>`).
    case dictionary([String: PropertyListValue])

    /// The plist type's name as Apple's documentation spells it (`string`, `dictionary`, ...).
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .boolean: "boolean"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The boolean, when this is a boolean.
    public var boolValue: Bool? {
        if case .boolean(let value) = self { value } else { nil }
    }

    /// The integer, when this is an integer.
    public var integerValue: Int? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// The bytes, when this is data.
    public var dataValue: Data? {
        if case .data(let value) = self { value } else { nil }
    }

    /// The dictionary, when this is a dictionary.
    public var dictionaryValue: [String: PropertyListValue]? {
        if case .dictionary(let value) = self { value } else { nil }
    }

    /// The array, when this is an array.
    public var arrayValue: [PropertyListValue]? {
        if case .array(let value) = self { value } else { nil }
    }
}

extension PropertyListValue {
    /// The Foundation object `PropertyListSerialization` writes (writing only: Appex never hands
    /// bytes it did not make to Foundation's reader).
    var foundationObject: Any {
        switch self {
        case .string(let value): value
        case .integer(let value): value
        case .real(let value): value
        case .boolean(let value): value
        case .date(let value): value
        case .data(let value): value
        case .array(let value): value.map(\.foundationObject)
        case .dictionary(let value): value.mapValues(\.foundationObject)
        }
    }
}

/// The two encodings of a property list that Apple's tools write.
public enum PropertyListFormat: String, Sendable, CaseIterable {
    /// `<?xml ...><plist version="1.0">`, as Xcode writes source Info.plists.
    case xml
    /// `bplist00`, as Xcode writes built bundles.
    case binary

    /// Encodes a dictionary in this format. The binary form's bytes depend only on the value
    /// (keys sorted), so a bundle made twice is the same bundle.
    public func encode(_ dictionary: [String: PropertyListValue]) throws -> Data {
        if self == .binary { return Data(BinaryPropertyListWriter.encode(.dictionary(dictionary))) }
        return try PropertyListSerialization.data(
            fromPropertyList: PropertyListValue.dictionary(dictionary).foundationObject,
            format: .xml,
            options: 0
        )
    }
}

extension PropertyListValue: Encodable {
    /// Encodes as the natural JSON value (dates as ISO 8601 strings, data as base64).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .real(let value): try container.encode(value)
        case .boolean(let value): try container.encode(value)
        case .date(let value): try container.encode(value.ISO8601Format())
        case .data(let value): try container.encode(value.base64EncodedString())
        case .array(let value): try container.encode(value)
        case .dictionary(let value): try container.encode(value)
        }
    }
}
