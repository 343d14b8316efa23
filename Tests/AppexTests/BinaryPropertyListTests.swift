@testable import AppexCore
import Foundation
import Testing

/// The fast binary-plist reader never disagrees with Foundation's.
@Suite struct BinaryPropertyListTests {
    static func foundationValue(_ bytes: [UInt8]) -> PropertyListValue? {
        guard let object = try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil) else { return nil }
        return PropertyListValue(foundationObject: object)
    }

    static func binary(_ value: PropertyListValue) throws -> [UInt8] {
        Array(try PropertyListSerialization.data(fromPropertyList: value.foundationObject, format: .binary, options: 0))
    }

    @Test("every real-world fixture, converted to binary, reads the same as through Foundation")
    func fixtures() throws {
        let folder = fixturesFolder + "/RealWorld"
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file != "SOURCES.md" {
            let xml = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file))
            let object = try PropertyListSerialization.propertyList(from: xml, format: nil)
            let bytes = Array(try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0))
            let ours = try BinaryPropertyList.parse(bytes)
            #expect(ours == Self.foundationValue(bytes), "\(file)")
        }
    }

    @Test("every type and size of value round-trips")
    func allTypes() throws {
        let value = PropertyListValue.dictionary([
            "string": .string("plain"), "unicode": .string("Café © 日本"), "empty": .string(""),
            "small": .integer(7), "byte": .integer(200), "short": .integer(40_000), "int": .integer(3_000_000_000),
            "negative": .integer(-5), "large": .integer(Int.max), "real": .real(2.5), "true": .boolean(true), "false": .boolean(false),
            "date": .date(Date(timeIntervalSinceReferenceDate: 123_456)), "data": .data(Data(repeating: 7, count: 40)),
            "array": .array((0..<20).map { .integer($0) }), "nested": .dictionary(["a": .array([.dictionary([:])])]),
            "long": .string(String(repeating: "x", count: 300)),
        ])
        let bytes = try Self.binary(value)
        #expect(try BinaryPropertyList.parse(bytes) == value)
        #expect(Self.foundationValue(bytes) == value)
    }

    @Test("on mutated bytes the fast reader never crashes, and agrees with Foundation whenever both read them")
    func mutations() async throws {
        let original = try Self.binary(.dictionary([
            "CFBundleIdentifier": .string("com.example.x"), "CFBundleVersion": .string("1"), "n": .integer(3),
            "EXAppExtensionAttributes": .dictionary(["EXExtensionPointIdentifier": .string("com.example.hostapp.Feature")]),
            "list": .array([.string("a"), .boolean(true), .real(1.5)]),
        ]))
        var rng = BadInputTests.SeededGenerator(state: 99)
        var accepted = 0
        for round in 0..<2000 {
            if round.isMultiple(of: 64) { await Task.yield() }
            let bytes = BadInputTests.mutate(original, BadInputTests.Mutation.allCases[round % 4], using: &rng)
            guard let ours = try? BinaryPropertyList.parse(bytes), let theirs = Self.foundationValue(bytes) else { continue }
            accepted += 1
            #expect(ours == theirs, "round \(round)")
        }
        #expect(accepted > 0)
    }

    @Test("a self-referencing dictionary is refused, not followed forever")
    func cycles() throws {
        // bplist00, object 0: dict with 1 entry whose key is object 1 ("k") and value object 0.
        var bytes = Array("bplist00".utf8)
        bytes += [0xD1, 0x01, 0x00]            // offset 8: dict, 1 entry, key ref 1, value ref 0
        bytes += [0x51, 0x6B]                  // offset 11: "k"
        let table = bytes.count
        bytes += [0x08, 0x0B]                  // offsets of objects 0 and 1
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]      // unused, sort version, offset size 1, ref size 1
        bytes += [0, 0, 0, 0, 0, 0, 0, 2]      // two objects
        bytes += [0, 0, 0, 0, 0, 0, 0, 0]      // top object 0
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        #expect(throws: BinaryPropertyList.Failure.self) { try BinaryPropertyList.parse(bytes) }
    }
}
