/// A value that could not be encoded, or bytes that could not be decoded: what was wrong and where.
///
/// The message names the coding path (`user.name`, `items[2].id`, "the top level") and, when
/// decoding, what was expected and what was found instead. Bytes that arrive from another process
/// and do not decode are this error, never a crash.
public struct CompactCodingError: Error, Sendable, CustomStringConvertible {
    /// What was wrong and where, in words.
    public let message: String

    init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

/// Turns any error thrown while coding into a ``CompactCodingError`` that says where.
func compactCodingError(from error: any Error, verb: String) -> CompactCodingError {
    if let error = error as? CompactCodingError { return error }
    if let error = error as? DecodingError {
        switch error {
        case .typeMismatch(let type, let context):
            let place = compactDescribePath(context.codingPath)
            return CompactCodingError("expected \(type) at \(place): \(context.debugDescription)")
        case .valueNotFound(let type, let context):
            let place = compactDescribePath(context.codingPath)
            return CompactCodingError("missing \(type) value at \(place): \(context.debugDescription)")
        case .keyNotFound(let key, let context):
            let place = compactDescribePath(context.codingPath + [key])
            return CompactCodingError("missing key \"\(key.stringValue)\" at \(place)")
        case .dataCorrupted(let context):
            let place = compactDescribePath(context.codingPath)
            return CompactCodingError("invalid value at \(place): \(context.debugDescription)")
        @unknown default:
            return CompactCodingError("cannot \(verb): \(error)")
        }
    }
    if let error = error as? EncodingError {
        switch error {
        case .invalidValue(let value, let context):
            let place = compactDescribePath(context.codingPath)
            return CompactCodingError("cannot encode a \(type(of: value)) at \(place): \(context.debugDescription)")
        @unknown default:
            return CompactCodingError("cannot \(verb): \(error)")
        }
    }
    return CompactCodingError("cannot \(verb): \(error)")
}
