import Foundation

/// A writer of binary property lists (`bplist00`) whose bytes depend only on the value:
/// dictionary keys in sorted order, each object written once per occurrence, references and
/// offsets of the smallest width that CoreFoundation accepts: a reference must be able to name
/// the object count itself (`2^(8·size) > count`), and an offset must reach the offset table's
/// own position, not only the last object (`2^(8·size) > offset table`). A writer that sized
/// either by the last value written made files of 256–300 bytes, or of 256 objects, that
/// CoreFoundation (and so Appex's reader) refuses. Foundation's writer follows its dictionaries' iteration
/// order, which Swift seeds anew in every process, so the same Info.plist came out in different
/// bytes from two runs of `appex bundle` — and a bundle must be reproducible.
struct BinaryPropertyListWriter {
    private var objects: [[UInt8]] = []

    /// The encoding of `value`.
    static func encode(_ value: PropertyListValue) -> [UInt8] {
        var writer = BinaryPropertyListWriter()
        // Objects are numbered in the order they are written: count first, then write, so each
        // container knows its children's numbers (and the reference width) before it is encoded.
        let count = Self.objectCount(value)
        let referenceSize = Self.width(UInt64(count))
        _ = writer.add(value, referenceSize: referenceSize)
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt64] = []
        for object in writer.objects {
            offsets.append(UInt64(bytes.count))
            bytes += object
        }
        let offsetTable = UInt64(bytes.count)
        let offsetSize = Self.width(offsetTable)
        for offset in offsets { bytes += Self.bigEndian(offset, size: offsetSize) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        bytes += Self.bigEndian(UInt64(writer.objects.count), size: 8)
        bytes += Self.bigEndian(0, size: 8)  // the top object is the first
        bytes += Self.bigEndian(offsetTable, size: 8)
        return bytes
    }

    /// How many objects `value` takes (every key and value its own object).
    private static func objectCount(_ value: PropertyListValue) -> Int {
        switch value {
        case .array(let items): 1 + items.reduce(0) { $0 + objectCount($1) }
        case .dictionary(let entries): 1 + entries.reduce(0) { $0 + 1 + objectCount($1.value) }
        default: 1
        }
    }

    /// Appends `value` and its children; returns its object number.
    private mutating func add(_ value: PropertyListValue, referenceSize: Int) -> Int {
        let number = objects.count
        objects.append([])  // reserved: a container's children follow it
        var encoded: [UInt8]
        switch value {
        case .boolean(let flag): encoded = [flag ? 0x09 : 0x08]
        case .integer(let integer):
            let size = integer < 0 ? 8 : Self.width(UInt64(integer))
            let exponent: UInt8 = size == 1 ? 0 : size == 2 ? 1 : size <= 4 ? 2 : 3
            encoded = [0x10 | exponent] + Self.bigEndian(UInt64(bitPattern: Int64(integer)), size: 1 << exponent)
        case .real(let real): encoded = [0x23] + Self.bigEndian(real.bitPattern, size: 8)
        case .date(let date):
            encoded = [0x33] + Self.bigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8)
        case .data(let data): encoded = Self.header(0x40, count: data.count) + Array(data)
        case .string(let string):
            if string.utf8.allSatisfy({ $0 < 0x80 }) {
                encoded = Self.header(0x50, count: string.utf8.count) + Array(string.utf8)
            } else {
                let units = Array(string.utf16)
                encoded = Self.header(0x60, count: units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            }
        case .array(let items):
            let children = items.map { add($0, referenceSize: referenceSize) }
            encoded =
                Self.header(0xA0, count: items.count)
                + children.flatMap { Self.bigEndian(UInt64($0), size: referenceSize) }
        case .dictionary(let entries):
            let sorted = entries.sorted { $0.key < $1.key }
            let keys = sorted.map { add(.string($0.key), referenceSize: referenceSize) }
            let values = sorted.map { add($0.value, referenceSize: referenceSize) }
            encoded =
                Self.header(0xD0, count: sorted.count)
                + (keys + values).flatMap { Self.bigEndian(UInt64($0), size: referenceSize) }
        }
        objects[number] = encoded
        return number
    }

    /// A marker with its count: in the low nibble below 15, else 0xF and an integer object.
    private static func header(_ marker: UInt8, count: Int) -> [UInt8] {
        if count < 15 { return [marker | UInt8(count)] }
        let size = width(UInt64(count))
        let exponent: UInt8 = size == 1 ? 0 : size == 2 ? 1 : size <= 4 ? 2 : 3
        return [marker | 0x0F, 0x10 | exponent] + bigEndian(UInt64(count), size: 1 << exponent)
    }

    /// The fewest bytes (1, 2, 4 or 8) that hold `value`.
    private static func width(_ value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }
}
