import Foundation

/// A reader for XML property lists (`<plist version="1.0">`), the form of source Info.plists
/// and entitlements files.
///
/// Written for the property-list subset of XML, as CoreFoundation's own XML plist parser is,
/// rather than on a general XML parser: it reads the prolog (`<?xml?>`, comments, a `DOCTYPE`
/// without an internal subset), one value in an optional `<plist>` element, and the elements
/// `dict`, `key`, `array`, `string`, `integer`, `real`, `true`, `false`, `date` and `data`;
/// text may hold the five predefined entities, character references and `CDATA` sections.
/// Anything else is refused by name: other elements, unknown entities, entity declarations (so
/// no "billion laughs"), encodings other than UTF-8, a repeated dictionary key, a key without a
/// value, text that is not UTF-8. The limits are the binary reader's (``PropertyListLimits``).
struct XMLPropertyList {
    private let bytes: [UInt8]
    private var index = 0
    private var budget = PropertyListLimits.maximumValues

    /// Whether `bytes` look like XML: after an optional UTF-8 byte-order mark and white space,
    /// a `<`.
    static func isXML(_ bytes: [UInt8]) -> Bool {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
        return index < bytes.count && bytes[index] == UInt8(ascii: "<")
    }

    /// Parses `bytes` and returns the top value.
    static func parse(_ bytes: [UInt8]) throws(PropertyListReadError) -> PropertyListValue {
        guard bytes.count <= PropertyListLimits.maximumBytes else { throw .tooLarge(bytes.count) }
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
            throw PropertyListReadError(reason: "the XML is UTF-16 (a byte-order mark), only UTF-8 is supported")
        }
        var reader = XMLPropertyList(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3 }
        return try reader.document()
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: - Structure

    private mutating func document() throws(PropertyListReadError) -> PropertyListValue {
        try prolog()
        guard peek(UInt8(ascii: "<")) else { throw failure("expected an element") }
        let start = index
        index += 1
        let name = try elementName()
        let value: PropertyListValue
        if name == "plist" {
            let empty = try attributes(of: name)
            guard !empty else { throw failure("the plist element holds no value", at: start) }
            try miscellany()
            guard let inner = try valueIfPresent(depth: 0) else {
                throw failure("the plist element holds no value", at: start)
            }
            value = inner
            try miscellany()
            try closingTag("plist")
        } else {
            value = try self.value(named: name, at: start, depth: 0)
        }
        try miscellany()
        guard index == bytes.count else { throw failure("content after the property list's end") }
        return value
    }

