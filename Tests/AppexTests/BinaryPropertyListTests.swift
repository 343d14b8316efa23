import AppexTestTiers
import Foundation
import Testing

@testable import AppexCore

/// Appex's binary property-list reader: every object type of `bplist00` is read or refused by
/// name, and it agrees with Foundation wherever Foundation is given bytes Appex made.
@Suite(.timed) struct BinaryPropertyListTests {
    /// Foundation's reading of bytes that Foundation itself wrote (trusted: never hostile input).
    static func foundationValue(ofTrusted bytes: [UInt8]) throws -> PropertyListValue? {
        PropertyListValue(foundationObject: try PropertyListSerialization.propertyList(from: Data(bytes), format: nil))
    }

    static func binary(_ value: PropertyListValue) throws -> [UInt8] {
        Array(try PropertyListSerialization.data(fromPropertyList: value.foundationObject, format: .binary, options: 0))
    }

    /// `{"k": object 1}`, with `object` as object 2: an object inside the usual dictionary.
    static func inDictionary(_ object: [UInt8], extra: [[UInt8]] = []) -> [UInt8] {
        bplist([[0xD1, 0x01, 0x02], [0x51, 0x6B], object] + extra)
    }

    static func reason(_ bytes: [UInt8]) -> String? {
        do {
            _ = try BinaryPropertyList.parse(bytes)
            return nil
        } catch {
            return error.reason
        }
    }

    /// A value of every type, and of every size of count and reference (300 array items take
    /// two-byte references).
    static let everyType = PropertyListValue.dictionary([
        "string": .string("plain"), "unicode": .string("Café © 日本 🎉"), "empty": .string(""),
        "small": .integer(7), "byte": .integer(200), "short": .integer(40_000), "int": .integer(3_000_000_000),
        "negative": .integer(-5), "large": .integer(Int.max), "smallest": .integer(Int.min), "real": .real(2.5),
        "true": .boolean(true), "false": .boolean(false),
        "date": .date(Date(timeIntervalSinceReferenceDate: 123_456)), "data": .data(Data(repeating: 7, count: 40)),
        "array": .array((0..<300).map { .integer($0) }), "nested": .dictionary(["a": .array([.dictionary([:])])]),
        "long": .string(String(repeating: "x", count: 300)),
    ])

