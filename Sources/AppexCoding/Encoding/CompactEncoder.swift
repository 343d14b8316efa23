/// Encodes `Encodable` values into the compact binary format that IPC arguments and results use.
///
/// The format is a tree of tagged values: every value is one tag byte (nil, false, true, a signed
/// or unsigned integer, a Double, a Float, a string, bytes, an array, a keyed object) followed by
/// its payload. Integers are varints of up to 128 bits; `[UInt8]` and `Data` travel as one
/// length-prefixed run of bytes, not an element at a time; arrays and objects start with their
/// size, so that a reader can step over what it does not need. The byte-level table is on
/// `CompactTag` in `Sources/AppexCoding/CompactFormat.swift`.
///
/// Swift's own `Codable` implementations decide what a type becomes: a struct or an enum case is
/// an object, `Date` is a Double, a dictionary with `String` or `Int` keys is an object whose keys
/// are strings.
///
/// Values nested more than 256 levels deep are refused, as the decoder refuses them: a level is
/// each value coded through its own `encode(to:)` and each nested container.
public struct CompactEncoder: Sendable {
    /// Makes an encoder.
    public init() {}

    /// Encodes a value into a new byte array, or says what could not be encoded and where.
    public func encode<T: Encodable>(_ value: T) throws(CompactCodingError) -> [UInt8] {
        if ObjectIdentifier(T.self) == compactByteArrayType {
            return CompactSerializer.encodeBytes(unsafeBitCast(value, to: [UInt8].self))
        }
        let state = CompactEncodingState()
        let root: CompactBox?
        do {
            if CompactEncodingState.writesDirectly(T.self) {
                let box = CompactBox(.value)
                try state.encode(value, into: box, key: nil, path: .root, depth: 0)
                root = box
            } else {
                let encoder = CompactEncoderImpl(state: state, path: .root, depth: 1)
                try value.encode(to: encoder)
                root = encoder.box
            }
        } catch {
            throw compactCodingError(from: error, verb: "encode")
        }
        if let error = state.error { throw error }
        return try CompactSerializer.bytes(of: root)
    }
}

/// The identity of `[UInt8]`, computed once: asking for a generic type's metadata on every value
/// costs a runtime lookup.
private let compactByteArrayType = ObjectIdentifier([UInt8].self)
