#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
