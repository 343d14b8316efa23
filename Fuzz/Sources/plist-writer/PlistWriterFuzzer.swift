import AppexCore
import Foundation
import FuzzSupport

/// Builds a property-list value from the input (a recipe: each byte picks a type, the next give its size or contents),
/// writes it with Appex's binary writer (`PropertyListFormat.binary.encode`, what `appex bundle` writes Info.plists
/// with) and reads it back with Appex's reader, which applies CoreFoundation's checks. Whatever the value, the file
/// must be read back as the same value: a refusal ("the offset size cannot address the table") or a difference is a
/// finding. Sizes reach past 256 and 65,536 bytes and objects, where the writer's integer widths change (99,000 items
/// and bytes at most, below the reader's bound of 100,000 values).
///
/// `plist-writer --write-seeds DIR` writes the seed corpus instead: recipes whose files end their object area on each
/// side of 256 and 65,536 bytes, and files of 255 to 257, 65,535 and 65,536 objects.
@main
enum PlistWriterFuzzer {
    static func main() {
        if let folder = Seeds.folderToWrite { writeSeeds(to: folder) }
        LibFuzzer.run { input in
            var recipe = Recipe(bytes: input)
            let value = recipe.value(depth: 4)
            let entries = ["v": value]
            guard let bytes = try? PropertyListFormat.binary.encode(entries) else {
                fatalError("the writer refused a value it was given")
            }
            let read: [String: PropertyListValue]?
            do {
                read = try PropertyListValue(propertyList: Array(bytes), format: .binary).dictionaryValue
            } catch {
                fatalError("Appex's reader refused a file of \(bytes.count) bytes that Appex's writer wrote: \(error)")
            }
            guard read == entries else {
                fatalError("a file of \(bytes.count) bytes read back as another value than the one written")
            }
        }
    }

    /// Writes every seed to `directory` as `NAME.recipe` and exits.
    static func writeSeeds(to directory: String) -> Never {
        // An ASCII string of n bytes: tag 5, n as two bytes, the byte to repeat.
        func string(_ length: Int) -> [UInt8] { [5, UInt8(length >> 8), UInt8(length & 0xFF), 0x78] }
        func data(_ length: Int) -> [UInt8] { [4, UInt8(length >> 8), UInt8(length & 0xFF), 0x01] }
        // An array of n booleans: tag 7, n as two bytes, then nothing (an exhausted recipe gives booleans). With the
        // top dictionary and its key, n + 3 objects: 255 to 257, and 65,535 and 65,536.
        func array(_ count: Int) -> [UInt8] { [7, UInt8(count >> 8), UInt8(count & 0xFF)] }
        var seeds: [(name: String, bytes: [UInt8]?)] = []
        for length in [230, 235, 240, 245, 250, 260, 270] { seeds.append(("string-\(length).recipe", string(length))) }
        for length in [65_480, 65_490, 65_500, 65_510, 65_520] { seeds.append(("data-\(length).recipe", data(length))) }
        for count in [252, 253, 254, 65_532, 65_533] { seeds.append(("array-\(count).recipe", array(count))) }
        seeds.append(("every-type.recipe", [8, 9, 0, 1, 1, 0xFF, 0, 0, 0, 0, 0, 0, 0, 2, 0x40, 3, 0x12, 4, 0, 20, 7, 6, 5, 7, 2]))
        Seeds.write(seeds, to: directory, target: "plist-writer")
    }
}

/// The input read as a recipe for a value; an exhausted recipe gives `false`.
struct Recipe {
    var bytes: [UInt8]
    var position = 0
    /// How many more container items and bytes of data or string the value may take: enough to cross 65,536, few
    /// enough that a short input cannot ask for billions (an array of arrays of 65,535 each), and under the 100,000
    /// values Appex's reader reads at most (a guard against files that expand).
    var budget = 99_000

    /// `requested`, cut to what is left of the budget, which it then uses up.
    mutating func take(_ requested: Int) -> Int {
        let granted = min(requested, budget)
        budget -= granted
        return granted
    }

    mutating func byte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func integer(_ size: Int) -> UInt64 {
        (0..<size).reduce(0) { value, _ in value << 8 | UInt64(byte() ?? 0) }
    }

    mutating func value(depth: Int) -> PropertyListValue {
        guard let tag = byte() else { return .boolean(false) }
        switch tag % 9 {
        case 0: return .boolean(tag & 0x10 != 0)
        case 1: return .integer(Int(truncatingIfNeeded: integer(8)))
        case 2: return .real(Double(Int32(truncatingIfNeeded: integer(4))) / 8)
        case 3: return .date(Date(timeIntervalSinceReferenceDate: Double(integer(4))))
        case 4:
            let count = take(Int(integer(2)))
            return .data(Data(repeating: byte() ?? 0, count: count))
        case 5:
            let count = take(Int(integer(2)))
            let character = Character(Unicode.Scalar((byte() ?? 0x61) & 0x7F))
            return .string(String(repeating: character, count: count))
        case 6:
            let pieces = ["é", "日本", "🎉", "x"]
            let count = take(Int(byte() ?? 0))
            return .string((0..<count).map { pieces[$0 % pieces.count] }.joined())
        case 7:
            let count = take(Int(integer(2)))
            return .array((0..<count).map { _ in depth > 0 ? value(depth: depth - 1) : .boolean(true) })
        default:
            let count = take(Int(byte() ?? 0) % 32)
            var entries: [String: PropertyListValue] = [:]
            for index in 0..<count { entries["k\(index)"] = depth > 0 ? value(depth: depth - 1) : .integer(index) }
            return .dictionary(entries)
        }
    }
}
