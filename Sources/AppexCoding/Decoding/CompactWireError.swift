/// What was wrong with the input, before the container that found it adds the coding path.
/// Indirect, so that it is one word wide: cheap to reserve room for on every read that might throw.
indirect enum CompactWireError: Error {
    case truncated
    case overrun(claimed: UInt64, available: Int)
    case mismatch(expected: String, found: String)
    case outOfRange(value: String, type: String)
    case malformed(String)
    case tooDeep

    func codingError(at path: CompactPath) -> CompactCodingError {
        let place = path.description
        switch self {
        case .truncated:
            return CompactCodingError("truncated input at \(place)")
        case .overrun(let claimed, let available):
            return CompactCodingError(
                "truncated input at \(place): a length of \(claimed) bytes, but only \(available) remain"
            )
        case .mismatch(let expected, let found):
            return CompactCodingError("expected \(expected) at \(place), found \(found)")
        case .outOfRange(let value, let type):
            return CompactCodingError("number \(value) at \(place) does not fit in \(type)")
        case .malformed(let what):
            return CompactCodingError("malformed input at \(place): \(what)")
        case .tooDeep:
            return CompactCodingError("the value at \(place) is nested deeper than \(compactMaximumDepth) levels")
        }
    }
}
