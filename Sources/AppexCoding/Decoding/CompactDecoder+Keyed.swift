/// Lets a decoder tell an optional type from others, so that `Int??` survives as a property.
protocol CompactOptionalMarker {}
extension Optional: CompactOptionalMarker {}

/// Where one entry of an object is in the input.
struct CompactEntryRange {
    var keyStart: Int
    /// Also where the value starts.
    var keyEnd: Int
    var valueEnd: Int
}

/// A keyed container over an object. Its entries are found once; a key is looked for from the
/// entry after the last one found, so decoding in the encoded order takes one comparison a key.
final class CompactKeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: CompactDecoderImpl
    let entries: [CompactEntryRange]
    private var cursor = 0

    init(_ decoder: CompactDecoderImpl) throws(CompactCodingError) {
        self.decoder = decoder
        do throws(CompactWireError) {
            entries = try Self.scan(decoder.reader, at: decoder.position, limit: decoder.limit)
        } catch {
            throw error.codingError(at: decoder.path)
        }
    }

    /// Where each entry of the object at `position` is.
    private static func scan(
        _ reader: CompactReader,
        at position: Int,
        limit: Int
    ) throws(CompactWireError) -> [CompactEntryRange] {
        var position = position
        let tag = try reader.byte(&position, limit)
        guard tag == CompactTag.object else {
            throw .mismatch(expected: "a keyed object", found: CompactTag.describe(tag))
        }
        let length = try reader.length(&position, limit)
        let end = position + length
        guard let count = try reader.varint(&position, end), count <= UInt64(end - position) / 2 else {
            throw .malformed("an object whose entries cannot fit in its \(end - position) bytes")
        }
        var entries: [CompactEntryRange] = []
        entries.reserveCapacity(Int(count))
        var index = 0
        while index < Int(count) {
            let keyCount = try reader.length(&position, end)
            let keyStart = position
            position += keyCount
            let keyEnd = position
            try reader.skip(&position, end)
            entries.append(CompactEntryRange(keyStart: keyStart, keyEnd: keyEnd, valueEnd: position))
            index += 1
        }
        guard position == end else { throw .malformed("\(end - position) bytes after the object's last entry") }
        return entries
    }

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        entries.compactMap { entry in
            let key = decoder.reader.slice(entry.keyStart, entry.keyEnd - entry.keyStart)
            let name = String(decoding: key, as: UTF8.self)
            return Key(stringValue: name) ?? Int(name).flatMap { Key(intValue: $0) }
        }
    }

    /// The entry for a key, if there is one.
    private func find(_ key: Key) -> CompactEntryRange? { find(name: key.stringValue) }

    /// The entry whose key is `name`, searching from the entry after the last one found.
    private func find(name: String) -> CompactEntryRange? {
        let count = entries.count
        guard count > 0 else { return nil }
        var name = name
        let bytes = decoder.reader.bytes
        let found: Int? = name.withUTF8 { wanted in
            var index = cursor
            var tried = 0
            while tried < count {
                let entry = entries[index]
                if entry.keyEnd - entry.keyStart == wanted.count, bytes.matches(wanted, at: entry.keyStart) {
                    return index
                }
                index = index + 1 == count ? 0 : index + 1
                tried += 1
            }
            return nil
        }
        guard let found else { return nil }
        cursor = found + 1 == count ? 0 : found + 1
        return entries[found]
    }

    private func entry(_ key: Key) throws(CompactCodingError) -> CompactEntryRange {
        guard let entry = find(key) else {
            throw CompactCodingError("missing key \"\(key.stringValue)\" at \(decoder.path.appending(key).description)")
        }
        return entry
    }

    private func isNil(_ entry: CompactEntryRange) -> Bool { decoder.reader.peek(entry.keyEnd) == CompactTag.null }

    private func primitive<V: CompactPrimitive>(_ key: Key) throws(CompactCodingError) -> V {
        let entry = try entry(key)
        return try decoder.reader.primitive(
            V.self,
            at: entry.keyEnd,
            limit: entry.valueEnd,
            path: decoder.path.appending(key)
        )
    }

    private func primitiveIfPresent<V: CompactPrimitive>(_ key: Key) throws(CompactCodingError) -> V? {
        guard let entry = find(key), !isNil(entry) else { return nil }
        return try decoder.reader.primitive(
            V.self,
            at: entry.keyEnd,
            limit: entry.valueEnd,
            path: decoder.path.appending(key)
        )
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { isNil(try entry(key)) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try primitive(key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try primitive(key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try primitive(key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try primitive(key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try primitive(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try primitive(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try primitive(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try primitive(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try primitive(key) }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try primitive(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try primitive(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try primitive(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try primitive(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try primitive(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try primitive(key) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try primitive(key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let entry = try entry(key)
        return try decoder.reader.value(
            T.self,
            at: entry.keyEnd,
            limit: entry.valueEnd,
            depth: decoder.depth,
            path: decoder.path.appending(key)
        )
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? { try primitiveIfPresent(key) }

    /// Nil if the key is missing or its value is nil, except that a nil decodes as `.some(nil)`
    /// when `T` is itself optional, so that a property of type `Int??` keeps all three states.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let entry = find(key) else { return nil }
        if isNil(entry) && !(T.self is any CompactOptionalMarker.Type) { return nil }
        return try decoder.reader.value(
            T.self,
            at: entry.keyEnd,
            limit: entry.valueEnd,
            depth: decoder.depth,
            path: decoder.path.appending(key)
        )
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let entry = try entry(key)
        let child = try decoder.child(at: entry.keyEnd, limit: entry.valueEnd, path: decoder.path.appending(key))
        return KeyedDecodingContainer(try CompactKeyedDecoder<NestedKey>(child))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let entry = try entry(key)
        let child = try decoder.child(at: entry.keyEnd, limit: entry.valueEnd, path: decoder.path.appending(key))
        return try CompactUnkeyedDecoder(child)
    }

    func superDecoder() throws -> any Decoder {
        let path = decoder.path.appending(CompactStringKey.super)
        guard let entry = find(name: CompactStringKey.super.stringValue) else {
            return CompactDecoderImpl.missing(path: path, depth: decoder.depth + 1)
        }
        return try decoder.child(at: entry.keyEnd, limit: entry.valueEnd, path: path)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        let path = decoder.path.appending(key)
        guard let entry = find(key) else { return CompactDecoderImpl.missing(path: path, depth: decoder.depth + 1) }
        return try decoder.child(at: entry.keyEnd, limit: entry.valueEnd, path: path)
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether the bytes at `position` are `other`, which the caller has checked fit. A loop, not
    /// `memcmp` (which needs Glibc) or `elementsEqual` (measured slower): keys are a few bytes long.
    fileprivate func matches(_ other: UnsafeBufferPointer<UInt8>, at position: Int) -> Bool {
        var index = 0
        while index < other.count {
            guard self[position + index] == other[index] else { return false }
            index += 1
        }
        return true
    }
}
