import Foundation

// MARK: - Public API

/// Encodes `Encodable` values into the compact binary format that IPC arguments and results use.
///
/// The format is a tree of tagged values: every value is one tag byte followed by its payload.
/// A *varint* is unsigned LEB128 (seven bits a byte, low bits first, the high bit set on every
/// byte but the last); multi-byte numbers are little-endian.
///
/// | Tag    | Value        | Payload                                                              |
/// |--------|--------------|----------------------------------------------------------------------|
/// | `0x00` | nil          | none                                                                 |
/// | `0x01` | false        | none                                                                 |
/// | `0x02` | true         | none                                                                 |
/// | `0x03` | signed int   | zigzag varint, up to 128 bits                                        |
/// | `0x04` | unsigned int | varint, up to 128 bits                                               |
/// | `0x05` | Double       | 8 bytes, the IEEE 754 bit pattern (NaN payloads survive)             |
/// | `0x06` | Float        | 4 bytes, likewise                                                    |
/// | `0x07` | string       | varint byte count, then UTF-8                                        |
/// | `0x08` | bytes        | varint byte count, then the bytes: how `[UInt8]` and `Data` travel   |
/// | `0x09` | array        | varint body size; body: varint count, then the elements              |
/// | `0x0A` | keyed object | varint body size; body: varint count, then per entry a key, a value  |
///
/// A key is untagged: a varint byte count, then the UTF-8 of the `CodingKey.stringValue`.
/// Arrays and objects start with their body's size so that a reader can step over a value it
/// does not need without reading it. Swift's own `Codable` implementations decide which of these
/// a type becomes: a struct or an enum case is an object, `Date` is a Double, a dictionary with
/// `String` or `Int` keys is an object whose keys are strings.
///
/// Values nested more than 256 levels deep are refused, as the decoder refuses them: a level is
/// each value coded through its own `encode(to:)` and each nested container.
public struct CompactEncoder: Sendable {
    /// Makes an encoder.
    public init() {}

    /// Encodes a value into a new byte array, or says what could not be encoded and where.
    public func encode<T: Encodable>(_ value: T) throws(IPCError) -> [UInt8] {
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

/// Decodes `Decodable` values from the compact binary format that ``CompactEncoder`` writes.
///
/// The input comes from another process and is never trusted: truncated or malformed bytes, a
/// count or length larger than the input, nesting deeper than 256 levels, bytes after the
/// value, and values of the wrong kind are all errors that name the coding path, never crashes.
/// See ``CompactEncoder`` for the wire format.
///
/// Keyed values may be decoded in any order and with keys missing; integers decode into any
/// integer type they fit; a Float decodes as a Double; `bytes` decode as `[UInt8]`, `Data` or any
/// array of integers, and an array of integers decodes as `[UInt8]` or `Data`.
public struct CompactDecoder: Sendable {
    /// Makes a decoder.
    public init() {}

    /// Decodes a value of the given type from the whole of `bytes`, or says what was wrong and where.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(IPCError) -> T {
        try bytes.withUnsafeBytes { buffer in Result { () throws(IPCError) in try decode(type, copying: buffer) } }.get()
    }

    /// Decodes a value of the given type from the whole of a slice of bytes.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: ArraySlice<UInt8>) throws(IPCError) -> T {
        try bytes.withUnsafeBytes { buffer in Result { () throws(IPCError) in try decode(type, copying: buffer) } }.get()
    }

    /// Decodes a value of the given type from the whole of a buffer, which need only stay valid
    /// for the call: the decoder reads a copy.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws(IPCError) -> T {
        try decode(type, copying: bytes)
    }

    private func decode<T: Decodable>(_ type: T.Type, copying bytes: UnsafeRawBufferPointer) throws(IPCError) -> T {
        let reader = CompactReader(copying: bytes)
        var end = 0
        do throws(CompactWireError) {
            try reader.skip(&end, reader.count)
        } catch {
            throw error.ipcError(at: .root)
        }
        guard end == reader.count else {
            throw IPCError(.coding, "\(reader.count - end) unexpected bytes after the value")
        }
        do {
            return try reader.value(T.self, at: 0, limit: end, depth: 0, path: .root)
        } catch {
            throw compactCodingError(from: error, verb: "decode")
        }
    }
}

// MARK: - Wire constants and shared helpers

/// The tag bytes that start every value.
enum CompactTag {
    static let null: UInt8 = 0x00
    static let `false`: UInt8 = 0x01
    static let `true`: UInt8 = 0x02
    static let signed: UInt8 = 0x03
    static let unsigned: UInt8 = 0x04
    static let double: UInt8 = 0x05
    static let float: UInt8 = 0x06
    static let string: UInt8 = 0x07
    static let bytes: UInt8 = 0x08
    static let array: UInt8 = 0x09
    static let object: UInt8 = 0x0A

    /// What a value with this tag is, in words for an error message.
    static func describe(_ tag: UInt8) -> String {
        switch tag {
        case null: "nil"
        case `false`, `true`: "a boolean"
        case signed, unsigned: "an integer"
        case double: "a Double"
        case float: "a Float"
        case string: "a string"
        case bytes: "bytes"
        case array: "an array"
        case object: "a keyed object"
        default: "an unknown tag 0x\(String(tag, radix: 16))"
        }
    }
}

/// The identity of `[UInt8]`, computed once: asking for a generic type's metadata on every value
/// costs a runtime lookup.
let compactByteArrayType = ObjectIdentifier([UInt8].self)

/// The most levels a value may be nested in, when encoding and when decoding: each value coded
/// through its own `encode(to:)` or `init(from:)` and each nested container is one level.
let compactMaximumDepth = 256

/// LEB128 and zigzag arithmetic.
enum CompactVarint {
    static func size(_ value: UInt64) -> Int {
        value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
    }

    static func size(_ value: UInt128) -> Int {
        value == 0 ? 1 : (128 - value.leadingZeroBitCount + 6) / 7
    }

    static func write(_ value: UInt64, into bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
    static func unzigzag(_ value: UInt64) -> Int64 { Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }
    static func zigzag(_ value: Int128) -> UInt128 { UInt128(bitPattern: (value << 1) ^ (value >> 127)) }
    static func unzigzag(_ value: UInt128) -> Int128 { Int128(bitPattern: value >> 1) ^ -Int128(bitPattern: value & 1) }
}

/// Where a value is in the value being coded, kept as a linked list built only when needed.
indirect enum CompactPath {
    case root
    case key(any CodingKey, parent: CompactPath)
    case index(Int, parent: CompactPath)

    func appending(_ key: some CodingKey) -> CompactPath { .key(key, parent: self) }
    func appending(index: Int) -> CompactPath { .index(index, parent: self) }

    /// The path as `Codable` reports it.
    var keys: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while true {
            switch node {
            case .root:
                return keys.reversed()
            case .key(let key, let parent):
                keys.append(key)
                node = parent
            case .index(let index, let parent):
                keys.append(CompactIndexKey(index))
                node = parent
            }
        }
    }

