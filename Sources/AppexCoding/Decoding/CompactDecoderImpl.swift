/// The `Decoder` handed to a value's `init(from:)`; also its single-value container
/// (`CompactDecoder+SingleValue.swift`).
final class CompactDecoderImpl: Decoder {
    let reader: CompactReader
    /// Where the value starts.
    let position: Int
    /// Where the value or its enclosing container ends.
    let limit: Int
    let path: CompactPath
    let depth: Int

    init(reader: CompactReader, position: Int, limit: Int, path: CompactPath, depth: Int) {
        self.reader = reader
        self.position = position
        self.limit = limit
        self.path = path
        self.depth = depth
    }

    /// A decoder for a nil value, for a `superDecoder()` whose key is missing.
    static func missing(path: CompactPath, depth: Int) -> CompactDecoderImpl {
        let reader = [CompactTag.null].withUnsafeBytes { CompactReader(copying: $0) }
        return CompactDecoderImpl(reader: reader, position: 0, limit: 1, path: path, depth: depth)
    }

    /// A decoder one level deeper, for a nested value or container.
    func child(
        at position: Int,
        limit: Int,
        path: @autoclosure () -> CompactPath
    ) throws(CompactCodingError) -> CompactDecoderImpl {
        guard depth < compactMaximumDepth else { throw CompactWireError.tooDeep.codingError(at: path()) }
        return CompactDecoderImpl(reader: reader, position: position, limit: limit, path: path(), depth: depth + 1)
    }

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(try CompactKeyedDecoder<Key>(self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try CompactUnkeyedDecoder(self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }
}
