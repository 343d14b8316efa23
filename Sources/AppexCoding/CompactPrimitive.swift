/// A type with its own tag: how it is written and read back.
protocol CompactPrimitive {
    /// What the type is, in words for an error message.
    static var wireName: String { get }
    /// Reads a value at `position`, moving past it.
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Self
    /// The value of one element of a `bytes` payload, if this type can hold it.
    static func fromByte(_ byte: UInt8) -> Self?
    /// Writes the value, tag and payload.
    func write(into contents: inout CompactBoxContents)
}

extension CompactPrimitive {
    static func fromByte(_ byte: UInt8) -> Self? { nil }
}

extension CompactPrimitive where Self: FixedWidthInteger {
    static var wireName: String { "an integer" }
    static func fromByte(_ byte: UInt8) -> Self? { Self(exactly: byte) }
}

extension Int: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Int {
        let value = try reader.signed(&position, limit, min: Int64(Int.min), max: Int64(Int.max), type: "Int")
        return Int(truncatingIfNeeded: value)
    }
    func write(into contents: inout CompactBoxContents) { contents.write(signed: Int64(self)) }
}

extension Int8: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Int8 {
        Int8(truncatingIfNeeded: try reader.signed(&position, limit, min: -0x80, max: 0x7F, type: "Int8"))
    }
    func write(into contents: inout CompactBoxContents) { contents.write(signed: Int64(self)) }
}

extension Int16: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Int16 {
        Int16(truncatingIfNeeded: try reader.signed(&position, limit, min: -0x8000, max: 0x7FFF, type: "Int16"))
    }
    func write(into contents: inout CompactBoxContents) { contents.write(signed: Int64(self)) }
}

extension Int32: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Int32 {
        let value = try reader.signed(&position, limit, min: -0x8000_0000, max: 0x7FFF_FFFF, type: "Int32")
        return Int32(truncatingIfNeeded: value)
    }
    func write(into contents: inout CompactBoxContents) { contents.write(signed: Int64(self)) }
}

extension Int64: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Int64 {
        try reader.signed(&position, limit, min: .min, max: .max, type: "Int64")
    }
    func write(into contents: inout CompactBoxContents) { contents.write(signed: self) }
}

extension UInt: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt {
        UInt(truncatingIfNeeded: try reader.unsigned(&position, limit, max: UInt64(UInt.max), type: "UInt"))
    }
    func write(into contents: inout CompactBoxContents) { contents.write(unsigned: UInt64(self)) }
}

extension UInt8: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt8 {
        UInt8(truncatingIfNeeded: try reader.unsigned(&position, limit, max: UInt64(UInt8.max), type: "UInt8"))
    }
    func write(into contents: inout CompactBoxContents) { contents.write(unsigned: UInt64(self)) }
}

extension UInt16: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt16 {
        UInt16(truncatingIfNeeded: try reader.unsigned(&position, limit, max: UInt64(UInt16.max), type: "UInt16"))
    }
    func write(into contents: inout CompactBoxContents) { contents.write(unsigned: UInt64(self)) }
}

extension UInt32: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt32 {
        UInt32(truncatingIfNeeded: try reader.unsigned(&position, limit, max: UInt64(UInt32.max), type: "UInt32"))
    }
    func write(into contents: inout CompactBoxContents) { contents.write(unsigned: UInt64(self)) }
}

extension UInt64: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt64 {
        try reader.unsigned(&position, limit, max: .max, type: "UInt64")
    }
    func write(into contents: inout CompactBoxContents) { contents.write(unsigned: self) }
}

extension Int128: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Int128 {
        try reader.wideInteger(&position, limit)
    }
    func write(into contents: inout CompactBoxContents) { contents.write(signed: self) }
}

extension UInt128: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt128 {
        try reader.wideInteger(&position, limit)
    }
    func write(into contents: inout CompactBoxContents) { contents.write(unsigned: self) }
}

extension Bool: CompactPrimitive {
    static var wireName: String { "a boolean" }
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Bool {
        let tag = try reader.byte(&position, limit)
        switch tag {
        case CompactTag.false: return false
        case CompactTag.true: return true
        default: throw .mismatch(expected: wireName, found: CompactTag.describe(tag))
        }
    }
    func write(into contents: inout CompactBoxContents) { contents.write(self) }
}

extension String: CompactPrimitive {
    static var wireName: String { "a string" }
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> String {
        let tag = try reader.byte(&position, limit)
        guard tag == CompactTag.string else { throw .mismatch(expected: wireName, found: CompactTag.describe(tag)) }
        let count = try reader.length(&position, limit)
        guard let string = String(validating: reader.slice(position, count), as: UTF8.self) else {
            throw .malformed("a string that is not valid UTF-8")
        }
        position += count
        return string
    }
    func write(into contents: inout CompactBoxContents) { contents.write(self) }
}

extension Double: CompactPrimitive {
    static var wireName: String { "a Double" }
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Double {
        let tag = try reader.byte(&position, limit)
        switch tag {
        case CompactTag.double: return Double(bitPattern: try reader.fixed(&position, limit, size: 8))
        case CompactTag.float:
            return Double(Float(bitPattern: UInt32(truncatingIfNeeded: try reader.fixed(&position, limit, size: 4))))
        default: throw .mismatch(expected: wireName, found: CompactTag.describe(tag))
        }
    }
    func write(into contents: inout CompactBoxContents) { contents.write(self) }
}

extension Float: CompactPrimitive {
    static var wireName: String { "a Float" }
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Float {
        let tag = try reader.byte(&position, limit)
        switch tag {
        case CompactTag.float:
            return Float(bitPattern: UInt32(truncatingIfNeeded: try reader.fixed(&position, limit, size: 4)))
        case CompactTag.double:
            let double = Double(bitPattern: try reader.fixed(&position, limit, size: 8))
            let float = Float(double)
            guard double.isNaN || Double(float) == double else { throw .outOfRange(value: "\(double)", type: "Float") }
            return float
        default:
            throw .mismatch(expected: wireName, found: CompactTag.describe(tag))
        }
    }
    func write(into contents: inout CompactBoxContents) { contents.write(self) }
}
