#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A type the coder writes and reads itself, never through its `encode(to:)` or `init(from:)`:
/// the primitives IPC values are mostly made of, `[UInt8]` and `Data`.
///
/// Going through `Codable` for these costs an `Encoder` or a `Decoder` and a container per value;
/// for `[UInt8]` and `Data` it would also cost a call per byte. ``CompactDirectTypes/table`` lists
/// them, and encoding and decoding both look a type up there: one list for both directions.
protocol CompactDirectType: SendableMetatype {
    /// Adds `value`, whose type is this type, to `contents` as an entry after `key`.
    static func add<T>(_ value: T, key: String?, to contents: inout CompactBoxContents)

    /// Whether the value at `position` is read by ``read(_:from:at:limit:path:)``: `bytes` become
    /// `[UInt8]` or `Data` here, but an array of integers becomes them through `init(from:)`.
    static func readsDirectly(from reader: CompactReader, at position: Int, limit: Int) -> Bool

    /// Reads the value at `position` as `T`, which is this type.
    static func read<T>(
        _ type: T.Type,
        from reader: CompactReader,
        at position: Int,
        limit: Int,
        path: @autoclosure () -> CompactPath
    ) throws(CompactCodingError) -> T
}

/// The types that ``CompactDirectType`` says how to code, and their lookup.
enum CompactDirectTypes {
    /// The most used first: a lookup is a scan, which for twelve entries is faster than hashing.
    static let table: [(type: ObjectIdentifier, coding: any CompactDirectType.Type)] = [
        entry([UInt8].self), entry(String.self), entry(Int.self), entry(Bool.self), entry(Double.self),
        entry(Data.self), entry(UInt8.self), entry(Int64.self), entry(UInt64.self), entry(Int32.self),
        entry(UInt32.self), entry(Float.self),
    ]

    private static func entry<T: CompactDirectType>(
        _ type: T.Type
    ) -> (type: ObjectIdentifier, coding: any CompactDirectType.Type) {
        (ObjectIdentifier(type), type)
    }

    /// How values of type `T` are written and read, if the coder does it itself.
    static func lookup<T>(_ type: T.Type) -> (any CompactDirectType.Type)? {
        let identifier = ObjectIdentifier(type)
        for entry in table where entry.type == identifier {
            return entry.coding
        }
        return nil
    }
}

/// A primitive is written and read as its tag says.
extension CompactDirectType where Self: CompactPrimitive {
    static func add<T>(_ value: T, key: String?, to contents: inout CompactBoxContents) {
        contents.add(key, unsafeBitCast(value, to: Self.self))
    }

    static func readsDirectly(from reader: CompactReader, at position: Int, limit: Int) -> Bool { true }

    static func read<T>(
        _ type: T.Type,
        from reader: CompactReader,
        at position: Int,
        limit: Int,
        path: @autoclosure () -> CompactPath
    ) throws(CompactCodingError) -> T {
        unsafeBitCast(try reader.primitive(Self.self, at: position, limit: limit, path: path()), to: T.self)
    }
}

extension String: CompactDirectType {}
extension Int: CompactDirectType {}
extension Bool: CompactDirectType {}
extension Double: CompactDirectType {}
extension UInt8: CompactDirectType {}
extension Int64: CompactDirectType {}
extension UInt64: CompactDirectType {}
extension Int32: CompactDirectType {}
extension UInt32: CompactDirectType {}
extension Float: CompactDirectType {}

/// `[UInt8]` is one `bytes` value, not an array of integers.
extension Array: CompactDirectType where Element == UInt8 {
    static func add<T>(_ value: T, key: String?, to contents: inout CompactBoxContents) {
        contents.add(key, bytes: unsafeBitCast(value, to: [UInt8].self))
    }

    static func readsDirectly(from reader: CompactReader, at position: Int, limit: Int) -> Bool {
        reader.isBytes(at: position, limit: limit)
    }

    static func read<T>(
        _ type: T.Type,
        from reader: CompactReader,
        at position: Int,
        limit: Int,
        path: @autoclosure () -> CompactPath
    ) throws(CompactCodingError) -> T {
        unsafeBitCast(Array(try reader.bytesPayload(at: position, limit: limit, path: path())), to: T.self)
    }
}

/// `Data` is one `bytes` value, as `[UInt8]` is.
extension Data: CompactDirectType {
    static func add<T>(_ value: T, key: String?, to contents: inout CompactBoxContents) {
        contents.add(key, data: unsafeBitCast(value, to: Data.self))
    }

    static func readsDirectly(from reader: CompactReader, at position: Int, limit: Int) -> Bool {
        reader.isBytes(at: position, limit: limit)
    }

    static func read<T>(
        _ type: T.Type,
        from reader: CompactReader,
        at position: Int,
        limit: Int,
        path: @autoclosure () -> CompactPath
    ) throws(CompactCodingError) -> T {
        unsafeBitCast(Data(try reader.bytesPayload(at: position, limit: limit, path: path())), to: T.self)
    }
}
