import Foundation

/// A reader for Apple's binary property lists (`bplist00`), the form of built bundles'
/// Info.plists.
///
/// Discovery reads thousands of them; Foundation's general reader costs tens of microseconds
/// each on Linux, this one a few. Every offset, count and reference is bounds-checked, nesting is
/// limited and reference cycles are refused, so hostile bytes give an error, never a crash.
/// What it does not know (UIDs, sets, 128-bit integers, non-ASCII bytes in ASCII strings,
/// repeated keys) it refuses, and the caller falls back to Foundation's reader; damage, nesting
/// deeper than 256 and files that expand past 100,000 values are refused outright (Foundation
/// would chew on them for seconds). Where both read a
/// file they agree (tested on every fixture and on thousands of mutations). It may accept a
/// damaged file that CoreFoundation's stricter structural checks refuse; that has no security
/// weight, because a bundle's Info.plist is covered by its seal.
struct BinaryPropertyList {
    struct Failure: Error {
        var reason: String
        /// Whether Foundation's reader may still decide (the fast reader only lacks support);
        /// `false` for damage or abuse, which no reader should be made to chew on.
        var mayFallBack = false
    }

    /// The most values a file may expand to. Objects may be shared, so a 150-byte file can
    /// describe billions of values (a chain of arrays each holding the next twice): stop early.
    static let maximumValues = 100_000

    private let bytes: [UInt8]
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let offsetTable: Int
    private static let maximumDepth = 256

    static func isBinary(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 8 && bytes[0..<8].elementsEqual("bplist00".utf8)
    }

