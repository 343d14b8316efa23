import AppexCore
import Foundation

// Property-list bytes for the readers' tests: mutations of valid files, hand-made `bplist00`
// files, and Foundation's objects as values.

/// One way of damaging a file's bytes.
enum ByteMutation: CaseIterable { case truncate, flip, insert, garbage }

/// `bytes` damaged by `mutation`, its choices drawn from `rng` (seeded: every run damages the
/// same way).
func mutate(_ bytes: [UInt8], _ mutation: ByteMutation, using rng: inout SeededGenerator) -> [UInt8] {
    var bytes = bytes
    switch mutation {
    case .truncate:
        bytes = Array(bytes.prefix(Int.random(in: 0..<max(bytes.count, 1), using: &rng)))
    case .flip:
        for _ in 0..<Int.random(in: 1...8, using: &rng) where !bytes.isEmpty {
            bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
        }
    case .insert:
        let at = Int.random(in: 0...bytes.count, using: &rng)
        bytes.insert(
            contentsOf: (0..<Int.random(in: 1...32, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) },
            at: at
        )
    case .garbage:
        bytes = (0..<Int.random(in: 0...512, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }
    return bytes
}

/// A `bplist00` file of `objects` (each an object's encoded bytes, references one byte wide),
/// whose top object is `top`.
func bplist(_ objects: [[UInt8]], top: Int = 0) -> [UInt8] {
    var bytes = Array("bplist00".utf8)
    var offsets: [Int] = []
    for object in objects {
        offsets.append(bytes.count)
        bytes += object
    }
    let table = bytes.count
    let offsetSize = table > 255 ? 2 : 1
    for offset in offsets { bytes += offsetSize == 2 ? [UInt8(offset >> 8), UInt8(offset & 0xff)] : [UInt8(offset)] }
    bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), 1]
    func be64(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8((value >> ($0 * 8)) & 0xff) } }
    bytes += be64(objects.count) + be64(top) + be64(table)
    return bytes
}

extension PropertyListValue {
    /// Converts what `PropertyListSerialization` returns — in tests, for bytes Foundation wrote
    /// itself or committed fixtures; Appex never reads untrusted bytes through Foundation.
    init?(foundationObject object: Any) {
        switch object {
        case let value as String: self = .string(value)
        case let value as Data: self = .data(value)
        case let value as Date: self = .date(value)
        case let value as [Any]:
            var items: [PropertyListValue] = []
            for item in value {
                guard let converted = PropertyListValue(foundationObject: item) else { return nil }
                items.append(converted)
            }
            self = .array(items)
        case let value as [String: Any]:
            var items: [String: PropertyListValue] = [:]
            for (key, item) in value {
                guard let converted = PropertyListValue(foundationObject: item) else { return nil }
                items[key] = converted
            }
            self = .dictionary(items)
        case let value as NSNumber:
            // A boolean arrives as an NSNumber whose type is `c` (char) on every platform.
            let type = String(cString: value.objCType)
            if type == "c" || type == "B" {
                self = .boolean(value.boolValue)
            } else if type == "f" || type == "d" {
                self = .real(value.doubleValue)
            } else {
                self = .integer(value.intValue)
            }
        default: return nil
        }
    }
}
