/// An unkeyed container over an array, or over a `bytes` value whose elements are `UInt8`s.
struct CompactUnkeyedDecoder: UnkeyedDecodingContainer {
    let decoder: CompactDecoderImpl
    /// Whether the elements are the raw bytes of a `bytes` value rather than tagged values.
    let isBytes: Bool
    let end: Int
    let total: Int
    private var position: Int
    private(set) var currentIndex = 0

    init(_ decoder: CompactDecoderImpl) throws(CompactCodingError) {
        self.decoder = decoder
        let reader = decoder.reader
        var position = decoder.position
        do throws(CompactWireError) {
            let tag = try reader.byte(&position, decoder.limit)
            guard tag == CompactTag.array || tag == CompactTag.bytes else {
                throw .mismatch(expected: "an array", found: CompactTag.describe(tag))
            }
            let length = try reader.length(&position, decoder.limit)
            let end = position + length
            if tag == CompactTag.array {
                guard let count = try reader.varint(&position, end), count <= UInt64(end - position) else {
                    throw .malformed("an array whose elements cannot fit in its \(end - position) bytes")
                }
                total = Int(count)
                isBytes = false
            } else {
                total = end - position
                isBytes = true
            }
            self.end = end
            self.position = position
        } catch {
            throw error.codingError(at: decoder.path)
        }
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { total }
    var isAtEnd: Bool { currentIndex >= total }

    private var elementPath: CompactPath { decoder.path.appending(index: currentIndex) }

    private func checkNotAtEnd(_ expected: @autoclosure () -> String) throws(CompactCodingError) {
        guard currentIndex < total else {
            throw CompactCodingError(
                "expected \(expected()) at \(elementPath.description), found the end of an array of \(total)"
            )
        }
    }

    private mutating func next<V: CompactPrimitive>(_ type: V.Type) throws(CompactCodingError) -> V {
        try checkNotAtEnd(V.wireName)
        if isBytes {
            let byte = decoder.reader.peek(position)
            guard let value = V.fromByte(byte) else {
                throw CompactWireError.mismatch(expected: V.wireName, found: "the byte \(byte)")
                    .codingError(at: elementPath)
            }
            position += 1
            currentIndex += 1
            return value
        }
        var next = position
        do throws(CompactWireError) {
            let value = try V.read(decoder.reader, &next, end)
            position = next
            currentIndex += 1
            return value
        } catch {
            throw error.codingError(at: elementPath)
        }
    }

    /// Moves past the current element, once it has been decoded.
    private mutating func advance() throws(CompactCodingError) {
        if isBytes {
            position += 1
        } else {
            var next = position
            do throws(CompactWireError) {
                try decoder.reader.skip(&next, end)
            } catch {
                throw error.codingError(at: elementPath)
            }
            position = next
        }
        currentIndex += 1
    }

    mutating func decodeNil() throws -> Bool {
        try checkNotAtEnd("nil")
        guard !isBytes, position < end, decoder.reader.peek(position) == CompactTag.null else { return false }
        position += 1
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try next(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try next(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if isBytes { return try byteElement(T.self) }
        try checkNotAtEnd("\(T.self)")
        let value = try decoder.reader.value(T.self, at: position, limit: end, depth: decoder.depth, path: elementPath)
        try advance()
        return value
    }

    /// The current element of a `bytes` value, as any integer type it fits.
    private mutating func byteElement<T: Decodable>(_ type: T.Type) throws(CompactCodingError) -> T {
        if T.self == UInt8.self { return unsafeBitCast(try next(UInt8.self), to: T.self) }
        let primitive = T.self as? any CompactPrimitive.Type
        try checkNotAtEnd(primitive?.wireName ?? "\(T.self)")
        let byte = decoder.reader.peek(position)
        guard let value = primitive?.fromByte(byte) as? T else {
            throw CompactWireError.mismatch(expected: primitive?.wireName ?? "\(T.self)", found: "the byte \(byte)")
                .codingError(at: elementPath)
        }
        position += 1
        currentIndex += 1
        return value
    }

    /// A decoder for the current element, before moving past it.
    private func childForCurrent(_ expected: String) throws(CompactCodingError) -> CompactDecoderImpl {
        try checkNotAtEnd(expected)
        if isBytes {
            throw CompactWireError.mismatch(expected: expected, found: "the byte \(decoder.reader.peek(position))")
                .codingError(at: elementPath)
        }
        return try decoder.child(at: position, limit: end, path: elementPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try CompactKeyedDecoder<NestedKey>(try childForCurrent("a keyed object"))
        try advance()
        return KeyedDecodingContainer(container)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try CompactUnkeyedDecoder(try childForCurrent("an array"))
        try advance()
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let child = try childForCurrent("a value")
        try advance()
        return child
    }
}
