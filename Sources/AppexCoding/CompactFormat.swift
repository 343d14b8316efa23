/// The tag bytes that start every value.
///
/// The format is a tree of tagged values: every value is one tag byte followed by its payload.
/// A *varint* is unsigned LEB128 (seven bits a byte, low bits first, the high bit set on every
/// byte but the last); multi-byte numbers are little-endian.
///
/// | Tag    | Value        | Payload                                                              |
/// |--------|--------------|----------------------------------------------------------------------|
/// | `0x00` | nil          | none                                                                 |
/// | `0x01` | false        | none                                                                 |
/// | `0x02` | true         | none                                                                 |
/// | `0x03` | signed int   | zigzag varint, up to 128 bits                                        |
/// | `0x04` | unsigned int | varint, up to 128 bits                                               |
/// | `0x05` | Double       | 8 bytes, the IEEE 754 bit pattern (NaN payloads survive)             |
/// | `0x06` | Float        | 4 bytes, likewise                                                    |
/// | `0x07` | string       | varint byte count, then UTF-8                                        |
/// | `0x08` | bytes        | varint byte count, then the bytes: how `[UInt8]` and `Data` travel   |
/// | `0x09` | array        | varint body size; body: varint count, then the elements              |
/// | `0x0A` | keyed object | varint body size; body: varint count, then per entry a key, a value  |
///
/// A key is untagged: a varint byte count, then the UTF-8 of the `CodingKey.stringValue`.
/// Arrays and objects start with their body's size so that a reader can step over a value it
/// does not need without reading it. Swift's own `Codable` implementations decide which of these
/// a type becomes: a struct or an enum case is an object, `Date` is a Double, a dictionary with
/// `String` or `Int` keys is an object whose keys are strings. A value that encodes nothing is an
/// empty object.
///
/// Values nested more than ``compactMaximumDepth`` levels deep are refused in both directions.
enum CompactTag {
    static let null: UInt8 = 0x00
    static let `false`: UInt8 = 0x01
    static let `true`: UInt8 = 0x02
    static let signed: UInt8 = 0x03
    static let unsigned: UInt8 = 0x04
    static let double: UInt8 = 0x05
    static let float: UInt8 = 0x06
    static let string: UInt8 = 0x07
    static let bytes: UInt8 = 0x08
    static let array: UInt8 = 0x09
    static let object: UInt8 = 0x0A

    /// What a value with this tag is, in words for an error message.
    static func describe(_ tag: UInt8) -> String {
        switch tag {
        case null: "nil"
        case `false`, `true`: "a boolean"
        case signed, unsigned: "an integer"
        case double: "a Double"
        case float: "a Float"
        case string: "a string"
        case bytes: "bytes"
        case array: "an array"
        case object: "a keyed object"
        default: "an unknown tag 0x\(String(tag, radix: 16))"
        }
    }
}

/// The most levels a value may be nested in, when encoding and when decoding: each value coded
/// through its own `encode(to:)` or `init(from:)` and each nested container is one level.
let compactMaximumDepth = 256

/// LEB128 and zigzag arithmetic (AppexIPC's invocation envelope writes its lengths with it too).
package enum CompactVarint {
    package static func size(_ value: UInt64) -> Int {
        value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
    }

    static func size(_ value: UInt128) -> Int {
        value == 0 ? 1 : (128 - value.leadingZeroBitCount + 6) / 7
    }

    package static func write(_ value: UInt64, into bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
    static func unzigzag(_ value: UInt64) -> Int64 { Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }
    static func zigzag(_ value: Int128) -> UInt128 { UInt128(bitPattern: (value << 1) ^ (value >> 127)) }
    static func unzigzag(_ value: UInt128) -> Int128 {
        Int128(bitPattern: value >> 1) ^ -Int128(bitPattern: value & 1)
    }
}
