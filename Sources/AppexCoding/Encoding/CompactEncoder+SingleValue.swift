/// The single-value container: the encoder itself, holding at most one value.
extension CompactEncoderImpl: SingleValueEncodingContainer {
    /// The box for a single value, if none was encoded here yet.
    private func valueBox() -> CompactBox? {
        let box = box(.value, "a single value")
        guard box.contents.elements == 0 else {
            state.fail("cannot encode a second value at \(path.description)")
            return nil
        }
        return box
    }

    func encodeNil() { valueBox()?.contents.addNil(nil) }
    func encode(_ value: Bool) { write(value) }
    func encode(_ value: String) { write(value) }
    func encode(_ value: Double) { write(value) }
    func encode(_ value: Float) { write(value) }
    func encode(_ value: Int) { write(value) }
    func encode(_ value: Int8) { write(value) }
    func encode(_ value: Int16) { write(value) }
    func encode(_ value: Int32) { write(value) }
    func encode(_ value: Int64) { write(value) }
    func encode(_ value: Int128) { write(value) }
    func encode(_ value: UInt) { write(value) }
    func encode(_ value: UInt8) { write(value) }
    func encode(_ value: UInt16) { write(value) }
    func encode(_ value: UInt32) { write(value) }
    func encode(_ value: UInt64) { write(value) }
    func encode(_ value: UInt128) { write(value) }

    private func write(_ value: some CompactPrimitive) { valueBox()?.contents.add(nil, value) }

    func encode<T: Encodable>(_ value: T) throws {
        guard let box = valueBox() else { return }
        try state.encode(value, into: box, key: nil, path: path, depth: depth)
    }
}
