import AppexTestTiers
import Foundation
import Testing

@testable import AppexCore

/// Appex's binary property-list writer at the sizes where its integer widths change: every file
/// it writes is read back the same by Appex's reader, by Foundation's (which applies
/// CoreFoundation's checks) and by Python's `plistlib`, a reader written apart from both.
@Suite(.timed) struct BinaryPropertyListWriterTests {
    /// A random value of every type, `depth` levels of containers deep at most. Dates are whole
    /// seconds, as `plistlib`'s XML keeps them.
    static func randomValue(depth: Int, using rng: inout SeededGenerator) -> PropertyListValue {
        let kinds = depth > 0 ? 9 : 7
        switch Int.random(in: 0..<kinds, using: &rng) {
        case 0: return .boolean(Bool.random(using: &rng))
        case 1:
            let widths: [ClosedRange<Int>] = [
                0...255, 256...65_535, 65_536...4_294_967_295, .min ... .max, -300 ... -1,
            ]
            return .integer(Int.random(in: widths.randomElement(using: &rng)!, using: &rng))
        case 2: return .real(Double(Int.random(in: -1_000_000...1_000_000, using: &rng)) / 64)
        case 3: return .date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...900_000_000, using: &rng))))
        case 4:
            return .data(
                Data((0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
            )
        case 5:
            let ascii = "abcdefghijklmnopqrstuvwxyz <>&\"'"
            return .string(
                String((0..<Int.random(in: 0...30, using: &rng)).map { _ in ascii.randomElement(using: &rng)! })
            )
        case 6:
            let wide = ["é", "日本", "🎉", "©", "x"]
            return .string(
                (0..<Int.random(in: 1...12, using: &rng)).map { _ in wide.randomElement(using: &rng)! }.joined()
            )
        case 7:
            return .array(
                (0..<Int.random(in: 0...5, using: &rng)).map { _ in randomValue(depth: depth - 1, using: &rng) }
            )
        default:
            var entries: [String: PropertyListValue] = [:]
            for index in 0..<Int.random(in: 0...5, using: &rng) {
                entries["k\(index)"] = randomValue(depth: depth - 1, using: &rng)
            }
            return .dictionary(entries)
        }
    }

    /// Where `bytes`' offset table starts, and how many objects it holds (from the trailer).
    static func layout(_ bytes: [UInt8]) -> (offsetTable: Int, objects: Int) {
        func integer(at offset: Int) -> Int { bytes[offset..<offset + 8].reduce(0) { $0 << 8 | Int($1) } }
        return (integer(at: bytes.count - 8), integer(at: bytes.count - 24))
    }

    /// Values whose files cross each width boundary: object areas that end at every position from
    /// 240 to 300 bytes and from 65,520 to 65,560, and object counts from 250 to 260 and from
    /// 65,530 to 65,540, each around random values of every type.
    static func boundaryValues() -> [PropertyListValue] {
        var rng = SeededGenerator(state: 23)
        var values: [PropertyListValue] = []
        // A padding string grown one byte at a time moves the object area's end by one byte
        // (two where its length header widens, which another random prefix covers).
        for round in 0..<3 {
            let prefix = randomValue(depth: 2, using: &rng)
            for padding in 0..<330 {
                values.append(.dictionary(["p": .string(String(repeating: "x", count: padding)), "v": prefix]))
                _ = round
            }
        }
        for padding in 65_400..<65_560 where padding % 3 == 0 || (65_490..<65_540).contains(padding) {
            values.append(.dictionary(["p": .data(Data(repeating: 1, count: padding)), "v": .boolean(true)]))
        }
        // An array of n booleans is n + 1 objects.
        for count in Array(248...262) + Array(65_528...65_542) {
            values.append(.array((0..<count).map { .boolean($0.isMultiple(of: 2)) }))
        }
        for _ in 0..<200 { values.append(randomValue(depth: 3, using: &rng)) }
        return values
    }

    @Test(
        "files whose offset table or object count crosses 256 and 65,536 read back the same through Appex's reader, Foundation's and Python's plistlib"
    )
    func boundaries() async throws {
        let values = Self.boundaryValues()
        let files = values.map { BinaryPropertyListWriter.encode($0) }
        // The boundaries are really crossed: object areas ending on both sides of 256 and 65,536
        // (the 256-to-300-byte files of issue 23 among them), and counts on both sides of both.
        let layouts = files.map(Self.layout)
        for position in [255, 256, 257, 299, 300, 65_535, 65_536, 65_537] {
            #expect(layouts.contains { $0.offsetTable == position }, "no file's offset table is at \(position)")
        }
        for count in [255, 256, 257, 65_535, 65_536, 65_537] {
            #expect(layouts.contains { $0.objects == count }, "no file holds \(count) objects")
        }
        for (value, bytes) in zip(values, files) {
            #expect(try BinaryPropertyList.parse(bytes) == value, "Appex's reader, \(bytes.count) bytes")
            let foundation = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil)
            #expect(
                PropertyListValue(foundationObject: foundation) == value,
                "Foundation's reader, \(bytes.count) bytes"
            )
        }
        // plistlib reads each file and writes it back as XML, which Appex's XML reader reads.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bplist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (index, bytes) in files.enumerated() {
            try Data(bytes).write(to: folder.appendingPathComponent("\(index).plist"))
        }
        let script = """
            import plistlib, sys, os
            folder = sys.argv[1]
            for name in os.listdir(folder):
                if not name.endswith(".plist"): continue
                with open(os.path.join(folder, name), "rb") as f:
                    value = plistlib.load(f, fmt=plistlib.FMT_BINARY)
                with open(os.path.join(folder, name[:-6] + ".xml"), "wb") as f:
                    plistlib.dump(value, f, fmt=plistlib.FMT_XML, sort_keys=True)
            """
        let python = try await run(
            "/usr/bin/env",
            ["python3", "-c", script, folder.path],
            environment: ProcessInfo.processInfo.environment,
            timeout: 120
        )
        #expect(python.status == 0, "plistlib refused a file: \(python.standardError)")
        for (index, value) in values.enumerated() {
            let xml = try Data(contentsOf: folder.appendingPathComponent("\(index).xml"))
            #expect(try XMLPropertyList.parse(Array(xml)) == value, "plistlib's reading of file \(index)")
        }
    }

    @Test(
        "the reader refuses what CoreFoundation refuses: 256 objects with one-byte references, an offset table at 256 with one-byte offsets"
    )
    func readerFollowsCoreFoundation() throws {
        // 255 booleans in an array: 256 objects, written here with one-byte references.
        let objects: [[UInt8]] =
            [[0xAF, 0x11, 0x00, 0xFF] + (1...255).map { UInt8($0) }] + Array(repeating: [0x09], count: 255)
        let bytes = bplist(objects)
        let reason = BinaryPropertyListTests.reason(bytes)
        #expect(reason?.contains("the reference size cannot address every object") == true, "\(reason ?? "accepted")")
        #expect((try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil)) == nil)

        // A string whose object area ends at 256 (8 + 4 + 244 bytes), its offset written in one byte.
        func be64(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8((value >> ($0 * 8)) & 0xff) } }
        let string: [UInt8] = [0x5F, 0x11, 0x00, 0xF4] + [UInt8](repeating: 0x78, count: 244)
        let file = Array("bplist00".utf8) + string + [8] + [0, 0, 0, 0, 0, 0, 1, 1] + be64(1) + be64(0) + be64(256)
        let offsets = BinaryPropertyListTests.reason(file)
        #expect(offsets?.contains("the offset size cannot address the table") == true, "\(offsets ?? "accepted")")
        #expect((try? PropertyListSerialization.propertyList(from: Data(file), format: nil)) == nil)
    }
}