    /// The path for people: `user.name`, `items[2].id`, or "the top level".
    var description: String { compactDescribePath(keys) }
}

/// Formats a coding path for an error message.
func compactDescribePath(_ keys: [any CodingKey]) -> String {
    guard !keys.isEmpty else { return "the top level" }
    var text = ""
    for key in keys {
        if let index = key as? CompactIndexKey {
            text += "[\(index.index)]"
        } else {
            if !text.isEmpty { text += "." }
            text += key.stringValue
        }
    }
    return text
}

/// The coding key of an array element.
struct CompactIndexKey: CodingKey {
    let index: Int
    init(_ index: Int) { self.index = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.index = intValue }
    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
}

/// A coding key with only a string, such as `super`.
struct CompactStringKey: CodingKey {
    let stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    var intValue: Int? { nil }
    static let `super` = CompactStringKey(stringValue: "super")
}

/// Turns any error thrown while coding into an ``IPCError`` that says where.
func compactCodingError(from error: any Error, verb: String) -> IPCError {
    if let error = error as? IPCError { return error }
    if let error = error as? DecodingError {
        switch error {
        case .typeMismatch(let type, let context):
            let place = compactDescribePath(context.codingPath)
            return IPCError(.coding, "expected \(type) at \(place): \(context.debugDescription)")
        case .valueNotFound(let type, let context):
            let place = compactDescribePath(context.codingPath)
            return IPCError(.coding, "missing \(type) value at \(place): \(context.debugDescription)")
        case .keyNotFound(let key, let context):
            return IPCError(.coding, "missing key \"\(key.stringValue)\" at \(compactDescribePath(context.codingPath + [key]))")
        case .dataCorrupted(let context):
            let place = compactDescribePath(context.codingPath)
            return IPCError(.coding, "invalid value at \(place): \(context.debugDescription)")
        @unknown default:
            return IPCError(.coding, "cannot \(verb): \(error)")
        }
    }
    if let error = error as? EncodingError {
        switch error {
        case .invalidValue(let value, let context):
            let place = compactDescribePath(context.codingPath)
            return IPCError(.coding, "cannot encode a \(type(of: value)) at \(place): \(context.debugDescription)")
        @unknown default:
            return IPCError(.coding, "cannot \(verb): \(error)")
        }
    }
    return IPCError(.coding, "cannot \(verb): \(error)")
}

/// Lets a decoder tell an optional type from others, so that `Int??` survives as a property.
protocol CompactOptionalMarker {}
extension Optional: CompactOptionalMarker {}

// MARK: - Primitives

/// A type with its own tag: how it is written and read back.
protocol CompactPrimitive {
    /// What the type is, in words for an error message.
    static var wireName: String { get }
    /// Reads a value at `position`, moving past it.
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Self
    /// The value of one element of a `bytes` payload, if this type can hold it.
    static func fromByte(_ byte: UInt8) -> Self?
    /// Writes the value, tag and payload.
    func write(into contents: inout CompactBoxContents)
}

extension CompactPrimitive {
    static func fromByte(_ byte: UInt8) -> Self? { nil }
}

extension CompactPrimitive where Self: FixedWidthInteger {
    static var wireName: String { "an integer" }
    static func fromByte(_ byte: UInt8) -> Self? { Self(exactly: byte) }
}

extension Int: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Int {
        Int(truncatingIfNeeded: try reader.signed(&position, limit, min: Int64(Int.min), max: Int64(Int.max), type: "Int"))
    }
    func write(into contents: inout CompactBoxContents) { contents.write(signed: Int64(self)) }
}

extension Int8: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Int8 {
        Int8(truncatingIfNeeded: try reader.signed(&position, limit, min: -0x80, max: 0x7F, type: "Int8"))
    }
    func write(into contents: inout CompactBoxContents) { contents.write(signed: Int64(self)) }
}

extension Int16: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Int16 {
        Int16(truncatingIfNeeded: try reader.signed(&position, limit, min: -0x8000, max: 0x7FFF, type: "Int16"))
    }
    func write(into contents: inout CompactBoxContents) { contents.write(signed: Int64(self)) }
}

extension Int32: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Int32 {
        Int32(truncatingIfNeeded: try reader.signed(&position, limit, min: -0x8000_0000, max: 0x7FFF_FFFF, type: "Int32"))
    }
    func write(into contents: inout CompactBoxContents) { contents.write(signed: Int64(self)) }
}

extension Int64: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Int64 {
        try reader.signed(&position, limit, min: .min, max: .max, type: "Int64")
    }
    func write(into contents: inout CompactBoxContents) { contents.write(signed: self) }
}

extension UInt: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt {
        UInt(truncatingIfNeeded: try reader.unsigned(&position, limit, max: UInt64(UInt.max), type: "UInt"))
    }
    func write(into contents: inout CompactBoxContents) { contents.write(unsigned: UInt64(self)) }
}

extension UInt8: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt8 {
        UInt8(truncatingIfNeeded: try reader.unsigned(&position, limit, max: UInt64(UInt8.max), type: "UInt8"))
    }
    func write(into contents: inout CompactBoxContents) { contents.write(unsigned: UInt64(self)) }
}

extension UInt16: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt16 {
        UInt16(truncatingIfNeeded: try reader.unsigned(&position, limit, max: UInt64(UInt16.max), type: "UInt16"))
    }
    func write(into contents: inout CompactBoxContents) { contents.write(unsigned: UInt64(self)) }
}

extension UInt32: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt32 {
        UInt32(truncatingIfNeeded: try reader.unsigned(&position, limit, max: UInt64(UInt32.max), type: "UInt32"))
    }
    func write(into contents: inout CompactBoxContents) { contents.write(unsigned: UInt64(self)) }
}

extension UInt64: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt64 {
        try reader.unsigned(&position, limit, max: .max, type: "UInt64")
    }
    func write(into contents: inout CompactBoxContents) { contents.write(unsigned: self) }
}

extension Int128: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Int128 {
        try reader.wideInteger(&position, limit)
    }
    func write(into contents: inout CompactBoxContents) { contents.write(signed: self) }
}

