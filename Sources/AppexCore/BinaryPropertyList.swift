import Foundation

/// A reader for Apple's binary property lists (`bplist00`), the form of built bundles'
/// Info.plists and of stored defaults values.
///
/// It is the only binary reader in an Appex process: no byte from a bundle, a store or a peer
/// reaches Foundation's `PropertyListSerialization`, which on Linux crashes on some inputs (a
/// binary plist holding a set segfaults while it is bridged). Every object type of the format is
/// read or refused by name:
///
/// | marker | object | read as |
/// |---|---|---|
/// | `0x08`, `0x09` | false, true | ``PropertyListValue/boolean(_:)`` |
/// | `0x1n` | integer of 2^n bytes (1, 2, 4 unsigned; 8, 16 signed) | ``PropertyListValue/integer(_:)``; a 128-bit value outside `Int`'s range is refused |
/// | `0x22`, `0x23` | real of 4 or 8 bytes | ``PropertyListValue/real(_:)`` |
/// | `0x33` | date | ``PropertyListValue/date(_:)`` |
/// | `0x4n` | data | ``PropertyListValue/data(_:)`` |
/// | `0x5n`, `0x6n` | ASCII, UTF-16 string | ``PropertyListValue/string(_:)``; a non-ASCII byte or an unpaired surrogate is refused |
/// | `0xAn`, `0xDn` | array, dictionary | ``PropertyListValue/array(_:)``, ``PropertyListValue/dictionary(_:)``; a repeated key is refused |
/// | `0x00`, `0x0F`, `0x7n`, `0x8n`, `0xBn`, `0xCn` | null, fill, UTF-8 string, UID, ordered set, set | refused: not property-list values (UIDs belong to keyed archives) |
///
/// Every offset, count and reference is bounds-checked, nesting is limited, reference cycles are
/// refused, and a file may expand to at most ``PropertyListLimits/maximumValues`` values (objects
/// may be shared, so a 150-byte file can describe 2^40 of them).
struct BinaryPropertyList {
    private let bytes: [UInt8]
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let offsetTable: Int

    static func isBinary(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 8 && bytes[0..<8].elementsEqual("bplist00".utf8)
    }

