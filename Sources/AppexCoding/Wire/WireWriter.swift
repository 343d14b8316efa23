/// Writes a schema-driven binary form: the caller writes each field in a fixed order, untagged,
/// and ``WireReader`` reads them back in the same order.
///
/// For the few messages on a hot path (a widget's view tree, the handshake), where the
/// ``CompactEncoder``'s `Codable` machinery costs more than the message: no keys, no tags, no
/// generic containers, nothing for the runtime to look up the first time a process writes one.
/// Integers are LEB128 varints (signed ones zigzagged), `Double`s their 8 bytes little-endian,
/// strings and byte runs a varint count and then the bytes.
package struct WireWriter: Sendable {
    /// What has been written.
    package private(set) var bytes: [UInt8]

    /// A writer whose output starts with `prefix`, with room for `capacity` bytes.
    package init(prefix: [UInt8] = [], capacity: Int = 256) {
        bytes = prefix
        bytes.reserveCapacity(capacity)
    }

    /// One byte.
    package mutating func write(byte: UInt8) {
        bytes.append(byte)
    }

    /// `false` as 0, `true` as 1.
    package mutating func write(_ value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    /// An unsigned varint.
    package mutating func write(varint value: UInt64) {
        CompactVarint.write(value, into: &bytes)
    }

    /// A count or other non-negative `Int`, as a varint (a negative one as 0: never written).
    package mutating func write(count: Int) {
        write(varint: UInt64(max(0, count)))
    }

    /// A signed integer, zigzagged into a varint.
    package mutating func write(_ value: Int64) {
        write(varint: CompactVarint.zigzag(value))
    }

    /// A `Double`'s bit pattern, little-endian.
    package mutating func write(_ value: Double) {
        var bits = value.bitPattern
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }

    /// A `Double` that may be absent: a presence byte, then the value.
    package mutating func write(_ value: Double?) {
        write(value != nil)
        if let value { write(value) }
    }

    /// A string: its UTF-8 byte count, then the bytes.
    package mutating func write(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            write(count: utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    /// A byte run: its count, then the bytes.
    package mutating func write(bytes run: [UInt8]) {
        write(count: run.count)
        bytes.append(contentsOf: run)
    }
}
