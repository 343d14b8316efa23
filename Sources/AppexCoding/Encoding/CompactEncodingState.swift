#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
        ObjectIdentifier(T.self) == compactByteArrayType || T.self == String.self || T.self == Int.self
            || T.self == Bool.self || T.self == Double.self || T.self == Data.self || T.self == UInt8.self
            || T.self == Int64.self || T.self == UInt64.self || T.self == Int32.self || T.self == UInt32.self
            || T.self == Float.self
    }

    /// Writes a value into `box`, after its key if `box` is an object: primitives, `[UInt8]` and
    /// `Data` directly, anything else through its `encode(to:)`. Nothing is written if that throws.
    func encode<T: Encodable>(
        _ value: T, into box: CompactBox, key: String?, path: @autoclosure () -> CompactPath, depth: Int
    ) throws {
        if ObjectIdentifier(T.self) == compactByteArrayType {
            box.contents.add(key, bytes: unsafeBitCast(value, to: [UInt8].self))
        } else if T.self == String.self {
            box.contents.add(key, unsafeBitCast(value, to: String.self))
        } else if T.self == Int.self {
            box.contents.add(key, unsafeBitCast(value, to: Int.self))
        } else if T.self == Bool.self {
            box.contents.add(key, unsafeBitCast(value, to: Bool.self))
        } else if T.self == Double.self {
            box.contents.add(key, unsafeBitCast(value, to: Double.self))
        } else if T.self == Data.self {
            box.contents.add(key, data: unsafeBitCast(value, to: Data.self))
        } else if T.self == UInt8.self {
            box.contents.add(key, unsafeBitCast(value, to: UInt8.self))
        } else if T.self == Int64.self {
            box.contents.add(key, unsafeBitCast(value, to: Int64.self))
        } else if T.self == UInt64.self {
            box.contents.add(key, unsafeBitCast(value, to: UInt64.self))
        } else if T.self == Int32.self {
            box.contents.add(key, unsafeBitCast(value, to: Int32.self))
        } else if T.self == UInt32.self {
            box.contents.add(key, unsafeBitCast(value, to: UInt32.self))
        } else if T.self == Float.self {
            box.contents.add(key, unsafeBitCast(value, to: Float.self))
        } else {
            guard depth < compactMaximumDepth else {
                throw CompactCodingError(
                    "the value at \(path().description) is nested deeper than \(compactMaximumDepth) levels")
            }
            let encoder = CompactEncoderImpl(state: self, path: path(), depth: depth + 1)
            try value.encode(to: encoder)
            box.contents.add(key, splice: .encoder(encoder))
        }
    }
}