    @Test("every real-world fixture, converted to binary, reads the same as through Foundation")
    func fixtures() throws {
        let folder = fixturesFolder + "/RealWorld"
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file != "SOURCES.md" {
            let xml = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file))
            let object = try PropertyListSerialization.propertyList(from: xml, format: nil)
            let bytes = Array(try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0))
            let ours = try BinaryPropertyList.parse(bytes)
            #expect(ours == PropertyListValue(foundationObject: object), "\(file)")
        }
    }

    @Test("every type and size of value round-trips")
    func allTypes() throws {
        let value = Self.everyType
        let bytes = try Self.binary(value)
        #expect(try BinaryPropertyList.parse(bytes) == value)
        #expect(try Self.foundationValue(ofTrusted: bytes) == value)
    }

    @Test(
        "Appex's own writer: every type and size reads back the same through Appex's reader and Foundation's, and the same value gives the same bytes whatever the dictionary's order"
    )
    func writer() throws {
        let value = Self.everyType
        let bytes = BinaryPropertyListWriter.encode(value)
        #expect(try BinaryPropertyList.parse(bytes) == value)
        #expect(try Self.foundationValue(ofTrusted: bytes) == value)
        // Dictionaries built in other orders (other capacities, so other iteration orders).
        guard case .dictionary(let entries) = value else { return }
        for capacity in [0, 64, 1024] {
            var rebuilt = [String: PropertyListValue](minimumCapacity: capacity)
            for (key, entry) in entries.sorted(by: { $0.key > $1.key }) { rebuilt[key] = entry }
            #expect(BinaryPropertyListWriter.encode(.dictionary(rebuilt)) == bytes)
        }
        #expect(try Array(PropertyListFormat.binary.encode(entries)) == bytes)
    }

    @Test("scalars of every width: integers of 1 to 16 bytes, reals of 4 and 8, dates, UTF-16 strings")
    func scalars() throws {
        #expect(try BinaryPropertyList.parse(Self.inDictionary([0x10, 0xFF])) == .dictionary(["k": .integer(255)]))
        #expect(
            try BinaryPropertyList.parse(Self.inDictionary([0x11, 0xFF, 0xFE])) == .dictionary(["k": .integer(65_534)])
        )
        #expect(
            try BinaryPropertyList.parse(Self.inDictionary([0x12, 0xFF, 0xFF, 0xFF, 0xFF]))
                == .dictionary(["k": .integer(4_294_967_295)])
        )
        #expect(
            try BinaryPropertyList.parse(Self.inDictionary([0x13] + [UInt8](repeating: 0xFF, count: 8)))
                == .dictionary(["k": .integer(-1)])
        )
        // 128-bit: in range (how CoreFoundation writes negative numbers and UInt64s), and out.
        #expect(
            try BinaryPropertyList.parse(Self.inDictionary([0x14] + [UInt8](repeating: 0xFF, count: 16)))
                == .dictionary(["k": .integer(-1)])
        )
        #expect(
            try BinaryPropertyList.parse(Self.inDictionary([0x14] + [UInt8](repeating: 0, count: 15) + [42]))
                == .dictionary(["k": .integer(42)])
        )
        let tooBig = Self.inDictionary([0x14] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 8))
        #expect(
            Self.reason(tooBig)?.contains("the integer 18446744073709551615, which does not fit in 64 bits") == true
        )
        #expect(
            Self.reason(Self.inDictionary([0x15] + [UInt8](repeating: 0, count: 32)))?.contains(
                "an integer of 32 bytes"
            ) == true
        )
        #expect(
            try BinaryPropertyList.parse(Self.inDictionary([0x22, 0x40, 0x20, 0x00, 0x00]))
                == .dictionary(["k": .real(2.5)])
        )
        #expect(
            try BinaryPropertyList.parse(Self.inDictionary([0x23, 0x40, 0x04, 0, 0, 0, 0, 0, 0]))
                == .dictionary(["k": .real(2.5)])
        )
        #expect(Self.reason(Self.inDictionary([0x21, 0x40, 0x20]))?.contains("a real of 2 bytes") == true)
        #expect(
            try BinaryPropertyList.parse(Self.inDictionary([0x33, 0x40, 0x24, 0, 0, 0, 0, 0, 0]))
                == .dictionary(["k": .date(Date(timeIntervalSinceReferenceDate: 10))])
        )
        #expect(
            try BinaryPropertyList.parse(Self.inDictionary([0x63, 0x00, 0xE9, 0xD8, 0x3C, 0xDF, 0x89]))
                == .dictionary(["k": .string("é🎉")])
        )
        #expect(Self.reason(Self.inDictionary([0x61, 0xD8, 0x3C]))?.contains("unpaired surrogate") == true)
        #expect(Self.reason(Self.inDictionary([0x52, 0x41, 0xE9]))?.contains("the non-ASCII byte 0xE9") == true)
    }

    @Test(
        "objects that are not property-list values are refused by name",
        arguments: [
            ([UInt8]([0xC1, 0x01]), "is a set"),
            ([0xB1, 0x01], "is an ordered set"),
            ([0x80, 0x05], "is a UID"),
            ([0x00], "is null"),
            ([0x0F], "is a fill byte"),
            ([0x71, 0x41], "is a UTF-8 string"),
            ([0x90], "is of an unknown type"),
            ([0xE0], "is of an unknown type"),
            ([0x34, 0, 0, 0, 0, 0, 0, 0, 0], "is a date of the wrong size"),
        ]
    )
    func refusedObjects(_ object: [UInt8], _ named: String) throws {
        let reason = try #require(Self.reason(Self.inDictionary(object)))
        #expect(reason.contains("object 2 (marker 0x") && reason.contains(named), "\(reason)")
    }

    @Test("a repeated key or a key that is not a string is refused, not resolved by guessing")
    func dictionaryKeys() throws {
        // {"k": 1, "k": 2}
        let repeated = bplist([[0xD2, 0x01, 0x01, 0x02, 0x03], [0x51, 0x6B], [0x10, 0x01], [0x10, 0x02]])
        #expect(Self.reason(repeated)?.contains("repeats the key \"k\"") == true)
        // {1: "k"}
        let numericKey = bplist([[0xD1, 0x01, 0x02], [0x10, 0x01], [0x51, 0x6B]])
        #expect(Self.reason(numericKey)?.contains("a key of type integer, not a string") == true)
    }

    @Test("a self-referencing dictionary is refused, not followed forever")
    func cycles() throws {
        // Object 0: a dict with 1 entry whose key is object 1 ("k") and value object 0.
        let bytes = bplist([[0xD1, 0x01, 0x00], [0x51, 0x6B]])
        #expect(Self.reason(bytes)?.contains("contains itself") == true)
    }

    @Test("shared objects that expand past 100,000 values are refused, in microseconds")
    func expansion() throws {
        // Object i is an array holding object i+1 twice: 2^40 values in a few hundred bytes.
        var objects: [[UInt8]] = (0..<40).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
        objects.append([0x09])
        #expect(Self.reason(bplist(objects))?.contains("more than 100000 values") == true)
    }

    @Test("on mutated bytes the reader never crashes, and what it accepts round-trips through a writer")
    func mutations() async throws {
        let original = try Self.binary(
            .dictionary([
                "CFBundleIdentifier": .string("com.example.x"), "CFBundleVersion": .string("1"), "n": .integer(3),
                "EXAppExtensionAttributes": .dictionary([
                    "EXExtensionPointIdentifier": .string("com.example.hostapp.Feature")
                ]),
                "list": .array([
                    .string("a"), .boolean(true), .real(1.5), .date(Date(timeIntervalSinceReferenceDate: 5)),
                ]),
            ])
        )
        var rng = SeededGenerator(state: 99)
        var accepted = 0
        for round in 0..<3000 {
            if round.isMultiple(of: 64) { await Task.yield() }
            let bytes = mutate(original, ByteMutation.allCases[round % 4], using: &rng)
            // Mutated bytes never go to Foundation's reader (it crashes on some); what ours
            // accepts must survive being written and read again unchanged.
            guard let ours = try? BinaryPropertyList.parse(bytes) else { continue }
            accepted += 1
            if case .real(let value) = ours, value.isNaN { continue }
            #expect(try BinaryPropertyList.parse(Self.binary(ours)) == ours, "round \(round)")
        }
        #expect(accepted > 0)
    }
}
