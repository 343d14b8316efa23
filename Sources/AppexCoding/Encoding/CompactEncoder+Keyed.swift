/// A keyed container writing into a ``CompactBox`` of kind object.
struct CompactKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: CompactBox
    let state: CompactEncodingState
    let path: CompactPath
    let depth: Int

    var codingPath: [any CodingKey] { path.keys }

    private func write(_ value: some CompactPrimitive, _ key: Key) { box.contents.add(key.stringValue, value) }

    mutating func encodeNil(forKey key: Key) { box.contents.addNil(key.stringValue) }

    mutating func encode(_ value: Bool, forKey key: Key) { write(value, key) }
    mutating func encode(_ value: String, forKey key: Key) { write(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) { write(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) { write(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) { write(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) { write(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) { write(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) { write(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) { write(value, key) }
    mutating func encode(_ value: Int128, forKey key: Key) { write(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) { write(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) { write(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) { write(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) { write(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) { write(value, key) }
    mutating func encode(_ value: UInt128, forKey key: Key) { write(value, key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try state.encode(value, into: box, key: key.stringValue, path: path.appending(key), depth: depth)
    }

    /// Adds an entry whose value is spliced in, if nesting is allowed this deep.
    private func addNested(_ key: some CodingKey, _ content: CompactSplice, at nestedPath: CompactPath) {
        guard state.allowsNesting(below: depth, at: nestedPath) else { return }
        box.contents.add(key.stringValue, splice: content)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nestedPath = path.appending(key)
        let nested = CompactBox(.object)
        addNested(key, .box(nested), at: nestedPath)
        let container = CompactKeyedEncoder<NestedKey>(box: nested, state: state, path: nestedPath, depth: depth + 1)
        return KeyedEncodingContainer(container)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nestedPath = path.appending(key)
        let nested = CompactBox(.array)
        addNested(key, .box(nested), at: nestedPath)
        return CompactUnkeyedEncoder(box: nested, state: state, path: nestedPath, depth: depth + 1)
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(named: CompactStringKey.super)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(named: key)
    }

    private func superEncoder(named key: some CodingKey) -> any Encoder {
        let encoder = CompactEncoderImpl(state: state, path: path.appending(key), depth: depth + 1)
        addNested(key, .encoder(encoder), at: encoder.path)
        return encoder
    }
}
