/// The limits every property-list read in Appex enforces, binary or XML: bytes from a bundle, a
/// shared store or a peer may be hostile, and no reader should be made to chew on them.
enum PropertyListLimits {
    /// The most levels of arrays and dictionaries.
    static let maximumDepth = 256
    /// The most values a property list may expand to (binary objects may be shared, so a
    /// 150-byte file can describe 2^40 values).
    static let maximumValues = 100_000
    /// The largest property list read, in bytes (64 MiB).
    static let maximumBytes = 64 << 20
}

/// Why bytes could not be read as a property list, in words that name the object or line.
struct PropertyListReadError: Error {
    var reason: String

    static func tooLarge(_ count: Int) -> PropertyListReadError {
        PropertyListReadError(
            reason: "the property list is \(count) bytes, more than the \(PropertyListLimits.maximumBytes) read"
        )
    }
    static let tooDeep = PropertyListReadError(
        reason: "the property list nests more than \(PropertyListLimits.maximumDepth) levels deep"
    )
    static let tooManyValues = PropertyListReadError(
        reason: "the property list expands to more than \(PropertyListLimits.maximumValues) values"
    )
}

extension PropertyListValue {
    /// Reads a property list in XML or binary form with Appex's own readers.
    ///
    /// Unlike Foundation's `PropertyListSerialization`, this never crashes on hostile bytes: every
    /// object type is read or refused by name (sets, UIDs, null), nesting is limited to 256
    /// levels, a file may expand to at most 100,000 values and be at most 64 MiB, a dictionary
    /// may not repeat a key, and XML may not declare entities. See ``PropertyListFormat``.
    ///
    /// - Parameters:
    ///   - bytes: the property list's bytes.
    ///   - format: the form the bytes must have; `nil` (the default) tells it from the bytes.
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalid-property-list`, saying what is wrong and where (the
    ///   binary object and its byte offset, or the XML line and column).
    public init(propertyList bytes: [UInt8], format: PropertyListFormat? = nil) throws(AppexError) {
        do { self = try Self.read(bytes, format: format) } catch {
            throw AppexError(.invalidPropertyList, "not a property list: \(error.reason)")
        }
    }

    /// Reads a property list dictionary in XML or binary form (what ``PropertyListFormat``
    /// writes), as ``init(propertyList:format:)`` does.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalid-property-list`, saying why the bytes are not one.
    public static func dictionary(fromPropertyList bytes: [UInt8]) throws(AppexError) -> [String: PropertyListValue] {
        do { return try readDictionary(from: bytes) } catch {
            throw AppexError(.invalidPropertyList, "not a property list dictionary: \(error.reason)")
        }
    }

    /// Reads a property list whose top-level value must be a dictionary.
    static func readDictionary(from bytes: [UInt8]) throws(PropertyListReadError) -> [String: PropertyListValue] {
        let value = try read(bytes, format: nil)
        guard case .dictionary(let dictionary) = value else {
            throw PropertyListReadError(reason: "the top-level value is \(value.typeName), expected dictionary")
        }
        return dictionary
    }

    /// Reads a property list in `format`, or the form its first bytes show.
    static func read(_ bytes: [UInt8], format: PropertyListFormat?) throws(PropertyListReadError) -> PropertyListValue {
        if bytes.isEmpty { throw PropertyListReadError(reason: "the file is empty") }
        switch format {
        case .binary:
            return try BinaryPropertyList.parse(bytes)
        case .xml:
            return try XMLPropertyList.parse(bytes)
        case nil:
            if bytes.starts(with: "bplist".utf8) { return try BinaryPropertyList.parse(bytes) }
            if XMLPropertyList.isXML(bytes) { return try XMLPropertyList.parse(bytes) }
            throw PropertyListReadError(reason: "neither a binary (bplist00) nor an XML property list")
        }
    }
}