    /// Parses `bytes` and returns the top object.
    static func parse(_ bytes: [UInt8]) throws(PropertyListReadError) -> PropertyListValue {
        guard bytes.count <= PropertyListLimits.maximumBytes else { throw .tooLarge(bytes.count) }
        guard isBinary(bytes) else {
            if bytes.count >= 6, bytes[0..<6].elementsEqual("bplist".utf8) {
                throw PropertyListReadError(
                    reason:
                        "binary property list version \"\(String(decoding: bytes[6..<min(8, bytes.count)], as: UTF8.self))\" is not supported (only bplist00)"
                )
            }
            throw PropertyListReadError(reason: "not a binary property list (no bplist00 header)")
        }
        guard bytes.count >= 8 + 32 else {
            throw PropertyListReadError(reason: "the file is too short for a binary property list's trailer")
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        guard let objectCount = Self.bigEndian(bytes, at: trailer + 8, size: 8),
            let top = Self.bigEndian(bytes, at: trailer + 16, size: 8),
            let offsetTable = Self.bigEndian(bytes, at: trailer + 24, size: 8),
            (1...8).contains(offsetSize), (1...8).contains(referenceSize),
            objectCount > 0, objectCount < UInt64(bytes.count), top < objectCount,
            offsetTable >= 8, offsetTable < UInt64(trailer),
            UInt64(trailer) - offsetTable >= objectCount * UInt64(offsetSize)
        else { throw PropertyListReadError(reason: "the trailer is malformed") }
        // As CoreFoundation does: the integer sizes must reach every offset and object, and
        // every offset must point into the object area.
        if offsetSize < 8, offsetTable >> UInt64(8 * offsetSize) != 0 {
            throw PropertyListReadError(reason: "the offset size cannot address the table")
        }
        if referenceSize < 8, objectCount >= UInt64(1) << UInt64(8 * referenceSize) {
            throw PropertyListReadError(reason: "the reference size cannot address every object")
        }
        for index in 0..<Int(objectCount) {
            guard let entry = Self.bigEndian(bytes, at: Int(offsetTable) + index * offsetSize, size: offsetSize),
                entry >= 8, entry < offsetTable
            else { throw PropertyListReadError(reason: "object \(index)'s offset is out of range") }
        }
        let reader = BinaryPropertyList(
            bytes: bytes,
            offsetSize: offsetSize,
            referenceSize: referenceSize,
            objectCount: Int(objectCount),
            offsetTable: Int(offsetTable)
        )
        var visiting = Set<Int>()
        var budget = PropertyListLimits.maximumValues
        return try reader.object(Int(top), depth: 0, visiting: &visiting, budget: &budget)
    }

    private init(bytes: [UInt8], offsetSize: Int, referenceSize: Int, objectCount: Int, offsetTable: Int) {
        self.bytes = bytes
        self.offsetSize = offsetSize
        self.referenceSize = referenceSize
        self.objectCount = objectCount
        self.offsetTable = offsetTable
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64? {
        guard offset >= 0, size <= 8, offset <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    private func object(
        _ index: Int,
        depth: Int,
        visiting: inout Set<Int>,
        budget: inout Int
    ) throws(PropertyListReadError) -> PropertyListValue {
        guard index < objectCount else { throw PropertyListReadError(reason: "an object reference is out of range") }
        guard depth < PropertyListLimits.maximumDepth else { throw .tooDeep }
        budget -= 1
        guard budget >= 0 else { throw .tooManyValues }
        guard let rawOffset = Self.bigEndian(bytes, at: offsetTable + index * offsetSize, size: offsetSize),
            rawOffset >= 8, rawOffset < UInt64(offsetTable)
        else { throw PropertyListReadError(reason: "object \(index)'s offset is out of range") }
        let offset = Int(rawOffset)
        let marker = bytes[offset]
        let info = Int(marker & 0x0f)
        func refuse(_ what: String) -> PropertyListReadError {
            PropertyListReadError(
                reason:
                    "object \(index) (marker 0x\(String(marker, radix: 16, uppercase: true)) at byte \(offset)) \(what)"
            )
        }
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .boolean(false)
            case 0x09: return .boolean(true)
            case 0x00: throw refuse("is null, which is not a property-list value")
            case 0x0F: throw refuse("is a fill byte, which is not a property-list value")
            default: throw refuse("is an unknown simple object")
            }
        case 0x1:
            switch info {
            case 0...2:
                guard let value = Self.bigEndian(bytes, at: offset + 1, size: 1 << info) else {
                    throw refuse("is an integer that runs past the end")
                }
                return .integer(Int(value))
            case 3:
                guard let value = Self.bigEndian(bytes, at: offset + 1, size: 8) else {
                    throw refuse("is an integer that runs past the end")
                }
                return .integer(Int(Int64(bitPattern: value)))
            case 4:
                // 128-bit, signed: CoreFoundation writes a UInt64 above Int64.max this way.
                guard let high = Self.bigEndian(bytes, at: offset + 1, size: 8),
                    let low = Self.bigEndian(bytes, at: offset + 9, size: 8)
                else { throw refuse("is an integer that runs past the end") }
                let value = Int128(Int64(bitPattern: high)) << 64 | Int128(low)
                guard let fitting = Int(exactly: value) else {
                    throw refuse("is the integer \(value), which does not fit in 64 bits")
                }
                return .integer(fitting)
            default:
                throw refuse("is an integer of \(1 << info) bytes (at most 16 exist)")
            }
        case 0x2:
            if info == 2, let bits = Self.bigEndian(bytes, at: offset + 1, size: 4) {
                return .real(Double(Float(bitPattern: UInt32(bits))))
            }
            if info == 3, let bits = Self.bigEndian(bytes, at: offset + 1, size: 8) {
                return .real(Double(bitPattern: bits))
            }
            throw refuse(
                info == 2 || info == 3
                    ? "is a real that runs past the end" : "is a real of \(1 << info) bytes (only 4 and 8 exist)"
            )
        case 0x3:
            guard marker == 0x33 else { throw refuse("is a date of the wrong size") }
            guard let bits = Self.bigEndian(bytes, at: offset + 1, size: 8) else {
                throw refuse("is a date that runs past the end")
            }
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits)))
        case 0x4:
            let (count, start) = try length(info, at: offset, index: index)
            guard count <= offsetTable - start else { throw refuse("is data that runs past the object table") }
            return .data(Data(bytes[start..<(start + count)]))
        case 0x5:
            let (count, start) = try length(info, at: offset, index: index)
            guard count <= offsetTable - start else { throw refuse("is a string that runs past the object table") }
            let slice = bytes[start..<(start + count)]
            if let bad = slice.first(where: { $0 >= 0x80 }) {
                throw refuse(
                    "is an ASCII string holding the non-ASCII byte 0x\(String(bad, radix: 16, uppercase: true))"
                )
            }
            return .string(String(decoding: slice, as: UTF8.self))
        case 0x6:
            let (count, start) = try length(info, at: offset, index: index)
            guard count <= (offsetTable - start) / 2 else {
                throw refuse("is a string that runs past the object table")
            }
            var units: [UInt16] = []
            units.reserveCapacity(count)
            for unit in 0..<count {
                units.append(UInt16(bytes[start + 2 * unit]) << 8 | UInt16(bytes[start + 2 * unit + 1]))
            }
            guard let string = String(validating: units, as: UTF16.self) else {
                throw refuse("is a UTF-16 string with an unpaired surrogate")
            }
            return .string(string)
        case 0x7: throw refuse("is a UTF-8 string, which only later versions of the format have (not bplist00)")
        case 0x8: throw refuse("is a UID, which belongs to keyed archives, not property lists")
        case 0xB: throw refuse("is an ordered set, which is not a property-list value")
        case 0xC: throw refuse("is a set, which is not a property-list value")
        case 0xA:
            let (count, start) = try length(info, at: offset, index: index)
            guard count <= (offsetTable - start) / referenceSize else {
                throw refuse("is an array that runs past the object table")
            }
            guard visiting.insert(index).inserted else { throw refuse("is an array that contains itself") }
            defer { visiting.remove(index) }
            var items: [PropertyListValue] = []
            items.reserveCapacity(count)
            for item in 0..<count {
                items.append(
                    try object(
                        try reference(at: start + item * referenceSize),
                        depth: depth + 1,
                        visiting: &visiting,
                        budget: &budget
                    )
                )
            }
            return .array(items)
        case 0xD:
            let (count, start) = try length(info, at: offset, index: index)
            guard count <= (offsetTable - start) / (2 * referenceSize) else {
                throw refuse("is a dictionary that runs past the object table")
            }
            guard visiting.insert(index).inserted else { throw refuse("is a dictionary that contains itself") }
            defer { visiting.remove(index) }
            var entries: [String: PropertyListValue] = [:]
            entries.reserveCapacity(count)
            for entry in 0..<count {
                let keyObject = try object(
                    try reference(at: start + entry * referenceSize),
                    depth: depth + 1,
                    visiting: &visiting,
                    budget: &budget
                )
                guard case .string(let key) = keyObject else {
                    throw refuse("is a dictionary with a key of type \(keyObject.typeName), not a string")
                }
                let value = try object(
                    try reference(at: start + (count + entry) * referenceSize),
                    depth: depth + 1,
                    visiting: &visiting,
                    budget: &budget
                )
                // Readers disagree on which of two equal keys wins: refuse rather than guess.
                guard entries.updateValue(value, forKey: key) == nil else {
                    throw refuse("is a dictionary that repeats the key \"\(key)\"")
                }
            }
            return .dictionary(entries)
        default:
            throw refuse("is of an unknown type")
        }
    }

    /// The element count of a collection, data or string object, and where its contents start.
    private func length(
        _ info: Int,
        at offset: Int,
        index: Int
    ) throws(PropertyListReadError) -> (count: Int, start: Int) {
        if info != 0x0f { return (info, offset + 1) }
        guard offset + 1 < bytes.count else {
            throw PropertyListReadError(reason: "object \(index)'s length runs past the end")
        }
        let marker = bytes[offset + 1]
        let size = 1 << Int(marker & 0x0f)
        guard marker >> 4 == 0x1, size <= 8, let value = Self.bigEndian(bytes, at: offset + 2, size: size),
            value < UInt64(bytes.count)
        else { throw PropertyListReadError(reason: "object \(index)'s length is malformed") }
        return (Int(value), offset + 2 + size)
    }

    private func reference(at offset: Int) throws(PropertyListReadError) -> Int {
        guard let value = Self.bigEndian(bytes, at: offset, size: referenceSize), value < UInt64(objectCount) else {
            throw PropertyListReadError(reason: "an object reference is out of range")
        }
        return Int(value)
    }
}
