/// Decodes `Decodable` values from the compact binary format that ``CompactEncoder`` writes.
///
/// The input comes from another process and is never trusted: truncated or malformed bytes, a
/// count or length larger than the input, nesting deeper than 256 levels, bytes after the
/// value, and values of the wrong kind are all errors that name the coding path, never crashes.
/// See ``CompactEncoder`` for the wire format.
///
/// Keyed values may be decoded in any order and with keys missing; integers decode into any
/// integer type they fit; a Float decodes as a Double; `bytes` decode as `[UInt8]`, `Data` or any
/// array of integers, and an array of integers decodes as `[UInt8]` or `Data`.
public struct CompactDecoder: Sendable {
    /// Makes a decoder.
    public init() {}

    /// Decodes a value of the given type from the whole of `bytes`, or says what was wrong and where.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(CompactCodingError) -> T {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(CompactCodingError) in try decode(type, copying: buffer) }
        }.get()
    }

    /// Decodes a value of the given type from the whole of a slice of bytes.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: ArraySlice<UInt8>) throws(CompactCodingError) -> T {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(CompactCodingError) in try decode(type, copying: buffer) }
        }.get()
    }

    /// Decodes a value of the given type from the whole of a buffer, which need only stay valid
    /// for the call: the decoder reads a copy.
    public func decode<T: Decodable>(
        _ type: T.Type,
        from bytes: UnsafeRawBufferPointer
    ) throws(CompactCodingError) -> T {
        try decode(type, copying: bytes)
    }

    private func decode<T: Decodable>(
        _ type: T.Type,
        copying bytes: UnsafeRawBufferPointer
    ) throws(CompactCodingError) -> T {
        let reader = CompactReader(copying: bytes)
        var end = 0
        do throws(CompactWireError) {
            try reader.skip(&end, reader.count)
        } catch {
            throw error.codingError(at: .root)
        }
        guard end == reader.count else {
            throw CompactCodingError("\(reader.count - end) unexpected bytes after the value")
        }
        do {
            return try reader.value(T.self, at: 0, limit: end, depth: 0, path: .root)
        } catch {
            throw compactCodingError(from: error, verb: "decode")
        }
    }
}
