/// An unkeyed container writing into a ``CompactBox`` of kind array.
struct CompactUnkeyedEncoder: UnkeyedEncodingContainer {
    let box: CompactBox
    let state: CompactEncodingState
    let path: CompactPath
    let depth: Int

    var codingPath: [any CodingKey] { path.keys }
    var count: Int { box.contents.elements }

    private func write(_ value: some CompactPrimitive) { box.contents.add(nil, value) }

    mutating func encodeNil() { box.contents.addNil(nil) }

    mutating func encode(_ value: Bool) { write(value) }
    mutating func encode(_ value: String) { write(value) }
    mutating func encode(_ value: Double) { write(value) }
    mutating func encode(_ value: Float) { write(value) }
    mutating func encode(_ value: Int) { write(value) }
    mutating func encode(_ value: Int8) { write(value) }
    mutating func encode(_ value: Int16) { write(value) }
    mutating func encode(_ value: Int32) { write(value) }
    mutating func encode(_ value: Int64) { write(value) }
    mutating func encode(_ value: Int128) { write(value) }
    mutating func encode(_ value: UInt) { write(value) }
    mutating func encode(_ value: UInt8) { write(value) }
    mutating func encode(_ value: UInt16) { write(value) }
    mutating func encode(_ value: UInt32) { write(value) }
    mutating func encode(_ value: UInt64) { write(value) }
    mutating func encode(_ value: UInt128) { write(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try state.encode(value, into: box, key: nil, path: path.appending(index: box.contents.elements), depth: depth)
    }

    /// Adds an element that is spliced in, if nesting is allowed this deep.
    private func addNested(_ content: CompactSplice, at nestedPath: CompactPath) {
        guard state.allowsNesting(below: depth, at: nestedPath) else { return }
        box.contents.add(nil, splice: content)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nestedPath = path.appending(index: box.contents.elements)
        let nested = CompactBox(.object)
        addNested(.box(nested), at: nestedPath)
        let container = CompactKeyedEncoder<NestedKey>(box: nested, state: state, path: nestedPath, depth: depth + 1)
        return KeyedEncodingContainer(container)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nestedPath = path.appending(index: box.contents.elements)
        let nested = CompactBox(.array)
        addNested(.box(nested), at: nestedPath)
        return CompactUnkeyedEncoder(box: nested, state: state, path: nestedPath, depth: depth + 1)
    }

    mutating func superEncoder() -> any Encoder {
        let nestedPath = path.appending(index: box.contents.elements)
        let encoder = CompactEncoderImpl(state: state, path: nestedPath, depth: depth + 1)
        addNested(.encoder(encoder), at: encoder.path)
        return encoder
    }
}