extension UInt128: CompactPrimitive {
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt128 {
        try reader.wideInteger(&position, limit)
    }
    func write(into contents: inout CompactBoxContents) { contents.write(unsigned: self) }
}

extension Bool: CompactPrimitive {
    static var wireName: String { "a boolean" }
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Bool {
        let tag = try reader.byte(&position, limit)
        switch tag {
        case CompactTag.false: return false
        case CompactTag.true: return true
        default: throw .mismatch(expected: wireName, found: CompactTag.describe(tag))
        }
    }
    func write(into contents: inout CompactBoxContents) { contents.write(self) }
}

extension String: CompactPrimitive {
    static var wireName: String { "a string" }
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> String {
        let tag = try reader.byte(&position, limit)
        guard tag == CompactTag.string else { throw .mismatch(expected: wireName, found: CompactTag.describe(tag)) }
        let count = try reader.length(&position, limit)
        guard let string = String(validating: reader.slice(position, count), as: UTF8.self) else {
            throw .malformed("a string that is not valid UTF-8")
        }
        position += count
        return string
    }
    func write(into contents: inout CompactBoxContents) { contents.write(self) }
}

extension Double: CompactPrimitive {
    static var wireName: String { "a Double" }
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Double {
        let tag = try reader.byte(&position, limit)
        switch tag {
        case CompactTag.double: return Double(bitPattern: try reader.fixed(&position, limit, size: 8))
        case CompactTag.float:
            return Double(Float(bitPattern: UInt32(truncatingIfNeeded: try reader.fixed(&position, limit, size: 4))))
        default: throw .mismatch(expected: wireName, found: CompactTag.describe(tag))
        }
    }
    func write(into contents: inout CompactBoxContents) { contents.write(self) }
}

extension Float: CompactPrimitive {
    static var wireName: String { "a Float" }
    static func read(_ reader: CompactReader, _ position: inout Int, _ limit: Int) throws(CompactWireError) -> Float {
        let tag = try reader.byte(&position, limit)
        switch tag {
        case CompactTag.float:
            return Float(bitPattern: UInt32(truncatingIfNeeded: try reader.fixed(&position, limit, size: 4)))
        case CompactTag.double:
            let double = Double(bitPattern: try reader.fixed(&position, limit, size: 8))
            let float = Float(double)
            guard double.isNaN || Double(float) == double else { throw .outOfRange(value: "\(double)", type: "Float") }
            return float
        default:
            throw .mismatch(expected: wireName, found: CompactTag.describe(tag))
        }
    }
    func write(into contents: inout CompactBoxContents) { contents.write(self) }
}

// MARK: - Encoding

/// What a ``CompactBox`` holds at one place in its bytes, written out when the value is serialized.
enum CompactSplice {
    /// A nested container.
    case box(CompactBox)
    /// A nested value: what its encoder will have encoded; an empty object if nothing.
    case encoder(CompactEncoderImpl)
    /// The payload of a large `bytes` value, whose header is already in the box.
    case bytes([UInt8])
    /// The payload of a large `bytes` value from `Data`.
    case data(Data)
    /// The UTF-8 of a large string, whose header is already in the box.
    case string(String)
}

/// Where a ``CompactSplice`` goes in a box's bytes.
struct CompactSpliceEntry {
    let offset: Int
    let content: CompactSplice
}

/// A container or single value being encoded: its own values already as bytes, and nested
/// containers and values spliced in at offsets, so that Codable's nested containers can be written
/// to in any order.
final class CompactBox {
    enum Kind {
        /// One value, without a header.
        case value
        case array
        case object
    }

    let kind: Kind
    /// Everything written so far. One stored property, so that a write is one exclusivity check.
    var contents = CompactBoxContents()
    /// The size of the body (the count and the elements), set by ``CompactSerializer/size(of:)``.
    var bodySize = 0

    init(_ kind: Kind) { self.kind = kind }
}

/// The bytes, element count and splices of a ``CompactBox``. Not copyable, so that its bytes have one
/// owner, which frees them.
struct CompactBoxContents: ~Copyable {
    /// Payloads longer than this are spliced in, not copied into the box.
    static let spliceThreshold = 256

    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0
    /// Array items or object entries written so far.
    private(set) var elements = 0
    private(set) var splices: [CompactSpliceEntry] = []

    init() {
        capacity = 64
        storage = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// The bytes written so far.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage, count: count) }

    // MARK: Entries: a key if in an object, then a value

    mutating func add(_ key: String?, _ value: some CompactPrimitive) {
        if let key { appendString(key) }
        value.write(into: &self)
        elements += 1
    }

    mutating func addNil(_ key: String?) {
        if let key { appendString(key) }
        append(CompactTag.null)
        elements += 1
    }

    mutating func add(_ key: String?, bytes value: [UInt8]) {
        if let key { appendString(key) }
        append(CompactTag.bytes)
        appendVarint(UInt64(value.count))
        if value.count > Self.spliceThreshold {
            splices.append(CompactSpliceEntry(offset: count, content: .bytes(value)))
        } else {
            value.withUnsafeBytes { append($0) }
        }
        elements += 1
    }

    mutating func add(_ key: String?, data value: Data) {
        if let key { appendString(key) }
        append(CompactTag.bytes)
        appendVarint(UInt64(value.count))
        if value.count > Self.spliceThreshold {
            splices.append(CompactSpliceEntry(offset: count, content: .data(value)))
        } else {
            value.withUnsafeBytes { append($0) }
        }
        elements += 1
    }

    mutating func add(_ key: String?, splice content: CompactSplice) {
        if let key { appendString(key) }
        splices.append(CompactSpliceEntry(offset: count, content: content))
        elements += 1
    }

    // MARK: Values

    mutating func write(_ value: Bool) { append(value ? CompactTag.true : CompactTag.false) }

    mutating func write(signed value: Int64) {
        append(CompactTag.signed)
        appendVarint(CompactVarint.zigzag(value))
    }

    mutating func write(unsigned value: UInt64) {
        append(CompactTag.unsigned)
        appendVarint(value)
    }

    mutating func write(signed value: Int128) {
        append(CompactTag.signed)
        appendVarint(CompactVarint.zigzag(value))
    }

    mutating func write(unsigned value: UInt128) {
        append(CompactTag.unsigned)
        appendVarint(value)
    }

    mutating func write(_ value: Double) {
        append(CompactTag.double)
        appendFixed(value.bitPattern, size: 8)
    }

    mutating func write(_ value: Float) {
        append(CompactTag.float)
        appendFixed(UInt64(value.bitPattern), size: 4)
    }

    mutating func write(_ value: String) {
        append(CompactTag.string)
        let utf8Count = value.utf8.count
        if utf8Count > Self.spliceThreshold {
            appendVarint(UInt64(utf8Count))
            splices.append(CompactSpliceEntry(offset: count, content: .string(value)))
        } else {
            appendString(value)
        }
    }

    // MARK: Bytes

    private mutating func reserve(_ extra: Int) {
        guard extra > capacity - count else { return }
        var newCapacity = capacity * 2
        while newCapacity - count < extra { newCapacity *= 2 }
        let newStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStorage.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = newStorage
        capacity = newCapacity
    }

    private mutating func append(_ byte: UInt8) {
        reserve(1)
        storage[count] = byte
        count += 1
    }

    private mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        UnsafeMutableRawPointer(storage + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    private mutating func appendVarint(_ value: UInt64) {
        reserve(10)
        var value = value
        while value >= 0x80 {
            storage[count] = UInt8(truncatingIfNeeded: value) | 0x80
            count += 1
            value >>= 7
        }
        storage[count] = UInt8(truncatingIfNeeded: value)
        count += 1
    }

    private mutating func appendVarint(_ value: UInt128) {
        reserve(19)
        var value = value
        while value >= 0x80 {
            storage[count] = UInt8(truncatingIfNeeded: value) | 0x80
            count += 1
            value >>= 7
        }
        storage[count] = UInt8(truncatingIfNeeded: value)
        count += 1
    }

    /// `size` bytes of `value`, little-endian.
    private mutating func appendFixed(_ value: UInt64, size: Int) {
        reserve(size)
        var value = value
        let end = count + size
        while count < end {
            storage[count] = UInt8(truncatingIfNeeded: value)
            value >>= 8
            count += 1
        }
    }

    /// A string's UTF-8 byte count, then its UTF-8: how keys and short strings are written.
    private mutating func appendString(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count))
            append(UnsafeRawBufferPointer(utf8))
        }
    }
}

