/// Reads what a ``WireWriter`` wrote, field by field in the writer's order, every read checked
/// against the end of the input: a truncated or garbled input is a ``WireFormatError`` naming
/// what was being read and where, never a crash or an allocation larger than the input.
package struct WireReader {
    private let bytes: [UInt8]
    /// Where the next read starts.
    package private(set) var position: Int

    /// A reader of `bytes` from `start`.
    package init(_ bytes: [UInt8], from start: Int = 0) {
        self.bytes = bytes
        position = min(max(start, 0), bytes.count)
    }

    /// Whether every byte has been read.
    package var isAtEnd: Bool { position == bytes.count }

    /// How many bytes are left.
    package var remaining: Int { bytes.count - position }

    /// An error about the input at the current position.
    package func error(_ what: String) -> WireFormatError {
        WireFormatError(what, at: position)
    }

    /// Throws unless every byte has been read: trailing bytes mean the input is not what the
    /// caller reads.
    package func expectEnd(of what: String) throws(WireFormatError) {
        guard isAtEnd else { throw error("\(remaining) bytes after the end of \(what)") }
    }

    /// One byte.
    package mutating func byte(_ what: @autoclosure () -> String) throws(WireFormatError) -> UInt8 {
        guard position < bytes.count else { throw error("the input ends before \(what())") }
        let byte = bytes[position]
        position += 1
        return byte
    }

    /// A `Bool` written as 0 or 1.
    package mutating func bool(_ what: @autoclosure () -> String) throws(WireFormatError) -> Bool {
        switch try byte(what()) {
        case 0: return false
        case 1: return true
        case let other: throw WireFormatError("\(what()) is \(other), not a boolean", at: position - 1)
        }
    }

    /// An unsigned varint of at most 64 bits.
    package mutating func varint(_ what: @autoclosure () -> String) throws(WireFormatError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try byte(what())
            guard shift < 63 || byte <= 1 else { throw error("\(what()) is wider than 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// A zigzagged signed varint.
    package mutating func int64(_ what: @autoclosure () -> String) throws(WireFormatError) -> Int64 {
        CompactVarint.unzigzag(try varint(what()))
    }

    /// A count of things that each take at least `minimumSize` bytes: larger than what is left
    /// of the input, it is refused before anything is allocated for it.
    package mutating func count(
        _ what: @autoclosure () -> String,
        minimumSize: Int = 1
    ) throws(WireFormatError) -> Int {
        let count = try varint(what())
        guard count <= UInt64(remaining / max(1, minimumSize)) else {
            throw error("\(what()) claims \(count), more than the \(remaining) bytes left could hold")
        }
        return Int(count)
    }

    /// A `Double`, little-endian.
    package mutating func double(_ what: @autoclosure () -> String) throws(WireFormatError) -> Double {
        guard remaining >= 8 else { throw error("the input ends inside \(what())") }
        var bits: UInt64 = 0
        for index in (0..<8).reversed() { bits = bits << 8 | UInt64(bytes[position + index]) }
        position += 8
        return Double(bitPattern: bits)
    }

    /// A `Double` that may be absent.
    package mutating func optionalDouble(_ what: @autoclosure () -> String) throws(WireFormatError) -> Double? {
        try bool("whether \(what()) is there") ? try double(what()) : nil
    }

    /// A string, which must be valid UTF-8.
    package mutating func string(_ what: @autoclosure () -> String) throws(WireFormatError) -> String {
        let count = try count("the length of \(what())")
        let start = position
        position += count
        guard let string = String(validating: bytes[start..<position], as: UTF8.self) else {
            throw WireFormatError("\(what()) is not UTF-8", at: start)
        }
        return string
    }

    /// A byte run.
    package mutating func bytes(_ what: @autoclosure () -> String) throws(WireFormatError) -> [UInt8] {
        let count = try count("the length of \(what())")
        let start = position
        position += count
        return Array(bytes[start..<position])
    }
}
