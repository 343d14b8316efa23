/// The `Encoder` handed to a value's `encode(to:)`; also its single-value container
/// (`CompactEncoder+SingleValue.swift`).
final class CompactEncoderImpl: Encoder {
    let state: CompactEncodingState
    let path: CompactPath
    let depth: Int
    /// What was encoded, if anything yet.
    private(set) var box: CompactBox?

    init(state: CompactEncodingState, path: CompactPath, depth: Int) {
        self.state = state
        self.path = path
        self.depth = depth
    }

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The box for a container of this kind: the one already made, or a new one.
    func box(_ kind: CompactBox.Kind, _ what: String) -> CompactBox {
        if let box {
            if box.kind == kind { return box }
            state.fail("cannot encode \(what) at \(path.description), where another value was already encoded")
            return CompactBox(kind)
        }
        let box = CompactBox(kind)
        self.box = box
        return box
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box = box(.object, "a keyed container")
        return KeyedEncodingContainer(CompactKeyedEncoder<Key>(box: box, state: state, path: path, depth: depth))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        CompactUnkeyedEncoder(box: box(.array, "an unkeyed container"), state: state, path: path, depth: depth)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }
}