/// What all encoders and containers of one `encode` call share.
final class CompactEncodingState {
    /// The first failure of a call that cannot throw, thrown when encoding ends.
    var error: IPCError?

    func fail(_ message: String) {
        if error == nil { error = IPCError(.coding, message) }
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
        ObjectIdentifier(T.self) == compactByteArrayType || T.self == String.self || T.self == Int.self || T.self == Bool.self
            || T.self == Double.self || T.self == Data.self || T.self == UInt8.self || T.self == Int64.self
            || T.self == UInt64.self || T.self == Int32.self || T.self == UInt32.self || T.self == Float.self
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
                throw IPCError(.coding, "the value at \(path().description) is nested deeper than \(compactMaximumDepth) levels")
            }
            let encoder = CompactEncoderImpl(state: self, path: path(), depth: depth + 1)
            try value.encode(to: encoder)
            box.contents.add(key, splice: .encoder(encoder))
        }
    }
}

/// The `Encoder` handed to a value's `encode(to:)`; also its single-value container.
final class CompactEncoderImpl: Encoder, SingleValueEncodingContainer {
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
    private func box(_ kind: CompactBox.Kind, _ what: String) -> CompactBox {
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
        keyedBy keyType: NestedKey.Type, forKey key: Key
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

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
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
        let encoder = CompactEncoderImpl(state: state, path: path.appending(index: box.contents.elements), depth: depth + 1)
        addNested(.encoder(encoder), at: encoder.path)
        return encoder
    }
}

/// Appends to a buffer of a size fixed in advance; refuses, rather than overruns, past its end.
struct CompactWriter {
    private let base: UnsafeMutableRawPointer?
    private let capacity: Int
    private(set) var count = 0
    /// Whether something did not fit (which would be a bug in ``CompactSerializer/size(of:)``).
    private(set) var overflowed = false

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        base = UnsafeMutableRawPointer(buffer.baseAddress)
        capacity = buffer.count
    }

    mutating func append(_ byte: UInt8) {
        guard let base, count < capacity else {
            overflowed = true
            return
        }
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// `byteCount` bytes from `source`.
    mutating func append(_ source: UnsafeRawPointer, _ byteCount: Int) {
        guard byteCount > 0 else { return }
        guard let base, byteCount <= capacity - count else {
            overflowed = true
            return
        }
        (base + count).copyMemory(from: source, byteCount: byteCount)
        count += byteCount
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        append(source, bytes.count)
    }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        append(UInt8(truncatingIfNeeded: value))
    }
}

/// Turns finished boxes into bytes: one pass to size them (and every container's body), one to write.
enum CompactSerializer {
    /// The bytes of the root box (an empty object if nothing was encoded), in an array of exactly
    /// the right size.
    static func bytes(of root: CompactBox?) throws(IPCError) -> [UInt8] {
        guard let root else { return emptyObject }
        let size = size(of: root)
        var overflowed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var writer = CompactWriter(buffer)
            write(root, into: &writer)
            initialized = writer.count
            overflowed = writer.overflowed || writer.count != size
        }
        guard !overflowed else { throw IPCError(.coding, "internal error: the encoded size was computed wrongly") }
        return bytes
    }

    /// `[UInt8]` alone, without a box.
    static func encodeBytes(_ value: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1 + CompactVarint.size(UInt64(value.count)) + value.count)
        bytes.append(CompactTag.bytes)
        CompactVarint.write(UInt64(value.count), into: &bytes)
        bytes.append(contentsOf: value)
        return bytes
    }

    /// An empty object: tag, body size 1, count 0. What a value that encodes nothing becomes.
    static let emptyObject: [UInt8] = [CompactTag.object, 1, 0]

    /// The encoded size of a box, storing its body size (and its nested boxes') on the way.
    static func size(of box: CompactBox) -> Int {
        let splices = box.contents.splices
        var content = box.contents.count
        var index = 0
        while index < splices.count {
            content += size(of: splices[index].content)
            index += 1
        }
        switch box.kind {
        case .value:
            return box.contents.count == 0 && splices.isEmpty ? emptyObject.count : content
        case .array, .object:
            let body = CompactVarint.size(UInt64(box.contents.elements)) + content
            box.bodySize = body
            return 1 + CompactVarint.size(UInt64(body)) + body
        }
    }

    private static func size(of splice: CompactSplice) -> Int {
        switch splice {
        case .box(let box): size(of: box)
        case .encoder(let encoder): encoder.box.map { size(of: $0) } ?? emptyObject.count
        case .bytes(let bytes): bytes.count
        case .data(let data): data.count
        case .string(let string): string.utf8.count
        }
    }

    /// Writes a box; ``size(of:)`` must have been called on it first.
    static func write(_ box: CompactBox, into writer: inout CompactWriter) {
        let splices = box.contents.splices
        let count = box.contents.count
        switch box.kind {
        case .value:
            if count == 0 && splices.isEmpty {
                emptyObject.withUnsafeBytes { writer.append($0) }
                return
            }
        case .array:
            writer.append(CompactTag.array)
            writer.varint(UInt64(box.bodySize))
            writer.varint(UInt64(box.contents.elements))
        case .object:
            writer.append(CompactTag.object)
            writer.varint(UInt64(box.bodySize))
            writer.varint(UInt64(box.contents.elements))
        }
        guard let bytes = box.contents.bytes.baseAddress else { return }
        var written = 0
        var index = 0
        while index < splices.count {
            let offset = splices[index].offset
            writer.append(bytes + written, offset - written)
            write(splices[index].content, into: &writer)
            written = offset
            index += 1
        }
        writer.append(bytes + written, count - written)
    }

    private static func write(_ splice: CompactSplice, into writer: inout CompactWriter) {
        switch splice {
        case .box(let box):
            write(box, into: &writer)
        case .encoder(let encoder):
            if let box = encoder.box {
                write(box, into: &writer)
            } else {
                emptyObject.withUnsafeBytes { writer.append($0) }
            }
        case .bytes(let bytes):
            bytes.withUnsafeBytes { writer.append($0) }
        case .data(let data):
            data.withUnsafeBytes { writer.append($0) }
        case .string(var string):
            string.withUTF8 { writer.append(UnsafeRawBufferPointer($0)) }
        }
    }
}