    /// The XML declaration, comments, processing instructions and a `DOCTYPE`, in any order.
    private mutating func prolog() throws(PropertyListReadError) {
        while true {
            skipWhitespace()
            if starts(with: "<?") {
                let start = index
                // Searched after the `<?`: in `<?>`, the `?` of `<?` is no terminator.
                guard let end = find("?>", from: start + 2) else {
                    throw failure("an unterminated processing instruction", at: start)
                }
                let instruction = bytes[(start + 2)..<end]
                if instruction.starts(with: "xml".utf8) { try checkEncoding(instruction, at: start) }
                index = end + 2
            } else if starts(with: "<!--") {
                try comment()
            } else if starts(with: "<!DOCTYPE") {
                let start = index
                // A DOCTYPE is read only up to its `>`; an internal subset (`[`) could declare
                // entities, which a property list never needs.
                while index < bytes.count, bytes[index] != UInt8(ascii: ">") {
                    if bytes[index] == UInt8(ascii: "[") {
                        throw failure(
                            "a DOCTYPE with an internal subset (entity declarations) is not supported",
                            at: start
                        )
                    }
                    if bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
                        let quote = bytes[index]
                        index += 1
                        while index < bytes.count, bytes[index] != quote { index += 1 }
                    }
                    index += 1
                }
                guard index < bytes.count else { throw failure("an unterminated DOCTYPE", at: start) }
                index += 1
            } else {
                return
            }
        }
    }

    /// Refuses an `encoding` other than UTF-8 (or its subset ASCII) in the XML declaration.
    private func checkEncoding(_ declaration: ArraySlice<UInt8>, at start: Int) throws(PropertyListReadError) {
        let text = String(decoding: declaration, as: UTF8.self)
        guard let range = text.range(of: "encoding") else { return }
        let rest = text[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return }
        let name = rest.dropFirst().prefix { $0 != quote }
        guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(name.lowercased()) else {
            throw failure("the XML declares the encoding \"\(name)\", only UTF-8 is supported", at: start)
        }
    }

    /// White space, comments and processing instructions between elements.
    private mutating func miscellany() throws(PropertyListReadError) {
        while true {
            skipWhitespace()
            if starts(with: "<!--") {
                try comment()
            } else if starts(with: "<?") {
                let start = index
                guard let end = find("?>", from: start + 2) else {
                    throw failure("an unterminated processing instruction", at: start)
                }
                index = end + 2
            } else {
                return
            }
        }
    }

    private mutating func comment() throws(PropertyListReadError) {
        let start = index
        guard let end = find("-->", from: index + 4) else { throw failure("an unterminated comment", at: start) }
        index = end + 3
    }

    /// The next value, or `nil` at a closing tag.
    private mutating func valueIfPresent(depth: Int) throws(PropertyListReadError) -> PropertyListValue? {
        guard peek(UInt8(ascii: "<")) else {
            throw index < bytes.count
                ? failure("text outside a value element") : failure("the document ends inside an element")
        }
        if starts(with: "</") { return nil }
        let start = index
        index += 1
        let name = try elementName()
        return try value(named: name, at: start, depth: depth)
    }

    /// The value of the element `name`, whose name has just been read.
    private mutating func value(
        named name: String,
        at start: Int,
        depth: Int
    ) throws(PropertyListReadError) -> PropertyListValue {
        guard depth < PropertyListLimits.maximumDepth else { throw .tooDeep }
        budget -= 1
        guard budget >= 0 else { throw .tooManyValues }
        let empty = try attributes(of: name)
        switch name {
        case "dict":
            var entries: [String: PropertyListValue] = [:]
            if empty { return .dictionary(entries) }
            while true {
                try miscellany()
                let keyStart = index
                guard let keyElement = try nextElementName() else { break }
                guard keyElement == "key" else {
                    throw failure("a dictionary holds <\(keyElement)> where a <key> belongs", at: keyStart)
                }
                budget -= 1
                guard budget >= 0 else { throw .tooManyValues }
                let key = try attributes(of: "key") ? "" : try text(closing: "key")
                try miscellany()
                guard let value = try valueIfPresent(depth: depth + 1) else {
                    throw failure("the dictionary key \"\(key)\" has no value", at: keyStart)
                }
                guard entries.updateValue(value, forKey: key) == nil else {
                    throw failure("a dictionary repeats the key \"\(key)\"", at: keyStart)
                }
            }
            try closingTag("dict")
            return .dictionary(entries)
        case "array":
            var items: [PropertyListValue] = []
            if empty { return .array(items) }
            while true {
                try miscellany()
                guard let item = try valueIfPresent(depth: depth + 1) else { break }
                items.append(item)
            }
            try closingTag("array")
            return .array(items)
        case "string":
            return .string(empty ? "" : try text(closing: name))
        case "key":
            throw failure("a <key> outside a dictionary", at: start)
        case "true", "false":
            if !empty {
                skipWhitespace()
                try closingTag(name)
            }
            return .boolean(name == "true")
        case "integer":
            let text = empty ? "" : try self.text(closing: name)
            return .integer(try integer(text, at: start))
        case "real":
            let text = (empty ? "" : try self.text(closing: name)).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let value = Double(text) else {
                throw failure("<real> holds \"\(text.prefix(40))\", which is not a number", at: start)
            }
            return .real(value)
        case "date":
            let text = (empty ? "" : try self.text(closing: name)).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let date = Self.date(text) else {
                throw failure("<date> holds \"\(text.prefix(40))\", which is not YYYY-MM-DDTHH:MM:SSZ", at: start)
            }
            return .date(date)
        case "data":
            let text = empty ? "" : try self.text(closing: name)
            let base64 = text.filter { !$0.isWhitespace }
            guard let data = Data(base64Encoded: base64) else {
                throw failure("<data> does not hold base64", at: start)
            }
            return .data(data)
        default:
            throw failure("<\(name.prefix(40))> is not a property-list element", at: start)
        }
    }

    /// The name of the element that starts here, consumed up to its name; `nil` at a closing tag.
    private mutating func nextElementName() throws(PropertyListReadError) -> String? {
        guard peek(UInt8(ascii: "<")) else {
            throw index < bytes.count
                ? failure("text outside a value element") : failure("the document ends inside an element")
        }
        if starts(with: "</") { return nil }
        index += 1
        return try elementName()
    }

    private mutating func elementName() throws(PropertyListReadError) -> String {
        let start = index
        while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
        guard index > start else { throw failure("an element without a name", at: start - 1) }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// Skips an element's attributes. - Returns: whether the tag closed itself (`/>`).
    private mutating func attributes(of name: String) throws(PropertyListReadError) -> Bool {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: ">"):
                index += 1
                return false
            case UInt8(ascii: "/"):
                guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ">") else {
                    throw failure("a stray / in <\(name)>")
                }
                index += 2
                return true
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let quote = bytes[index]
                let start = index
                index += 1
                while index < bytes.count, bytes[index] != quote { index += 1 }
                guard index < bytes.count else {
                    throw failure("an unterminated attribute value in <\(name)>", at: start)
                }
                index += 1
            case UInt8(ascii: "<"):
                throw failure("an unterminated <\(name)> tag")
            default:
                index += 1
            }
        }
        throw failure("an unterminated <\(name)> tag")
    }

    private mutating func closingTag(_ name: String) throws(PropertyListReadError) {
        let start = index
        guard starts(with: "</") else { throw failure("expected </\(name)>") }
        index += 2
        let found = try elementName()
        guard found == name else { throw failure("</\(found.prefix(40))> closes <\(name)>", at: start) }
        skipWhitespace()
        guard peek(UInt8(ascii: ">")) else { throw failure("an unterminated </\(name)> tag", at: start) }
        index += 1
    }

    // MARK: - Text

    /// Character data up to `</name>`, with entities, character references and CDATA sections
    /// resolved; comments are skipped.
    private mutating func text(closing name: String) throws(PropertyListReadError) -> String {
        let start = index
        var decoded: [UInt8] = []
        var plain = true  // no entity or CDATA: the text is one slice of the input
        var plainEnd = index
        while true {
            guard index < bytes.count else { throw failure("<\(name)> is never closed", at: start) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") {
                if starts(with: "</") { break }
                if starts(with: "<![CDATA[") {
                    if plain {
                        decoded.append(contentsOf: bytes[start..<index])
                        plain = false
                    }
                    let open = index
                    guard let end = find("]]>", from: index + 9) else {
                        throw failure("an unterminated CDATA section", at: open)
                    }
                    decoded.append(contentsOf: bytes[(index + 9)..<end])
                    index = end + 3
                    continue
                }
                if starts(with: "<!--") {
                    if plain {
                        decoded.append(contentsOf: bytes[start..<index])
                        plain = false
                    }
                    try comment()
                    continue
                }
                throw failure("<\(name)> holds an element; it may hold only text")
            }
            if byte == UInt8(ascii: "&") {
                if plain {
                    decoded.append(contentsOf: bytes[start..<index])
                    plain = false
                }
                try entity(into: &decoded)
                continue
            }
            if !plain { decoded.append(byte) }
            index += 1
            plainEnd = index
        }
        let textBytes = plain ? Array(bytes[start..<plainEnd]) : decoded
        try closingTag(name)
        guard let string = String(validating: textBytes, as: UTF8.self) else {
            throw failure("<\(name)> holds text that is not valid UTF-8", at: start)
        }
        return string
    }

    /// Resolves the entity or character reference at `index` (`&...;`).
    private mutating func entity(into decoded: inout [UInt8]) throws(PropertyListReadError) {
        let start = index
        var end = index + 1
        while end < bytes.count, end - start <= 12, bytes[end] != UInt8(ascii: ";") { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: ";") else {
            throw failure("an unterminated entity reference", at: start)
        }
        let name = String(decoding: bytes[(start + 1)..<end], as: UTF8.self)
        index = end + 1
        switch name {
        case "lt": decoded.append(UInt8(ascii: "<"))
        case "gt": decoded.append(UInt8(ascii: ">"))
        case "amp": decoded.append(UInt8(ascii: "&"))
        case "quot": decoded.append(UInt8(ascii: "\""))
        case "apos": decoded.append(UInt8(ascii: "'"))
        default:
            var code: UInt32?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                code = UInt32(name.dropFirst(2), radix: 16)
            } else if name.hasPrefix("#"), name.dropFirst().allSatisfy(\.isASCII) {
                code = UInt32(name.dropFirst(), radix: 10)
            } else {
                throw failure(
                    "the entity &\(name.prefix(12)); is not one of XML's five (&lt; &gt; &amp; &quot; &apos;)",
                    at: start
                )
            }
            guard let code, code != 0, let scalar = Unicode.Scalar(code) else {
                throw failure("the character reference &\(name.prefix(12)); names no Unicode character", at: start)
            }
            decoded.append(contentsOf: Array(String(Character(scalar)).utf8))
        }
    }

    // MARK: - Scalars

    private func integer(_ text: String, at start: Int) throws(PropertyListReadError) -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        var digits = Substring(trimmed)
        var negative = false
        if digits.first == "-" || digits.first == "+" {
            negative = digits.first == "-"
            digits = digits.dropFirst()
        }
        var radix = 10
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            radix = 16
            digits = digits.dropFirst(2)
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isHexDigit && (radix == 16 || $0.isNumber) }),
            let magnitude = UInt64(digits, radix: radix)
        else { throw failure("<integer> holds \"\(trimmed.prefix(40))\", which is not an integer", at: start) }
        // As CoreFoundation reads it: a magnitude of up to 2^64 - 1; a value that does not fit
        // `Int` is refused by name, not wrapped.
        let value = negative ? -Int128(magnitude) : Int128(magnitude)
        guard let fitting = Int(exactly: value) else {
            throw failure("<integer> holds \(trimmed.prefix(40)), which does not fit in 64 bits", at: start)
        }
        return fitting
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, as Apple's tools write dates, in UTC.
    static func date(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    // MARK: - Bytes

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
    }

    private func peek(_ byte: UInt8) -> Bool {
        index < bytes.count && bytes[index] == byte
    }

    private func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index <= bytes.count - count else { return false }
        return text.withUTF8Buffer { prefix in
            for offset in 0..<count where bytes[index + offset] != prefix[offset] { return false }
            return true
        }
    }

    /// Where `text` next starts at or after `from` (default: `index`).
    private func find(_ text: StaticString, from: Int? = nil) -> Int? {
        let count = text.utf8CodeUnitCount
        return text.withUTF8Buffer { needle -> Int? in
            var position = from ?? index
            while position <= bytes.count - count {
                if bytes[position] == needle[0] {
                    var matches = true
                    for offset in 1..<count where bytes[position + offset] != needle[offset] {
                        matches = false
                        break
                    }
                    if matches { return position }
                }
                position += 1
            }
            return nil
        }
    }

    /// A refusal that says where: the line and column of `at` (default: the current position).
    private func failure(_ reason: String, at position: Int? = nil) -> PropertyListReadError {
        let position = min(position ?? index, bytes.count)
        var line = 1
        var lineStart = 0
        for offset in 0..<position where bytes[offset] == 0x0A {
            line += 1
            lineStart = offset + 1
        }
        return PropertyListReadError(reason: "\(reason) (line \(line), column \(position - lineStart + 1))")
    }
}
