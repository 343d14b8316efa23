import AppexTestTiers
import Foundation
import Testing

@testable import AppexCore

/// Appex's XML property-list reader: what Apple's tools write reads as Foundation reads it, and
/// everything else is refused by name with its line and column.
@Suite(.timed) struct XMLPropertyListTests {
    static func read(_ text: String) throws(PropertyListReadError) -> PropertyListValue {
        try XMLPropertyList.parse(Array(text.utf8))
    }

    static func reason(_ text: String) -> String? {
        do {
            _ = try read(text)
            return nil
        } catch {
            return error.reason
        }
    }

    static func plist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        \(body)
        </plist>
        """
    }

    @Test("every real-world fixture reads as Foundation reads it")
    func fixtures() throws {
        let folder = fixturesFolder + "/RealWorld"
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file != "SOURCES.md" {
            let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file))
            let theirs = PropertyListValue(
                foundationObject: try PropertyListSerialization.propertyList(from: data, format: nil)
            )
            #expect(try XMLPropertyList.parse(Array(data)) == theirs, "\(file)")
        }
    }

    @Test("every type Foundation's XML writer writes round-trips")
    func allTypes() throws {
        let value = PropertyListValue.dictionary([
            "string": .string("a <tag> & \"quotes\" 'and' more"), "unicode": .string("Café © 日本 🎉"),
            "empty": .string(""),
            "spaces": .string("  both ends  "), "lines": .string("one\ntwo"),
            "int": .integer(3_000_000_000), "negative": .integer(-5), "max": .integer(Int.max),
            "min": .integer(Int.min),
            "real": .real(2.5), "tiny": .real(1e-300), "true": .boolean(true), "false": .boolean(false),
            "date": .date(Date(timeIntervalSince1970: 1_700_000_000)),
            "old": .date(Date(timeIntervalSince1970: -2_000_000_000)),
            "data": .data(Data((0..<200).map { UInt8($0) })), "no data": .data(Data()),
            "array": .array((0..<20).map { .integer($0) }),
            "nested": .dictionary(["a": .array([.dictionary([:]), .array([])])]),
        ])
        let xml = Array(try PropertyListFormat.xml.encode(["top": value]))
        #expect(try XMLPropertyList.parse(xml) == .dictionary(["top": value]))
        #expect(try PropertyListValue(propertyList: xml) == .dictionary(["top": value]))
    }

    @Test("entities, character references, CDATA and comments in text")
    func text() throws {
        let value = try Self.read(
            Self.plist(
                """
                <dict>
                  <!-- a comment between entries -->
                  <key>a&amp;b</key><string>&lt;&gt;&quot;&apos;&#65;&#x42;&#x1F389;</string>
                  <key>cdata</key><string><![CDATA[<not> & a tag]]> after</string>
                  <key>commented</key><string>be<!-- gone -->fore</string>
                  <key>self-closing</key><string/>
                  <key>bare true</key><true></true>
                  <key>hex</key><integer>0x1F</integer>
                  <key>spaced</key><integer> -42 </integer>
                  <key>data</key><data>
                    AAEC
                    AwQ=
                  </data>
                  <key>infinity</key><real>-infinity</real>
                </dict>
                """
            )
        )
        #expect(
            value
                == .dictionary([
                    "a&b": .string("<>\"'AB🎉"), "cdata": .string("<not> & a tag after"), "commented": .string("before"),
                    "self-closing": .string(""), "bare true": .boolean(true), "hex": .integer(31),
                    "spaced": .integer(-42),
                    "data": .data(Data([0, 1, 2, 3, 4])), "infinity": .real(-.infinity),
                ])
        )
        // A value without the <plist> element, as CoreFoundation also reads it.
        #expect(try Self.read("<array><integer>1</integer></array>") == .array([.integer(1)]))
    }

    @Test(
        "what is not a property list is refused by name, with its line",
        arguments: [
            (
                plist("<dict><key>k</key><string>1</string><key>k</key><string>2</string></dict>"),
                "repeats the key \"k\" (line 4"
            ),
            (plist("<dict><key>k</key></dict>"), "the dictionary key \"k\" has no value"),
            (plist("<dict><string>v</string></dict>"), "holds <string> where a <key> belongs"),
            (plist("<set><string>v</string></set>"), "<set> is not a property-list element"),
            (plist("<string>&ent;</string>"), "the entity &ent; is not one of XML's five"),
            (plist("<string>&#xD800;</string>"), "names no Unicode character"),
            (plist("<string>&#0;</string>"), "names no Unicode character"),
            (plist("<string>a<b/>c</string>"), "<string> holds an element"),
            (plist("<integer>12x</integer>"), "which is not an integer"),
            (plist("<integer>18446744073709551615</integer>"), "does not fit in 64 bits"),
            (plist("<integer>99999999999999999999999</integer>"), "which is not an integer"),
            (plist("<real>two</real>"), "which is not a number"),
            (plist("<date>2024-13-01T00:00:00Z</date>"), "which is not YYYY-MM-DDTHH:MM:SSZ"),
            (plist("<data>!!!!</data>"), "does not hold base64"),
            ("<plist><string>open", "never closed"),
            (plist("<array><string>a</string></dict>"), "</dict> closes <array>"),
            (plist("<key>k</key>"), "a <key> outside a dictionary"),
            (plist("text<string>a</string>"), "text outside a value element"),
            (plist("<string>a</string><string>b</string>"), "expected </plist>"),
            ("<plist version=\"1.0\"/>", "the plist element holds no value"),
            ("<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist><true/></plist>", "the encoding \"UTF-16\""),
            (
                "<!DOCTYPE plist [<!ENTITY a \"aaaa\">]><plist><string>&a;</string></plist>",
                "internal subset (entity declarations)"
            ),
            ("<plist><true/></plist><extra/>", "content after the property list's end"),
            ("<!-- never closed <plist><true/></plist>", "an unterminated comment"),
            ("<plist><string>\u{FFFD}</string></plist>".replacingOccurrences(of: "\u{FFFD}", with: "é"), ""),
        ]
    )
    func refusals(_ text: String, _ named: String) throws {
        if named.isEmpty {
            #expect(Self.reason(text) == nil)  // control: valid UTF-8 beyond ASCII reads
            return
        }
        let reason = try #require(Self.reason(text))
        #expect(reason.contains(named), "\(reason)")
        #expect(reason.contains("(line "), "\(reason)")
    }

    @Test("bytes that are not UTF-8, a UTF-16 byte-order mark and an empty file are refused")
    func encodings() throws {
        var bytes = Array("<plist><string>".utf8) + [0xC3, 0x28] + Array("</string></plist>".utf8)
        #expect(throws: PropertyListReadError.self) { try XMLPropertyList.parse(bytes) }
        bytes = [0xFF, 0xFE] + Array("<plist/>".utf8)
        #expect((try? XMLPropertyList.parse(bytes)) == nil)
        #expect(throws: AppexError.self) { try PropertyListValue(propertyList: []) }
        // A UTF-8 byte-order mark is fine.
        #expect(try XMLPropertyList.parse([0xEF, 0xBB, 0xBF] + Array("<plist><true/></plist>".utf8)) == .boolean(true))
    }

    @Test("nesting past 256 levels and more than 100,000 values are refused")
    func limits() throws {
        let deep = String(repeating: "<array>", count: 300) + String(repeating: "</array>", count: 300)
        #expect(Self.reason(deep)?.contains("more than 256 levels") == true)
        let wide = "<array>" + String(repeating: "<true/>", count: 100_001) + "</array>"
        #expect(Self.reason(wide)?.contains("more than 100000 values") == true)
    }

    @Test("the format parameter holds the reader to one form")
    func formats() throws {
        let xml = Array(try PropertyListFormat.xml.encode(["a": .integer(1)]))
        let binary = Array(try PropertyListFormat.binary.encode(["a": .integer(1)]))
        #expect(try PropertyListValue(propertyList: xml, format: .xml) == .dictionary(["a": .integer(1)]))
        #expect(try PropertyListValue(propertyList: binary, format: .binary) == .dictionary(["a": .integer(1)]))
        let error = try #require(throws: AppexError.self) { try PropertyListValue(propertyList: xml, format: .binary) }
        #expect(error.code == .invalidPropertyList)
        #expect(throws: AppexError.self) { try PropertyListValue(propertyList: binary, format: .xml) }
        #expect(throws: AppexError.self) { try PropertyListValue(propertyList: Array("{ a = 1; }".utf8)) }
    }

    @Test("on mutated XML the reader never crashes, and what it accepts round-trips through a writer")
    func mutations() async throws {
        let original = Array(
            try PropertyListFormat.xml.encode([
                "CFBundleIdentifier": .string("com.example.x"), "n": .integer(3), "r": .real(1.5), "t": .boolean(true),
                "list": .array([.string("a &amp; b"), .data(Data([1, 2, 3])), .date(Date(timeIntervalSince1970: 0))]),
            ])
        )
        var rng = SeededGenerator(state: 7)
        var accepted = 0
        for round in 0..<3000 {
            if round.isMultiple(of: 64) { await Task.yield() }
            let bytes = mutate(original, ByteMutation.allCases[round % 4], using: &rng)
            guard let ours = try? XMLPropertyList.parse(bytes) else { continue }
            accepted += 1
            if case .real(let value) = ours, value.isNaN { continue }
            guard case .dictionary(let dictionary) = ours else { continue }
            #expect(
                try XMLPropertyList.parse(Array(PropertyListFormat.xml.encode(dictionary))) == ours,
                "round \(round)"
            )
        }
        #expect(accepted > 0)
    }
}