// MARK: - Decoding

/// What was wrong with the input, before the container that found it adds the coding path.
/// Indirect, so that it is one word wide: cheap to reserve room for on every read that might throw.
indirect enum CompactWireError: Error {
    case truncated
    case overrun(claimed: UInt64, available: Int)
    case mismatch(expected: String, found: String)
    case outOfRange(value: String, type: String)
    case malformed(String)
    case tooDeep

    func ipcError(at path: CompactPath) -> IPCError {
        let place = path.description
        switch self {
        case .truncated:
            return IPCError(.coding, "truncated input at \(place)")
        case .overrun(let claimed, let available):
            return IPCError(.coding, "truncated input at \(place): a length of \(claimed) bytes, but only \(available) remain")
        case .mismatch(let expected, let found):
            return IPCError(.coding, "expected \(expected) at \(place), found \(found)")
        case .outOfRange(let value, let type):
            return IPCError(.coding, "number \(value) at \(place) does not fit in \(type)")
        case .malformed(let what):
            return IPCError(.coding, "malformed input at \(place): \(what)")
        case .tooDeep:
            return IPCError(.coding, "the value at \(place) is nested deeper than \(compactMaximumDepth) levels")
        }
    }
}

/// Bounds-checked reading of the input.
///
/// The reader owns a copy of the input, freed with the reader; every decoder and container that
/// reads it holds the reader, so the memory outlives anything that can reach it. Every read is
/// checked against a limit that is at most the input's size: the end of the value or container
/// being read.
final class CompactReader {
    private let storage: UnsafeMutableBufferPointer<UInt8>

