/// The single-value container: the decoder itself, reading the one value it is at.
extension CompactDecoderImpl: SingleValueDecodingContainer {
    func decodeNil() -> Bool {
        position < limit && reader.peek(position) == CompactTag.null
    }

    private func primitive<V: CompactPrimitive>(_ type: V.Type) throws(CompactCodingError) -> V {
        try reader.primitive(V.self, at: position, limit: limit, path: path)
    }

    func decode(_ type: Bool.Type) throws -> Bool { try primitive(type) }
    func decode(_ type: String.Type) throws -> String { try primitive(type) }
    func decode(_ type: Double.Type) throws -> Double { try primitive(type) }
    func decode(_ type: Float.Type) throws -> Float { try primitive(type) }
    func decode(_ type: Int.Type) throws -> Int { try primitive(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try primitive(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try primitive(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try primitive(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try primitive(type) }
    func decode(_ type: Int128.Type) throws -> Int128 { try primitive(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try primitive(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try primitive(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try primitive(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try primitive(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try primitive(type) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try primitive(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try reader.value(T.self, at: position, limit: limit, depth: depth, path: path)
    }
}
