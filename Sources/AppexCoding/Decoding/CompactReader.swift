/// Bounds-checked reading of the input.
///
/// The reader owns a copy of the input, freed with the reader; every decoder and container that
/// reads it holds the reader, so the memory outlives anything that can reach it. Every read is
/// checked against a limit that is at most the input's size: the end of the value or container
/// being read.
final class CompactReader {
    private let storage: UnsafeMutableBufferPointer<UInt8>

    init(copying input: UnsafeRawBufferPointer) {
        storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: input.count)
        UnsafeMutableRawBufferPointer(storage).copyMemory(from: input)
    }

    deinit { storage.deallocate() }

    /// The input.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(storage) }
    var count: Int { storage.count }

    /// The byte at `position`, which the caller has checked is below a limit.
    func peek(_ position: Int) -> UInt8 { storage[position] }

    /// `count` bytes from `position`, which the caller has checked fit below a limit.
    func slice(_ position: Int, _ count: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: storage[position..<position + count])
    }

    func byte(_ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt8 {
        guard position < limit else { throw .truncated }
        let byte = storage[position]
        position += 1
        return byte
    }

    /// A varint of up to 64 bits; nil if it is wider.
    func varint(_ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try byte(&position, limit)
            if shift == 63 && byte > 1 { return nil }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// A varint of up to 128 bits; nil if it is wider.
    func varint128(_ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt128? {
        var result: UInt128 = 0
        var shift: UInt128 = 0
        while true {
            let byte = try byte(&position, limit)
            if shift == 126 && byte > 3 { return nil }
            result |= UInt128(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// A byte count, which must fit before `limit`.
    func length(_ position: inout Int, _ limit: Int) throws(CompactWireError) -> Int {
        guard let count = try varint(&position, limit) else { throw .malformed("a length wider than 64 bits") }
        guard count <= UInt64(limit - position) else { throw .overrun(claimed: count, available: limit - position) }
        return Int(count)
    }

    /// `size` little-endian bytes.
    func fixed(_ position: inout Int, _ limit: Int, size: Int) throws(CompactWireError) -> UInt64 {
        guard size <= limit - position else { throw .truncated }
        var value: UInt64 = 0
        var index = size
        while index > 0 {
            index -= 1
            value = value << 8 | UInt64(storage[position + index])
        }
        position += size
        return value
    }

    /// Moves past one value without reading its contents.
    func skip(_ position: inout Int, _ limit: Int) throws(CompactWireError) {
        let tag = try byte(&position, limit)
        switch tag {
        case CompactTag.null, CompactTag.false, CompactTag.true:
            return
        case CompactTag.signed, CompactTag.unsigned:
            var read = 0
            while read < 19 {
                if try byte(&position, limit) < 0x80 { return }
                read += 1
            }
            throw .malformed("an integer wider than 128 bits")
        case CompactTag.double:
            guard 8 <= limit - position else { throw .truncated }
            position += 8
        case CompactTag.float:
            guard 4 <= limit - position else { throw .truncated }
            position += 4
        case CompactTag.string, CompactTag.bytes, CompactTag.array, CompactTag.object:
            let count = try length(&position, limit)
            position += count
        default:
            throw .malformed("unknown tag 0x\(String(tag, radix: 16))")
        }
    }

    /// A signed integer from either integer tag, between `min` and `max`.
    func signed(
        _ position: inout Int,
        _ limit: Int,
        min: Int64,
        max: Int64,
        type: String
    ) throws(CompactWireError) -> Int64 {
        let tag = try byte(&position, limit)
        guard tag == CompactTag.signed || tag == CompactTag.unsigned else {
            throw .mismatch(expected: "an integer", found: CompactTag.describe(tag))
        }
        guard let bits = try varint(&position, limit) else {
            throw .outOfRange(value: "wider than 64 bits", type: type)
        }
        if tag == CompactTag.unsigned {
            guard bits <= UInt64(max) else { throw .outOfRange(value: "\(bits)", type: type) }
            return Int64(bits)
        }
        let value = CompactVarint.unzigzag(bits)
        guard value >= min && value <= max else { throw .outOfRange(value: "\(value)", type: type) }
        return value
    }

    /// An unsigned integer from either integer tag, at most `max`.
    func unsigned(_ position: inout Int, _ limit: Int, max: UInt64, type: String) throws(CompactWireError) -> UInt64 {
        let tag = try byte(&position, limit)
        guard tag == CompactTag.signed || tag == CompactTag.unsigned else {
            throw .mismatch(expected: "an integer", found: CompactTag.describe(tag))
        }
        guard let bits = try varint(&position, limit) else {
            throw .outOfRange(value: "wider than 64 bits", type: type)
        }
        if tag == CompactTag.signed {
            let value = CompactVarint.unzigzag(bits)
            guard value >= 0 && UInt64(value) <= max else { throw .outOfRange(value: "\(value)", type: type) }
            return UInt64(value)
        }
        guard bits <= max else { throw .outOfRange(value: "\(bits)", type: type) }
        return bits
    }

    /// An integer of up to 128 bits, from either integer tag.
    func wideInteger<I: FixedWidthInteger>(_ position: inout Int, _ limit: Int) throws(CompactWireError) -> I {
        let tag = try byte(&position, limit)
        guard tag == CompactTag.unsigned || tag == CompactTag.signed else {
            throw .mismatch(expected: "an integer", found: CompactTag.describe(tag))
        }
        guard let bits = try varint128(&position, limit) else { throw .malformed("an integer wider than 128 bits") }
        if tag == CompactTag.unsigned {
            guard let result = I(exactly: bits) else { throw .outOfRange(value: "\(bits)", type: "\(I.self)") }
            return result
        }
        let value = CompactVarint.unzigzag(bits)
        guard let result = I(exactly: value) else { throw .outOfRange(value: "\(value)", type: "\(I.self)") }
        return result
    }

    /// A primitive at a position, or an error naming the path.
    func primitive<V: CompactPrimitive>(
        _ type: V.Type,
        at position: Int,
        limit: Int,
        path: @autoclosure () -> CompactPath
    ) throws(CompactCodingError) -> V {
        var position = position
        do throws(CompactWireError) {
            return try V.read(self, &position, limit)
        } catch {
            throw error.codingError(at: path())
        }
    }

    /// Decodes any value at a position: a ``CompactDirectType`` directly, anything else through its
    /// `init(from:)` with a decoder one level deeper.
    func value<T: Decodable>(
        _ type: T.Type,
        at position: Int,
        limit: Int,
        depth: Int,
        path: @autoclosure () -> CompactPath
    ) throws -> T {
        if let direct = CompactDirectTypes.lookup(T.self),
            direct.readsDirectly(from: self, at: position, limit: limit)
        {
            return try direct.read(T.self, from: self, at: position, limit: limit, path: path())
        }
        guard depth < compactMaximumDepth else { throw CompactWireError.tooDeep.codingError(at: path()) }
        let decoder = CompactDecoderImpl(reader: self, position: position, limit: limit, path: path(), depth: depth + 1)
        return try T(from: decoder)
    }

    /// Whether the value at `position` is `bytes`.
    func isBytes(at position: Int, limit: Int) -> Bool {
        position < limit && storage[position] == CompactTag.bytes
    }

    /// The payload of the `bytes` value at `position`, which ``isBytes(at:limit:)``.
    func bytesPayload(
        at position: Int,
        limit: Int,
        path: @autoclosure () -> CompactPath
    ) throws(CompactCodingError) -> UnsafeBufferPointer<UInt8> {
        var start = position + 1
        do throws(CompactWireError) {
            let count = try length(&start, limit)
            return slice(start, count)
        } catch {
            throw error.codingError(at: path())
        }
    }
}