    init(copying input: UnsafeRawBufferPointer) {
        storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: input.count)
        UnsafeMutableRawBufferPointer(storage).copyMemory(from: input)
    }

    deinit { storage.deallocate() }

    /// The input.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(storage) }
    var count: Int { storage.count }

    /// The byte at `position`, which the caller has checked is below a limit.
    func peek(_ position: Int) -> UInt8 { storage[position] }

    /// `count` bytes from `position`, which the caller has checked fit below a limit.
    func slice(_ position: Int, _ count: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: storage[position..<position + count])
    }

    func byte(_ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt8 {
        guard position < limit else { throw .truncated }
        let byte = storage[position]
        position += 1
        return byte
    }

    /// A varint of up to 64 bits; nil if it is wider.
    func varint(_ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try byte(&position, limit)
            if shift == 63 && byte > 1 { return nil }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// A varint of up to 128 bits; nil if it is wider.
    func varint128(_ position: inout Int, _ limit: Int) throws(CompactWireError) -> UInt128? {
        var result: UInt128 = 0
        var shift: UInt128 = 0
        while true {
            let byte = try byte(&position, limit)
            if shift == 126 && byte > 3 { return nil }
            result |= UInt128(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// A byte count, which must fit before `limit`.
    func length(_ position: inout Int, _ limit: Int) throws(CompactWireError) -> Int {
        guard let count = try varint(&position, limit) else { throw .malformed("a length wider than 64 bits") }
        guard count <= UInt64(limit - position) else { throw .overrun(claimed: count, available: limit - position) }
        return Int(count)
    }

    /// `size` little-endian bytes.
    func fixed(_ position: inout Int, _ limit: Int, size: Int) throws(CompactWireError) -> UInt64 {
        guard size <= limit - position else { throw .truncated }
        var value: UInt64 = 0
        var index = size
        while index > 0 {
            index -= 1
            value = value << 8 | UInt64(storage[position + index])
        }
        position += size
        return value
    }

    /// Moves past one value without reading its contents.
    func skip(_ position: inout Int, _ limit: Int) throws(CompactWireError) {
        let tag = try byte(&position, limit)
        switch tag {
        case CompactTag.null, CompactTag.false, CompactTag.true:
            return
        case CompactTag.signed, CompactTag.unsigned:
            var read = 0
            while read < 19 {
                if try byte(&position, limit) < 0x80 { return }
                read += 1
            }
            throw .malformed("an integer wider than 128 bits")
        case CompactTag.double:
            guard 8 <= limit - position else { throw .truncated }
            position += 8
        case CompactTag.float:
            guard 4 <= limit - position else { throw .truncated }
            position += 4
        case CompactTag.string, CompactTag.bytes, CompactTag.array, CompactTag.object:
            let count = try length(&position, limit)
            position += count
        default:
            throw .malformed("unknown tag 0x\(String(tag, radix: 16))")
        }
    }

    /// A signed integer from either integer tag, between `min` and `max`.
    func signed(_ position: inout Int, _ limit: Int, min: Int64, max: Int64, type: String) throws(CompactWireError) -> Int64 {
        let tag = try byte(&position, limit)
        guard tag == CompactTag.signed || tag == CompactTag.unsigned else {
            throw .mismatch(expected: "an integer", found: CompactTag.describe(tag))
        }
        guard let bits = try varint(&position, limit) else { throw .outOfRange(value: "wider than 64 bits", type: type) }
        if tag == CompactTag.unsigned {
            guard bits <= UInt64(max) else { throw .outOfRange(value: "\(bits)", type: type) }
            return Int64(bits)
        }
        let value = CompactVarint.unzigzag(bits)
        guard value >= min && value <= max else { throw .outOfRange(value: "\(value)", type: type) }
        return value
    }

    /// An unsigned integer from either integer tag, at most `max`.
    func unsigned(_ position: inout Int, _ limit: Int, max: UInt64, type: String) throws(CompactWireError) -> UInt64 {
        let tag = try byte(&position, limit)
        guard tag == CompactTag.signed || tag == CompactTag.unsigned else {
            throw .mismatch(expected: "an integer", found: CompactTag.describe(tag))
        }
        guard let bits = try varint(&position, limit) else { throw .outOfRange(value: "wider than 64 bits", type: type) }
        if tag == CompactTag.signed {
            let value = CompactVarint.unzigzag(bits)
            guard value >= 0 && UInt64(value) <= max else { throw .outOfRange(value: "\(value)", type: type) }
            return UInt64(value)
        }
        guard bits <= max else { throw .outOfRange(value: "\(bits)", type: type) }
        return bits
    }

    /// An integer of up to 128 bits, from either integer tag.
    func wideInteger<I: FixedWidthInteger>(_ position: inout Int, _ limit: Int) throws(CompactWireError) -> I {
        let tag = try byte(&position, limit)
        guard tag == CompactTag.unsigned || tag == CompactTag.signed else {
            throw .mismatch(expected: "an integer", found: CompactTag.describe(tag))
        }
        guard let bits = try varint128(&position, limit) else { throw .malformed("an integer wider than 128 bits") }
        if tag == CompactTag.unsigned {
            guard let result = I(exactly: bits) else { throw .outOfRange(value: "\(bits)", type: "\(I.self)") }
            return result
        }
        let value = CompactVarint.unzigzag(bits)
        guard let result = I(exactly: value) else { throw .outOfRange(value: "\(value)", type: "\(I.self)") }
        return result
    }

    /// A primitive at a position, or an error naming the path.
    func primitive<V: CompactPrimitive>(
        _ type: V.Type, at position: Int, limit: Int, path: @autoclosure () -> CompactPath
    ) throws(IPCError) -> V {
        var position = position
        do throws(CompactWireError) {
            return try V.read(self, &position, limit)
        } catch {
            throw error.ipcError(at: path())
        }
    }

    /// Decodes any value at a position: primitives, `[UInt8]` and `Data` directly, anything else
    /// through its `init(from:)` with a decoder one level deeper.
    func value<T: Decodable>(
        _ type: T.Type, at position: Int, limit: Int, depth: Int, path: @autoclosure () -> CompactPath
    ) throws -> T {
        if readsDirectly(T.self, at: position, limit: limit) {
            return try directValue(T.self, at: position, limit: limit, path: path())
        }
        guard depth < compactMaximumDepth else { throw CompactWireError.tooDeep.ipcError(at: path()) }
        return try T(from: CompactDecoderImpl(reader: self, position: position, limit: limit, path: path(), depth: depth + 1))
    }

    /// Whether a value of this type is read without a decoder: primitives, and `[UInt8]` and
    /// `Data` when the value is `bytes`.
    private func readsDirectly<T>(_ type: T.Type, at position: Int, limit: Int) -> Bool {
        if ObjectIdentifier(T.self) == compactByteArrayType || T.self == Data.self {
            return position < limit && storage[position] == CompactTag.bytes
        }
        return T.self == String.self || T.self == Int.self || T.self == Bool.self || T.self == Double.self
            || T.self == UInt8.self || T.self == Int64.self || T.self == UInt64.self || T.self == Int32.self
            || T.self == UInt32.self || T.self == Float.self
    }

    /// A value whose type ``readsDirectly(_:at:limit:)``. Kept apart from
    /// ``value(_:at:limit:depth:path:)`` so that its stack frame is not part of every level of a
    /// deep recursion, and not optional so that no `Optional<T>` metadata is made for every value.
    @inline(never)
    private func directValue<T: Decodable>(
        _ type: T.Type, at position: Int, limit: Int, path: @autoclosure () -> CompactPath
    ) throws(IPCError) -> T {
        if ObjectIdentifier(T.self) == compactByteArrayType || T.self == Data.self {
            var start = position + 1
            let count: Int
            do throws(CompactWireError) {
                count = try length(&start, limit)
            } catch {
                throw error.ipcError(at: path())
            }
            if T.self == Data.self { return unsafeBitCast(Data(slice(start, count)), to: T.self) }
            return unsafeBitCast(Array(slice(start, count)), to: T.self)
        }
        if T.self == String.self {
            return unsafeBitCast(try primitive(String.self, at: position, limit: limit, path: path()), to: T.self)
        }
        if T.self == Int.self {
            return unsafeBitCast(try primitive(Int.self, at: position, limit: limit, path: path()), to: T.self)
        }
        if T.self == Bool.self {
            return unsafeBitCast(try primitive(Bool.self, at: position, limit: limit, path: path()), to: T.self)
        }
        if T.self == Double.self {
            return unsafeBitCast(try primitive(Double.self, at: position, limit: limit, path: path()), to: T.self)
        }
        if T.self == UInt8.self {
            return unsafeBitCast(try primitive(UInt8.self, at: position, limit: limit, path: path()), to: T.self)
        }
        if T.self == Int64.self {
            return unsafeBitCast(try primitive(Int64.self, at: position, limit: limit, path: path()), to: T.self)
        }
        if T.self == UInt64.self {
            return unsafeBitCast(try primitive(UInt64.self, at: position, limit: limit, path: path()), to: T.self)
        }
        if T.self == Int32.self {
            return unsafeBitCast(try primitive(Int32.self, at: position, limit: limit, path: path()), to: T.self)
        }
        if T.self == UInt32.self {
            return unsafeBitCast(try primitive(UInt32.self, at: position, limit: limit, path: path()), to: T.self)
        }
        if T.self == Float.self {
            return unsafeBitCast(try primitive(Float.self, at: position, limit: limit, path: path()), to: T.self)
        }
        throw IPCError(.coding, "internal error: \(T.self) at \(path().description) cannot be read directly")
    }
}

/// The `Decoder` handed to a value's `init(from:)`; also its single-value container.
final class CompactDecoderImpl: Decoder, SingleValueDecodingContainer {
    let reader: CompactReader
    /// Where the value starts.
    let position: Int
    /// Where the value or its enclosing container ends.
    let limit: Int
    let path: CompactPath
    let depth: Int

    init(reader: CompactReader, position: Int, limit: Int, path: CompactPath, depth: Int) {
        self.reader = reader
        self.position = position
        self.limit = limit
        self.path = path
        self.depth = depth
    }

    /// A decoder for a nil value, for a `superDecoder()` whose key is missing.
    static func missing(path: CompactPath, depth: Int) -> CompactDecoderImpl {
        let reader = [CompactTag.null].withUnsafeBytes { CompactReader(copying: $0) }
        return CompactDecoderImpl(reader: reader, position: 0, limit: 1, path: path, depth: depth)
    }

    /// A decoder one level deeper, for a nested value or container.
    func child(at position: Int, limit: Int, path: @autoclosure () -> CompactPath) throws(IPCError) -> CompactDecoderImpl {
        guard depth < compactMaximumDepth else { throw CompactWireError.tooDeep.ipcError(at: path()) }
        return CompactDecoderImpl(reader: reader, position: position, limit: limit, path: path(), depth: depth + 1)
    }

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(try CompactKeyedDecoder<Key>(self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try CompactUnkeyedDecoder(self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool {
        position < limit && reader.peek(position) == CompactTag.null
    }

    private func primitive<V: CompactPrimitive>(_ type: V.Type) throws(IPCError) -> V {
        try reader.primitive(V.self, at: position, limit: limit, path: path)
    }

    func decode(_ type: Bool.Type) throws -> Bool { try primitive(type) }
    func decode(_ type: String.Type) throws -> String { try primitive(type) }
    func decode(_ type: Double.Type) throws -> Double { try primitive(type) }
    func decode(_ type: Float.Type) throws -> Float { try primitive(type) }
    func decode(_ type: Int.Type) throws -> Int { try primitive(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try primitive(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try primitive(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try primitive(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try primitive(type) }
    func decode(_ type: Int128.Type) throws -> Int128 { try primitive(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try primitive(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try primitive(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try primitive(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try primitive(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try primitive(type) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try primitive(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try reader.value(T.self, at: position, limit: limit, depth: depth, path: path)
    }
}

/// Where one entry of an object is in the input.
struct CompactEntryRange {
    var keyStart: Int
    /// Also where the value starts.
    var keyEnd: Int
    var valueEnd: Int
}

/// A keyed container over an object. Its entries are found once; a key is looked for from the
/// entry after the last one found, so decoding in the encoded order takes one comparison a key.
final class CompactKeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: CompactDecoderImpl
    let entries: [CompactEntryRange]
    private var cursor = 0

    init(_ decoder: CompactDecoderImpl) throws(IPCError) {
        self.decoder = decoder
        do throws(CompactWireError) {
            entries = try Self.scan(decoder.reader, at: decoder.position, limit: decoder.limit)
        } catch {
            throw error.ipcError(at: decoder.path)
        }
    }

    /// Where each entry of the object at `position` is.
    private static func scan(
        _ reader: CompactReader, at position: Int, limit: Int
    ) throws(CompactWireError) -> [CompactEntryRange] {
        var position = position
        let tag = try reader.byte(&position, limit)
        guard tag == CompactTag.object else { throw .mismatch(expected: "a keyed object", found: CompactTag.describe(tag)) }
        let length = try reader.length(&position, limit)
        let end = position + length
        guard let count = try reader.varint(&position, end), count <= UInt64(end - position) / 2 else {
            throw .malformed("an object whose entries cannot fit in its \(end - position) bytes")
        }
        var entries: [CompactEntryRange] = []
        entries.reserveCapacity(Int(count))
        var index = 0
        while index < Int(count) {
            let keyCount = try reader.length(&position, end)
            let keyStart = position
            position += keyCount
            let keyEnd = position
            try reader.skip(&position, end)
            entries.append(CompactEntryRange(keyStart: keyStart, keyEnd: keyEnd, valueEnd: position))
            index += 1
        }
        guard position == end else { throw .malformed("\(end - position) bytes after the object's last entry") }
        return entries
    }

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        entries.compactMap { entry in
            let name = String(decoding: decoder.reader.slice(entry.keyStart, entry.keyEnd - entry.keyStart), as: UTF8.self)
            return Key(stringValue: name) ?? Int(name).flatMap { Key(intValue: $0) }
        }
    }

    /// The entry for a key, if there is one.
    private func find(_ key: Key) -> CompactEntryRange? { find(name: key.stringValue) }

    /// The entry whose key is `name`, searching from the entry after the last one found.
    private func find(name: String) -> CompactEntryRange? {
        let count = entries.count
        guard count > 0 else { return nil }
        var name = name
        let bytes = decoder.reader.bytes
        let found: Int? = name.withUTF8 { wanted in
            var index = cursor
            var tried = 0
            while tried < count {
                let entry = entries[index]
                if entry.keyEnd - entry.keyStart == wanted.count {
                    if wanted.isEmpty { return index }
                    if let wantedBase = wanted.baseAddress, let base = bytes.baseAddress,
                       memcmp(base + entry.keyStart, wantedBase, wanted.count) == 0 {
                        return index
                    }
                }
                index = index + 1 == count ? 0 : index + 1
                tried += 1
            }
            return nil
        }
        guard let found else { return nil }
        cursor = found + 1 == count ? 0 : found + 1
        return entries[found]
    }

    private func entry(_ key: Key) throws(IPCError) -> CompactEntryRange {
        guard let entry = find(key) else {
            throw IPCError(.coding, "missing key \"\(key.stringValue)\" at \(decoder.path.appending(key).description)")
        }
        return entry
    }

    private func isNil(_ entry: CompactEntryRange) -> Bool { decoder.reader.peek(entry.keyEnd) == CompactTag.null }

    private func primitive<V: CompactPrimitive>(_ key: Key) throws(IPCError) -> V {
        let entry = try entry(key)
        return try decoder.reader.primitive(V.self, at: entry.keyEnd, limit: entry.valueEnd, path: decoder.path.appending(key))
    }

    private func primitiveIfPresent<V: CompactPrimitive>(_ key: Key) throws(IPCError) -> V? {
        guard let entry = find(key), !isNil(entry) else { return nil }
        return try decoder.reader.primitive(V.self, at: entry.keyEnd, limit: entry.valueEnd, path: decoder.path.appending(key))
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { isNil(try entry(key)) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try primitive(key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try primitive(key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try primitive(key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try primitive(key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try primitive(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try primitive(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try primitive(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try primitive(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try primitive(key) }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try primitive(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try primitive(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try primitive(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try primitive(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try primitive(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try primitive(key) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try primitive(key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let entry = try entry(key)
        return try decoder.reader.value(
            T.self, at: entry.keyEnd, limit: entry.valueEnd, depth: decoder.depth, path: decoder.path.appending(key))
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try primitiveIfPresent(key) }
    func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? { try primitiveIfPresent(key) }

    /// Nil if the key is missing or its value is nil, except that a nil decodes as `.some(nil)`
    /// when `T` is itself optional, so that a property of type `Int??` keeps all three states.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let entry = find(key) else { return nil }
        if isNil(entry) && !(T.self is any CompactOptionalMarker.Type) { return nil }
        return try decoder.reader.value(
            T.self, at: entry.keyEnd, limit: entry.valueEnd, depth: decoder.depth, path: decoder.path.appending(key))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let entry = try entry(key)
        let child = try decoder.child(at: entry.keyEnd, limit: entry.valueEnd, path: decoder.path.appending(key))
        return KeyedDecodingContainer(try CompactKeyedDecoder<NestedKey>(child))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let entry = try entry(key)
        let child = try decoder.child(at: entry.keyEnd, limit: entry.valueEnd, path: decoder.path.appending(key))
        return try CompactUnkeyedDecoder(child)
    }

    func superDecoder() throws -> any Decoder {
        let path = decoder.path.appending(CompactStringKey.super)
        guard let entry = find(name: CompactStringKey.super.stringValue) else {
            return CompactDecoderImpl.missing(path: path, depth: decoder.depth + 1)
        }
        return try decoder.child(at: entry.keyEnd, limit: entry.valueEnd, path: path)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        let path = decoder.path.appending(key)
        guard let entry = find(key) else { return CompactDecoderImpl.missing(path: path, depth: decoder.depth + 1) }
        return try decoder.child(at: entry.keyEnd, limit: entry.valueEnd, path: path)
    }
}

/// An unkeyed container over an array, or over a `bytes` value whose elements are `UInt8`s.
struct CompactUnkeyedDecoder: UnkeyedDecodingContainer {
    let decoder: CompactDecoderImpl
    /// Whether the elements are the raw bytes of a `bytes` value rather than tagged values.
    let isBytes: Bool
    let end: Int
    let total: Int
    private var position: Int
    private(set) var currentIndex = 0

    init(_ decoder: CompactDecoderImpl) throws(IPCError) {
        self.decoder = decoder
        let reader = decoder.reader
        var position = decoder.position
        do throws(CompactWireError) {
            let tag = try reader.byte(&position, decoder.limit)
            guard tag == CompactTag.array || tag == CompactTag.bytes else {
                throw .mismatch(expected: "an array", found: CompactTag.describe(tag))
            }
            let length = try reader.length(&position, decoder.limit)
            let end = position + length
            if tag == CompactTag.array {
                guard let count = try reader.varint(&position, end), count <= UInt64(end - position) else {
                    throw .malformed("an array whose elements cannot fit in its \(end - position) bytes")
                }
                total = Int(count)
                isBytes = false
            } else {
                total = end - position
                isBytes = true
            }
            self.end = end
            self.position = position
        } catch {
            throw error.ipcError(at: decoder.path)
        }
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { total }
    var isAtEnd: Bool { currentIndex >= total }

    private var elementPath: CompactPath { decoder.path.appending(index: currentIndex) }

    private func checkNotAtEnd(_ expected: @autoclosure () -> String) throws(IPCError) {
        guard currentIndex < total else {
            throw IPCError(.coding, "expected \(expected()) at \(elementPath.description), found the end of an array of \(total)")
        }
    }

    private mutating func next<V: CompactPrimitive>(_ type: V.Type) throws(IPCError) -> V {
        try checkNotAtEnd(V.wireName)
        if isBytes {
            let byte = decoder.reader.peek(position)
            guard let value = V.fromByte(byte) else {
                throw CompactWireError.mismatch(expected: V.wireName, found: "the byte \(byte)").ipcError(at: elementPath)
            }
            position += 1
            currentIndex += 1
            return value
        }
        var next = position
        do throws(CompactWireError) {
            let value = try V.read(decoder.reader, &next, end)
            position = next
            currentIndex += 1
            return value
        } catch {
            throw error.ipcError(at: elementPath)
        }
    }

    /// Moves past the current element, once it has been decoded.
    private mutating func advance() throws(IPCError) {
        if isBytes {
            position += 1
        } else {
            var next = position
            do throws(CompactWireError) { try decoder.reader.skip(&next, end) } catch { throw error.ipcError(at: elementPath) }
            position = next
        }
        currentIndex += 1
    }

    mutating func decodeNil() throws -> Bool {
        try checkNotAtEnd("nil")
        guard !isBytes, position < end, decoder.reader.peek(position) == CompactTag.null else { return false }
        position += 1
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try next(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try next(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if isBytes { return try byteElement(T.self) }
        try checkNotAtEnd("\(T.self)")
        let value = try decoder.reader.value(T.self, at: position, limit: end, depth: decoder.depth, path: elementPath)
        try advance()
        return value
    }

    /// The current element of a `bytes` value, as any integer type it fits.
    private mutating func byteElement<T: Decodable>(_ type: T.Type) throws(IPCError) -> T {
        if T.self == UInt8.self { return unsafeBitCast(try next(UInt8.self), to: T.self) }
        let primitive = T.self as? any CompactPrimitive.Type
        try checkNotAtEnd(primitive?.wireName ?? "\(T.self)")
        let byte = decoder.reader.peek(position)
        guard let value = primitive?.fromByte(byte) as? T else {
            throw CompactWireError.mismatch(expected: primitive?.wireName ?? "\(T.self)", found: "the byte \(byte)")
                .ipcError(at: elementPath)
        }
        position += 1
        currentIndex += 1
        return value
    }

    /// A decoder for the current element, before moving past it.
    private func childForCurrent(_ expected: String) throws(IPCError) -> CompactDecoderImpl {
        try checkNotAtEnd(expected)
        if isBytes {
            throw CompactWireError.mismatch(expected: expected, found: "the byte \(decoder.reader.peek(position))")
                .ipcError(at: elementPath)
        }
        return try decoder.child(at: position, limit: end, path: elementPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try CompactKeyedDecoder<NestedKey>(try childForCurrent("a keyed object"))
        try advance()
        return KeyedDecodingContainer(container)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try CompactUnkeyedDecoder(try childForCurrent("an array"))
        try advance()
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let child = try childForCurrent("a value")
        try advance()
        return child
    }
}
