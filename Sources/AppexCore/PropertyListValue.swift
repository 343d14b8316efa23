public import Foundation

/// A property-list value: what an `Info.plist`, an entitlements file or an
/// `.appextensionpoint` file may hold, as a `Sendable` Swift value.
public enum PropertyListValue: Hashable, Sendable {
    case string(String)
    case integer(Int)
    case real(Double)
    case boolean(Bool)
    case date(Date)
    case data(Data)
    case array([PropertyListValue])
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
    /// Reads a property list dictionary in XML or binary form (what ``PropertyListFormat``
    /// writes).
    ///
    /// - Throws: ``AppexError`` `coding`, saying why the bytes are not one.
    public static func dictionary(fromPropertyList bytes: [UInt8]) throws(AppexError) -> [String: PropertyListValue] {
        do { return try readDictionary(from: bytes) } catch {
            throw AppexError(.coding, "not a property list dictionary: \(error.reason)")
        }
    }

    /// Reads a property list in XML or binary form.
    ///
    /// - Returns: the top-level dictionary.
    /// - Throws: a message that says why the bytes are not a property list dictionary.
    static func readDictionary(from bytes: [UInt8]) throws(PropertyListReadError) -> [String: PropertyListValue] {
        if bytes.isEmpty { throw PropertyListReadError(reason: "the file is empty") }
        // Built bundles' plists are binary: read those without Foundation when we can. What the
        // fast reader refuses, Foundation's reader decides.
        if BinaryPropertyList.isBinary(bytes) {
            do {
                let value = try BinaryPropertyList.parse(bytes)
                guard case .dictionary(let dictionary) = value else {
                    throw PropertyListReadError(reason: "the top-level value is \(value.typeName), expected dictionary")
                }
                return dictionary
            } catch let failure as BinaryPropertyList.Failure where !failure.mayFallBack {
                throw PropertyListReadError(reason: "not a valid binary property list (\(failure.reason))")
            } catch let error as PropertyListReadError {
                throw error
            } catch {
                // Unsupported by the fast reader: Foundation decides below.
            }
        }
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        } catch {
            throw PropertyListReadError(reason: "not a property list (\(Self.shortReason(error)))")
        }
        var budget = BinaryPropertyList.maximumValues
        guard let converted = PropertyListValue(foundationObject: object, budget: &budget) else {
            throw PropertyListReadError(reason: budget < 0
                ? "the property list expands to more than \(BinaryPropertyList.maximumValues) values"
                : "the property list holds a value of an unknown type")
        }
        guard case .dictionary(let dictionary) = converted else {
            throw PropertyListReadError(reason: "the top-level value is \(converted.typeName), expected dictionary")
        }
        return dictionary
    }

    private static func shortReason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let debug = nsError.userInfo[NSDebugDescriptionErrorKey] as? String { return debug }
        return nsError.localizedDescription
    }

    /// Converts what `PropertyListSerialization` returns.
    init?(foundationObject object: Any) {
        var budget = Int.max
        self.init(foundationObject: object, budget: &budget)
    }

    /// Converts at most `budget` values; `nil` (with a negative budget) past that.
    init?(foundationObject object: Any, budget: inout Int) {
        budget -= 1
        if budget < 0 { return nil }
        switch object {
        case let value as String:
            self = .string(value)
        case let value as Data:
            self = .data(value)
        case let value as Date:
            self = .date(value)
        case let value as [Any]:
            var items: [PropertyListValue] = []
            items.reserveCapacity(value.count)
            for item in value {
                guard let converted = PropertyListValue(foundationObject: item, budget: &budget) else { return nil }
                items.append(converted)
            }
            self = .array(items)
        case let value as [String: Any]:
            var items: [String: PropertyListValue] = [:]
            items.reserveCapacity(value.count)
            for (key, item) in value {
                guard let converted = PropertyListValue(foundationObject: item, budget: &budget) else { return nil }
                items[key] = converted
            }
            self = .dictionary(items)
        case let value as NSNumber:
            self = Self.number(value)
        case let value as Bool:
            self = .boolean(value)
        case let value as Int:
            self = .integer(value)
        case let value as Double:
            self = .real(value)
        default:
            return nil
        }
    }

    private static func number(_ value: NSNumber) -> PropertyListValue {
        // A boolean arrives as an NSNumber whose type is `c` (char) on every platform.
        let type = String(cString: value.objCType)
        if type == "c" || type == "B" { return .boolean(value.boolValue) }
        if type == "f" || type == "d" { return .real(value.doubleValue) }
        return .integer(value.intValue)
    }

    /// The Foundation object `PropertyListSerialization` writes.
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

/// Why bytes could not be read as a property list.
struct PropertyListReadError: Error {
    var reason: String
}

/// The two encodings of a property list that Apple's tools write.
public enum PropertyListFormat: String, Sendable, CaseIterable {
    /// `<?xml ...><plist version="1.0">`, as Xcode writes source Info.plists.
    case xml
    /// `bplist00`, as Xcode writes built bundles.
    case binary

    /// Encodes a dictionary in this format.
    public func encode(_ dictionary: [String: PropertyListValue]) throws -> Data {
        let format: PropertyListSerialization.PropertyListFormat = self == .xml ? .xml : .binary
        return try PropertyListSerialization.data(
            fromPropertyList: PropertyListValue.dictionary(dictionary).foundationObject,
            format: format,
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
