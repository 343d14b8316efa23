/// What all encoders and containers of one `encode` call share.
final class CompactEncodingState {
    /// The first failure of a call that cannot throw, thrown when encoding ends.
    var error: CompactCodingError?

    func fail(_ message: String) {
        if error == nil { error = CompactCodingError(message) }
    }

    /// Whether a container may be nested one level below `depth`; records an error if not.
    func allowsNesting(below depth: Int, at path: CompactPath) -> Bool {
        if depth < compactMaximumDepth { return true }
        fail("the value at \(path.description) is nested deeper than \(compactMaximumDepth) levels")
        return false
    }

    /// Whether ``encode(_:into:key:path:depth:)`` writes a value of this type itself, rather than
    /// through the value's `encode(to:)`.
    static func writesDirectly<T>(_ type: T.Type) -> Bool {
        CompactDirectTypes.lookup(type) != nil
    }

    /// Writes a value into `box`, after its key if `box` is an object: a ``CompactDirectType``
    /// directly, anything else through its `encode(to:)`. Nothing is written if that throws.
    func encode<T: Encodable>(
        _ value: T,
        into box: CompactBox,
        key: String?,
        path: @autoclosure () -> CompactPath,
        depth: Int
    ) throws {
        if let direct = CompactDirectTypes.lookup(T.self) {
            direct.add(value, key: key, to: &box.contents)
        } else {
            guard depth < compactMaximumDepth else {
                throw CompactCodingError(
                    "the value at \(path().description) is nested deeper than \(compactMaximumDepth) levels"
                )
            }
            let encoder = CompactEncoderImpl(state: self, path: path(), depth: depth + 1)
            try value.encode(to: encoder)
            box.contents.add(key, splice: .encoder(encoder))
        }
    }
}