    /// Parses `bytes` and returns the top object.
    static func parse(_ bytes: [UInt8]) throws(Failure) -> PropertyListValue {
        guard isBinary(bytes), bytes.count >= 8 + 32 else { throw Failure(reason: "not a binary property list") }
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
        else { throw Failure(reason: "the trailer is malformed") }
        // As CoreFoundation does: the integer sizes must reach every offset and object, and
        // every offset must point into the object area.
        if offsetSize < 8, offsetTable >> UInt64(8 * offsetSize) != 0 { throw Failure(reason: "the offset size cannot address the table") }
        if referenceSize < 8, objectCount > UInt64(1) << UInt64(8 * referenceSize) { throw Failure(reason: "the reference size cannot address every object") }
        for index in 0..<Int(objectCount) {
            guard let entry = Self.bigEndian(bytes, at: Int(offsetTable) + index * offsetSize, size: offsetSize),
                  entry >= 8, entry < offsetTable
            else { throw Failure(reason: "object \(index)'s offset is out of range") }
        }
        let reader = BinaryPropertyList(bytes: bytes, offsetSize: offsetSize, referenceSize: referenceSize,
                                        objectCount: Int(objectCount), offsetTable: Int(offsetTable))
        var visiting = Set<Int>()
        var budget = Self.maximumValues
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
        guard offset >= 0, size <= 8, offset + size <= bytes.count else { return nil }
        var value: UInt64 = 0
        for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    private func object(_ index: Int, depth: Int, visiting: inout Set<Int>, budget: inout Int) throws(Failure) -> PropertyListValue {
        guard index < objectCount, depth < Self.maximumDepth else { throw Failure(reason: "object reference out of range or nested more than \(Self.maximumDepth) deep") }
        budget -= 1
        guard budget >= 0 else { throw Failure(reason: "the property list expands to more than \(Self.maximumValues) values") }
        guard let rawOffset = Self.bigEndian(bytes, at: offsetTable + index * offsetSize, size: offsetSize),
              rawOffset >= 8, rawOffset < UInt64(offsetTable)
        else { throw Failure(reason: "object offset out of range") }
        let offset = Int(rawOffset)
        let marker = bytes[offset]
        let info = Int(marker & 0x0f)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .boolean(false)
            case 0x09: return .boolean(true)
            default: throw Failure(reason: "unsupported simple object 0x\(String(marker, radix: 16))", mayFallBack: true)
            }
        case 0x1:
            guard info <= 3 else { throw Failure(reason: "a 128-bit integer", mayFallBack: true) }
            guard let value = Self.bigEndian(bytes, at: offset + 1, size: 1 << info) else { throw Failure(reason: "malformed integer") }
            return .integer(info == 3 ? Int(Int64(bitPattern: value)) : Int(value))
        case 0x2:
            if info == 2, let bits = Self.bigEndian(bytes, at: offset + 1, size: 4) {
                return .real(Double(Float(bitPattern: UInt32(bits))))
            }
            if info == 3, let bits = Self.bigEndian(bytes, at: offset + 1, size: 8) {
                return .real(Double(bitPattern: bits))
            }
            throw Failure(reason: "malformed real")
        case 0x3:
            guard marker == 0x33, let bits = Self.bigEndian(bytes, at: offset + 1, size: 8) else { throw Failure(reason: "malformed date") }
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits)))
        case 0x4:
            let (count, start) = try length(info, at: offset)
            guard start + count <= offsetTable else { throw Failure(reason: "data runs past the object table") }
            return .data(Data(bytes[start..<(start + count)]))
        case 0x5:
            let (count, start) = try length(info, at: offset)
            guard start + count <= offsetTable else { throw Failure(reason: "string runs past the object table") }
            let slice = bytes[start..<(start + count)]
            guard slice.allSatisfy({ $0 < 0x80 }) else { throw Failure(reason: "an ASCII string holds a non-ASCII byte", mayFallBack: true) }
            return .string(String(decoding: slice, as: UTF8.self))
        case 0x6:
            let (count, start) = try length(info, at: offset)
            guard count <= (offsetTable - start) / 2 else { throw Failure(reason: "string runs past the object table") }
            var units: [UInt16] = []
            units.reserveCapacity(count)
            for unit in 0..<count { units.append(UInt16(bytes[start + 2 * unit]) << 8 | UInt16(bytes[start + 2 * unit + 1])) }
            guard let string = String(validating: units, as: UTF16.self) else { throw Failure(reason: "a UTF-16 string is not valid") }
            return .string(string)
        case 0xA:
            let (count, start) = try length(info, at: offset)
            guard count <= (offsetTable - start) / referenceSize else { throw Failure(reason: "array runs past the object table") }
            guard visiting.insert(index).inserted else { throw Failure(reason: "an array contains itself") }
            defer { visiting.remove(index) }
            var items: [PropertyListValue] = []
            items.reserveCapacity(count)
            for item in 0..<count {
                items.append(try object(try reference(at: start + item * referenceSize), depth: depth + 1, visiting: &visiting, budget: &budget))
            }
            return .array(items)
        case 0xD:
            let (count, start) = try length(info, at: offset)
            guard count <= (offsetTable - start) / (2 * referenceSize) else { throw Failure(reason: "dictionary runs past the object table") }
            guard visiting.insert(index).inserted else { throw Failure(reason: "a dictionary contains itself") }
            defer { visiting.remove(index) }
            var entries: [String: PropertyListValue] = [:]
            entries.reserveCapacity(count)
            for entry in 0..<count {
                let keyObject = try object(try reference(at: start + entry * referenceSize), depth: depth + 1, visiting: &visiting, budget: &budget)
                guard case .string(let key) = keyObject else { throw Failure(reason: "a dictionary key is not a string") }
                let value = try object(try reference(at: start + (count + entry) * referenceSize), depth: depth + 1, visiting: &visiting, budget: &budget)
                guard entries.updateValue(value, forKey: key) == nil else { throw Failure(reason: "a dictionary repeats the key \(key)", mayFallBack: true) }
            }
            return .dictionary(entries)
        default:
            throw Failure(reason: "unsupported object type 0x\(String(marker, radix: 16))", mayFallBack: true)
        }
    }

    /// The element count of a collection, data or string object, and where its contents start.
    private func length(_ info: Int, at offset: Int) throws(Failure) -> (count: Int, start: Int) {
        if info != 0x0f { return (info, offset + 1) }
        guard offset + 1 < bytes.count else { throw Failure(reason: "a length runs past the end") }
        let marker = bytes[offset + 1]
        let size = 1 << Int(marker & 0x0f)
        guard marker >> 4 == 0x1, size <= 8, let value = Self.bigEndian(bytes, at: offset + 2, size: size),
              value < UInt64(bytes.count)
        else { throw Failure(reason: "a length is malformed") }
        return (Int(value), offset + 2 + size)
    }

    private func reference(at offset: Int) throws(Failure) -> Int {
        guard let value = Self.bigEndian(bytes, at: offset, size: referenceSize), value < UInt64(objectCount) else {
            throw Failure(reason: "an object reference is out of range")
        }
        return Int(value)
    }
}
