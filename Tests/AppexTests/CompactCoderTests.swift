import AppexCoding
import AppexTestTiers
import Foundation
import Testing

/// The compact IPC coder: every kind of `Codable` value round-trips, errors say what and where,
/// and no input, however broken, crashes the decoder.
@Suite(.timed) struct CompactCoderTests {
    let encoder = CompactEncoder()
    let decoder = CompactDecoder()

    func roundTrip<T: Codable>(_ value: T) throws -> T {
        try decoder.decode(T.self, from: try encoder.encode(value))
    }

    func decodingError<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) -> CompactCodingError? {
        do {
            _ = try decoder.decode(type, from: bytes)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Fixtures

    struct Integers: Codable, Equatable {
        var int: Int, int8: Int8, int16: Int16, int32: Int32, int64: Int64, int128: Int128
        var uint: UInt, uint8: UInt8, uint16: UInt16, uint32: UInt32, uint64: UInt64, uint128: UInt128

        static let min = Integers(
            int: .min,
            int8: .min,
            int16: .min,
            int32: .min,
            int64: .min,
            int128: .min,
            uint: .min,
            uint8: .min,
            uint16: .min,
            uint32: .min,
            uint64: .min,
            uint128: .min
        )
        static let max = Integers(
            int: .max,
            int8: .max,
            int16: .max,
            int32: .max,
            int64: .max,
            int128: .max,
            uint: .max,
            uint8: .max,
            uint16: .max,
            uint32: .max,
            uint64: .max,
            uint128: .max
        )
        static let small = Integers(
            int: -1,
            int8: 1,
            int16: -2,
            int32: 3,
            int64: -4,
            int128: 5,
            uint: 0,
            uint8: 1,
            uint16: 2,
            uint32: 3,
            uint64: 4,
            uint128: 5
        )
    }

    struct Floats: Codable {
        var double: Double
        var float: Float
    }

    indirect enum Shape: Codable, Equatable {
        case circle(radius: Double)
        case rectangle(Double, Double)
        case empty
        case labelled(String, inner: Shape?)
    }

    class Animal: Codable {
        var name: String
        init(name: String) { self.name = name }
    }

    /// Encodes its superclass through `superEncoder()`, as the `Codable` documentation suggests.
    final class Dog: Animal {
        var breed: String
        enum CodingKeys: String, CodingKey { case breed }

        init(name: String, breed: String) {
            self.breed = breed
            super.init(name: name)
        }

        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            breed = try container.decode(String.self, forKey: .breed)
            try super.init(from: container.superDecoder())
        }

        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(breed, forKey: .breed)
            try super.encode(to: container.superEncoder())
        }
    }

    /// Shares its superclass's container instead.
    final class Cat: Animal {
        var lives: Int
        enum CodingKeys: String, CodingKey { case lives }

        init(name: String, lives: Int) {
            self.lives = lives
            super.init(name: name)
        }

        required init(from decoder: any Decoder) throws {
            lives = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .lives)
            try super.init(from: decoder)
        }

        override func encode(to encoder: any Encoder) throws {
            try super.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(lives, forKey: .lives)
        }
    }

    struct Maybe: Codable, Equatable {
        var value: Int??
    }

    struct Person: Codable, Equatable {
        var name: String
        var age: Int
        var email: String?
        var tags: [String]
    }

    /// A `Person` whose keys are written in reverse order.
    struct ReversedPerson: Encodable {
        var person: Person
        enum CodingKeys: String, CodingKey { case name, age, email, tags }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(person.tags, forKey: .tags)
            try container.encodeIfPresent(person.email, forKey: .email)
            try container.encode(person.age, forKey: .age)
            try container.encode(person.name, forKey: .name)
        }
    }

    struct IntKeyed: Codable, Equatable {
        var first: String
        var second: Int
        enum CodingKeys: Int, CodingKey {
            case first = 1
            case second = 2
        }
    }

    struct Point: Codable, Equatable {
        var x: Int
        var y: Int
    }

    /// Writes into a parent container after writing into nested ones, and back again.
    struct Interleaved: Codable, Equatable {
        var a: Int, b: [Int], c: String, d: Point
        enum CodingKeys: String, CodingKey { case a, b, c, d }
        enum PointKeys: String, CodingKey { case x, y }

        init(a: Int, b: [Int], c: String, d: Point) {
            (self.a, self.b, self.c, self.d) = (a, b, c, d)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var list = container.nestedUnkeyedContainer(forKey: .b)
            var point = container.nestedContainer(keyedBy: PointKeys.self, forKey: .d)
            try list.encode(b[0])
            try container.encode(a, forKey: .a)
            try point.encode(d.y, forKey: .y)
            for value in b.dropFirst() { try list.encode(value) }
            try container.encode(c, forKey: .c)
            try point.encode(d.x, forKey: .x)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let point = try container.nestedContainer(keyedBy: PointKeys.self, forKey: .d)
            d = Point(x: try point.decode(Int.self, forKey: .x), y: try point.decode(Int.self, forKey: .y))
            c = try container.decode(String.self, forKey: .c)
            var list = try container.nestedUnkeyedContainer(forKey: .b)
            b = []
            while !list.isAtEnd { b.append(try list.decode(Int.self)) }
            a = try container.decode(Int.self, forKey: .a)
        }
    }

    /// A recursive value whose own coding is one array: as deep as its nesting.
    struct Tree: Codable, Equatable {
        var children: [Tree]

        init(children: [Tree]) { self.children = children }
        init(depth: Int) {
            var tree = Tree(children: [])
            for _ in 0..<depth { tree = Tree(children: [tree]) }
            self = tree
        }

        init(from decoder: any Decoder) throws { children = try decoder.singleValueContainer().decode([Tree].self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(children)
        }
    }

    /// A bit of everything, for the truncation and mutation tests.
    struct Sample: Codable, Equatable {
        var id: UInt64
        var offset: Int32
        var ratio: Double
        var name: String
        var payload: [UInt8]
        var data: Data
        var flags: [Bool]
        var note: String?
        var shapes: [Shape]
        var scores: [String: Int]
        var matrix: [[Int]]
        var optionals: [Int?]
        var when: Date

        static let example = Sample(
            id: 1 << 40,
            offset: -12345,
            ratio: 0.25,
            name: "Grüße, 世界",
            payload: Array(0..<64),
            data: Data([1, 2, 3]),
            flags: [true, false, true],
            note: "n",
            shapes: [.circle(radius: 2), .labelled("x", inner: .empty)],
            scores: ["a": 1, "b": -2],
            matrix: [[1, 2], [], [3]],
            optionals: [nil, 1, nil],
            when: Date(timeIntervalSinceReferenceDate: 1000.5)
        )
    }

    /// A seeded xorshift64 generator, so every run mutates the same way.
    struct XorShift {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
        return bytes
    }

    // MARK: Round trips

    @Test("every integer width round-trips at its minimum, its maximum and small values")
    func integersRoundTripAtTheirLimits() throws {
        for value in [Integers.min, Integers.max, Integers.small] {
            #expect(try roundTrip(value) == value)
        }
        #expect(try roundTrip(Int64.min) == Int64.min)
        #expect(try roundTrip(UInt128.max) == UInt128.max)
        #expect(try roundTrip([Int8.min, 0, Int8.max]) == [Int8.min, 0, Int8.max])
    }

    @Test("Doubles and Floats round-trip bit for bit, NaN payloads, infinities and signed zero included")
    func floatingPointRoundTripsBitForBit() throws {
        let doubles: [Double] = [
            0, -0.0, 1.5, -.pi, .infinity, -.infinity, .nan, .signalingNaN,
            Double(bitPattern: 0x7FF0_0000_0000_0123), .leastNonzeroMagnitude, .greatestFiniteMagnitude,
        ]
        let floats: [Float] = [
            0, -0.0, 1.5, .infinity, -.infinity, .nan, Float(bitPattern: 0x7FC0_0042), .leastNonzeroMagnitude,
        ]
        for (double, float) in zip(doubles, floats + floats) {
            let decoded = try roundTrip(Floats(double: double, float: float))
            #expect(decoded.double.bitPattern == double.bitPattern)
            #expect(decoded.float.bitPattern == float.bitPattern)
        }
        #expect(try roundTrip(Double.nan.bitPattern) == Double.nan.bitPattern)
        #expect(try roundTrip(Double.infinity) == .infinity)
    }

    @Test("empty, ASCII, non-ASCII and long strings round-trip")
    func stringsRoundTrip() throws {
        let strings = [
            "", "a", "Grüße", "日本語のテキスト", "👩‍👩‍👧‍👦🏳️‍🌈", "e\u{301}", "nul\u{0}inside",
            String(repeating: "long ", count: 10_000),
        ]
        for string in strings {
            #expect(try roundTrip(string) == string)
        }
        #expect(try roundTrip(strings) == strings)
    }

    @Test("empty arrays, dictionaries and objects round-trip")
    func emptyCollectionsRoundTrip() throws {
        #expect(try roundTrip([Int]()) == [])
        #expect(try roundTrip([String: Int]()) == [:])
        #expect(try roundTrip([[String]]([[], []])) == [[], []])
        #expect(try roundTrip(Tree(children: [])) == Tree(children: []))
        #expect(try roundTrip(Shape.empty) == .empty)
    }

    @Test("[UInt8] of 0 and 1 MiB and Data round-trip as one bytes value")
    func bytesAndDataRoundTrip() throws {
        let mebibyte = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for bytes in [[], [42], mebibyte] {
            let encoded = try encoder.encode(bytes)
            #expect(encoded.count <= bytes.count + 4)
            #expect(try decoder.decode([UInt8].self, from: encoded) == bytes)
            #expect(try roundTrip(Data(bytes)) == Data(bytes))
        }
        #expect(try encoder.encode([UInt8](repeating: 9, count: 64)).count == 66)
        #expect(try encoder.encode(Data(count: 64)).count == 66)
        let nested: [[UInt8]] = [[], [1, 2], mebibyte]
        #expect(try roundTrip(nested) == nested)
        #expect(try roundTrip(["a": Data([1]), "b": Data()]) == ["a": Data([1]), "b": Data()])
    }

    @Test("bytes decode as Data or as any array of integers, and an array of integers decodes as bytes")
    func bytesAndIntegerArraysInterchange() throws {
        let bytes: [UInt8] = [0, 1, 200, 255]
        #expect(try decoder.decode(Data.self, from: try encoder.encode(bytes)) == Data(bytes))
        #expect(try decoder.decode([UInt8].self, from: try encoder.encode(Data(bytes))) == bytes)
        #expect(try decoder.decode([Int].self, from: try encoder.encode(bytes)) == [0, 1, 200, 255])
        #expect(
            try decoder.decode(ContiguousArray<UInt8>.self, from: try encoder.encode(bytes)) == ContiguousArray(bytes)
        )
        #expect(try decoder.decode([UInt8].self, from: try encoder.encode(ContiguousArray(bytes))) == bytes)
        #expect(try decoder.decode(Data.self, from: try encoder.encode([Int](bytes.map(Int.init)))) == Data(bytes))
        let error = decodingError([Int8].self, from: try encoder.encode(bytes))
        #expect(error?.message == "expected an integer at [2], found the byte 200")
    }

    @Test("Int?? properties keep all three states; top-level and array optionals round-trip")
    func nestedOptionalsRoundTrip() throws {
        for value in [Maybe(value: .none), Maybe(value: .some(.none)), Maybe(value: .some(.some(7)))] {
            #expect(try roundTrip(value) == value)
        }
        #expect(try roundTrip(Int??.none) == .none)
        #expect(try roundTrip(Int??.some(.some(3))) == .some(.some(3)))
        #expect(try roundTrip([1, nil, 3] as [Int?]) == [1, nil, 3])
        #expect(try roundTrip(["a": nil, "b": 2] as [String: Int?]) == ["a": nil, "b": 2])
    }

    @Test("enums with associated values round-trip")
    func enumsWithAssociatedValuesRoundTrip() throws {
        let shapes: [Shape] = [
            .circle(radius: 1.5), .rectangle(2, 3), .empty, .labelled("", inner: nil),
            .labelled("outer", inner: .labelled("inner", inner: .circle(radius: 0))),
        ]
        #expect(try roundTrip(shapes) == shapes)
        for shape in shapes { #expect(try roundTrip(shape) == shape) }
    }

    @Test("a class hierarchy round-trips, through superEncoder() or through a shared container")
    func classHierarchyRoundTrips() throws {
        let dog = try roundTrip(Dog(name: "Rex", breed: "collie"))
        #expect(dog.name == "Rex")
        #expect(dog.breed == "collie")
        let cat = try roundTrip(Cat(name: "Tom", lives: 9))
        #expect(cat.name == "Tom")
        #expect(cat.lives == 9)
    }

    @Test("dictionaries with String, Int and other keys round-trip")
    func dictionariesRoundTrip() throws {
        let byName = ["one": 1, "two": 2, "": 0, "ünï": -1, "12": 12, "012": 13]
        #expect(try roundTrip(byName) == byName)
        let byNumber = [1: "one", -2: "minus two", 0: "zero", Int.max: "max"]
        #expect(try roundTrip(byNumber) == byNumber)
        let byDouble = [1.5: "a", -2: "b"]
        #expect(try roundTrip(byDouble) == byDouble)
        let nested = ["a": [1: [true]], "b": [:]]
        #expect(try roundTrip(nested) == nested)
        #expect(try roundTrip(IntKeyed(first: "f", second: 2)) == IntKeyed(first: "f", second: 2))
    }

    @Test("Date and URL round-trip")
    func dateAndURLRoundTrip() throws {
        let date = Date(timeIntervalSinceReferenceDate: 123_456.789)
        #expect(try roundTrip(date) == date)
        let base = try #require(URL(string: "https://example.com/a/"))
        let urls = [
            base, try #require(URL(string: "file:///tmp/x%20y?q=1#frag")),
            try #require(URL(string: "b/c?d", relativeTo: base)),
        ]
        for url in urls {
            let decoded = try roundTrip(url)
            #expect(decoded.absoluteString == url.absoluteString)
        }
    }

    @Test("nested arrays of numbers, strings and bytes round-trip")
    func nestedArraysRoundTrip() throws {
        let numbers: [[[Int]]] = [[[1, 2], []], [], [[-3]]]
        #expect(try roundTrip(numbers) == numbers)
        let strings = [["a", ""], [], ["ß"]]
        #expect(try roundTrip(strings) == strings)
        #expect(try roundTrip([Point(x: 1, y: 2), Point(x: -1, y: 0)]) == [Point(x: 1, y: 2), Point(x: -1, y: 0)])
        #expect(try roundTrip(Tree(depth: 100)) == Tree(depth: 100))
        #expect(try roundTrip(Sample.example) == Sample.example)
    }

    @Test("writes that interleave nested containers and their parent round-trip")
    func interleavedContainersRoundTrip() throws {
        let value = Interleaved(a: 1, b: [2, 3, 4], c: "five", d: Point(x: 6, y: 7))
        #expect(try roundTrip(value) == value)
    }

    @Test("the wire format of a small struct is as documented")
    func wireFormatIsAsDocumented() throws {
        let bytes = try encoder.encode(Point(x: 1, y: -1))
        #expect(bytes == [0x0A, 0x09, 0x02, 0x01, 0x78, 0x03, 0x02, 0x01, 0x79, 0x03, 0x01])
        #expect(try encoder.encode([true, false]) == [0x09, 0x03, 0x02, 0x02, 0x01])
        #expect(try encoder.encode("hé") == [0x07, 0x03, 0x68, 0xC3, 0xA9])
        #expect(try encoder.encode(UInt8(200)) == [0x04, 0xC8, 0x01])
        #expect(try encoder.encode(Int?.none) == [0x00])
    }

    @Test("a slice of a larger buffer and a raw buffer decode like an array")
    func slicesAndRawBuffersDecode() throws {
        let bytes = try encoder.encode(Point(x: 3, y: 4))
        let framed = [0xEE, 0xEE] + bytes + [0xEE]
        #expect(try decoder.decode(Point.self, from: framed[2..<(2 + bytes.count)]) == Point(x: 3, y: 4))
        #expect(try bytes.withUnsafeBytes { try decoder.decode(Point.self, from: $0) } == Point(x: 3, y: 4))
        #expect(decodingError(Point.self, from: Array(framed[2...])) != nil)
    }

    // MARK: Keyed decoding

    @Test("keys decode in another order than they were encoded")
    func keysDecodeInAnyOrder() throws {
        let person = Person(name: "Ada", age: 36, email: "ada@example.com", tags: ["math", "engines"])
        #expect(try decoder.decode(Person.self, from: try encoder.encode(ReversedPerson(person: person))) == person)
        let noEmail = Person(name: "Bob", age: 1, email: nil, tags: [])
        #expect(try decoder.decode(Person.self, from: try encoder.encode(ReversedPerson(person: noEmail))) == noEmail)
    }

    @Test("contains, decodeNil and decodeIfPresent see missing keys and nil values")
    func missingKeysAndNilValues() throws {
        struct Probe: Decodable {
            enum CodingKeys: String, CodingKey { case name, nothing, absent }
            var results: [Bool]
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                results = [
                    container.contains(.name), container.contains(.nothing), !container.contains(.absent),
                    try !container.decodeNil(forKey: .name), try container.decodeNil(forKey: .nothing),
                    try container.decodeIfPresent(Int.self, forKey: .absent) == nil,
                    try container.decodeIfPresent(Int.self, forKey: .nothing) == nil,
                    try container.decodeIfPresent(String.self, forKey: .name) == "n",
                    try container.decodeIfPresent(Point.self, forKey: .absent) == nil,
                    container.allKeys.count == 2,
                ]
            }
        }
        let bytes = try encoder.encode(["name": "n", "nothing": nil] as [String: String?])
        #expect(try decoder.decode(Probe.self, from: bytes).results.allSatisfy { $0 })
    }

    // MARK: Errors

    @Test("a missing key is an error that names the key and its path")
    func missingKeyErrorNamesTheKey() throws {
        let bytes = try encoder.encode(["user": ["name": "Ada", "email": "a@b"]])
        struct Wrapper: Decodable { var user: Person }
        let error = try #require(decodingError(Wrapper.self, from: bytes))
        #expect(error.message == "missing key \"age\" at user.age")
    }

    @Test("a value of the wrong kind is an error that names the coding path and both kinds")
    func typeMismatchErrorNamesThePath() throws {
        struct Named: Codable { var name: Int }
        struct Wrapper: Codable { var user: Named }
        struct Expected: Decodable {
            struct User: Decodable { var name: String }
            var user: User
        }
        let bytes = try encoder.encode(Wrapper(user: Named(name: 3)))
        #expect(
            decodingError(Expected.self, from: bytes)?.message == "expected a string at user.name, found an integer"
        )
        #expect(
            decodingError([String].self, from: try encoder.encode(["a", "b"] as [String?] + [nil]))?.message
                == "expected a string at [2], found nil"
        )
        #expect(
            decodingError([[UInt8]].self, from: try encoder.encode([[1], [300]]))?.message
                == "number 300 at [1][0] does not fit in UInt8"
        )
        #expect(
            decodingError(Person.self, from: try encoder.encode([1, 2]))?.message
                == "expected a keyed object at the top level, found an array"
        )
        #expect(decodingError(Shape.self, from: try encoder.encode(["square": [String: Int]()])) != nil)
    }

    @Test("bytes after the value are an error")
    func trailingBytesAreAnError() throws {
        let error = decodingError(Point.self, from: try encoder.encode(Point(x: 1, y: 2)) + [0])
        #expect(error?.message == "1 unexpected bytes after the value")
    }

    @Test("a value nested deeper than 256 levels is refused when encoding")
    func tooDeepValueFailsToEncode() throws {
        // Each level of a Tree is two levels of coding: the Tree and its array of children.
        #expect(try roundTrip(Tree(depth: 127)) == Tree(depth: 127))
        #expect(throws: CompactCodingError.self) { try encoder.encode(Tree(depth: 128)) }
    }

    // MARK: Hostile input

    @Test("every truncation of a real encoding throws")
    func everyTruncationThrows() async throws {
        let encodings: [(bytes: [UInt8], decode: ([UInt8]) throws -> Void)] = [
            (try encoder.encode(Sample.example), { _ = try decoder.decode(Sample.self, from: $0) }),
            (try encoder.encode(Integers.max), { _ = try decoder.decode(Integers.self, from: $0) }),
            (try encoder.encode(Dog(name: "Rex", breed: "collie")), { _ = try decoder.decode(Dog.self, from: $0) }),
        ]
        var decodedPrefixes: [Int] = []
        var iterations = 0
        for (bytes, decode) in encodings {
            for length in 0..<bytes.count {
                if (try? decode(Array(bytes.prefix(length)))) != nil { decodedPrefixes.append(length) }
                iterations += 1
                if iterations % 200 == 0 { await Task.yield() }
            }
            try decode(bytes)
        }
        #expect(decodedPrefixes == [])
    }

    @Test("random mutations of real encodings decode or throw, never crash")
    func randomMutationsNeverCrash() async throws {
        let sources = [
            try encoder.encode(Sample.example), try encoder.encode(Integers.min),
            try encoder.encode(Interleaved(a: 1, b: [2, 3], c: "c", d: Point(x: 4, y: 5))),
        ]
        var random = XorShift(state: 0x9E37_79B9_7F4A_7C15)
        var outcomes = (decoded: 0, failed: 0)
        for iteration in 0..<4000 {
            var bytes = sources[iteration % sources.count]
            for _ in 0..<(1 + random.next(below: 4)) {
                let index = random.next(below: bytes.count)
                switch random.next(below: 5) {
                case 0: bytes[index] ^= UInt8(1 << random.next(below: 8))
                case 1: bytes[index] = UInt8(truncatingIfNeeded: random.next())
                case 2: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: index)
                case 3: if bytes.count > 1 { bytes.remove(at: index) }
                default: bytes.replaceSubrange(index..<min(index + 9, bytes.count), with: Self.varint(.max >> 1))
                }
            }
            let results = [
                (try? decoder.decode(Sample.self, from: bytes)) != nil,
                (try? decoder.decode(Integers.self, from: bytes)) != nil,
                (try? decoder.decode(Interleaved.self, from: bytes)) != nil,
                (try? decoder.decode([String: [Int]].self, from: bytes)) != nil,
                (try? decoder.decode([Int?].self, from: bytes)) != nil,
            ]
            for result in results {
                if result { outcomes.decoded += 1 } else { outcomes.failed += 1 }
            }
            if iteration % 200 == 0 { await Task.yield() }
        }
        #expect(outcomes.decoded + outcomes.failed == 20_000)
        #expect(outcomes.failed > 0)
    }

    @Test("a count or length of 2^60 throws instead of allocating")
    func hugeCountsThrowWithoutAllocating() throws {
        let huge = Self.varint(1 << 60)
        let arrayOfHugeCount = [0x09, UInt8(huge.count)] + huge
        #expect(
            decodingError([Int].self, from: arrayOfHugeCount)?.message
                == "malformed input at the top level: an array whose elements cannot fit in its 0 bytes"
        )
        let objectOfHugeCount = [0x0A, UInt8(huge.count)] + huge
        #expect(decodingError([String: Int].self, from: objectOfHugeCount) != nil)
        for tag: UInt8 in [0x07, 0x08, 0x09, 0x0A] {
            let hugeLength = [tag] + huge
            #expect(
                decodingError([UInt8].self, from: hugeLength)?.message
                    == "truncated input at the top level: a length of 1152921504606846976 bytes, but only 0 remain"
            )
            #expect(decodingError([[UInt8]].self, from: [0x09, 11, 1] + hugeLength) != nil)
            #expect(decodingError(String.self, from: hugeLength) != nil)
        }
        #expect(decodingError([Int].self, from: [0x09] + Self.varint(.max)) != nil)
        #expect(decodingError(Int.self, from: [0x03] + [UInt8](repeating: 0xFF, count: 30)) != nil)
    }

    @Test("10,000 nested arrays are an error, not a stack overflow")
    func depthBombThrows() throws {
        // From the inside out: an empty array, then each level an array of one element.
        var headers: [[UInt8]] = []
        var innerSize = 3
        for _ in 0..<10_000 {
            let body = 1 + innerSize
            let header = [0x09] + Self.varint(UInt64(body)) + [0x01]
            headers.append(header)
            innerSize = header.count + innerSize
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(innerSize)
        for header in headers.reversed() { bytes += header }
        bytes += [0x09, 0x01, 0x00]
        #expect(bytes.count == innerSize)
        let error = try #require(decodingError(Tree.self, from: bytes))
        #expect(error.message.hasSuffix("is nested deeper than 256 levels"))
        #expect(decodingError([[[[Int]]]].self, from: bytes) != nil)
    }

    @Test("garbage that is not an encoding at all throws")
    func garbageThrows() throws {
        for bytes: [UInt8] in [
            [], [0x0B], [0xFF, 0x00], [0x07, 0x02, 0xC3, 0x28], [0x05, 1, 2, 3], [0x0A, 0x02, 0x05, 0x00],
        ] {
            #expect(decodingError(Sample.self, from: bytes) != nil)
            #expect(decodingError(String.self, from: bytes) != nil)
        }
        // An array that claims two elements but holds one, ending the input.
        #expect(decodingError([Int?].self, from: [0x09, 0x03, 0x02, 0x03, 0x02])?.message == "truncated input at [1]")
        #expect(decodingError([Int].self, from: [0x09, 0x03, 0x02, 0x03, 0x02])?.message == "truncated input at [1]")
        #expect(
            decodingError(String.self, from: [0x07, 0x02, 0xC3, 0x28])?.message
                == "malformed input at the top level: a string that is not valid UTF-8"
        )
    }
}
