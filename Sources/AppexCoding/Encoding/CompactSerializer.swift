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
    static func bytes(of root: CompactBox?) throws(CompactCodingError) -> [UInt8] {
        guard let root else { return emptyObject }
        let size = size(of: root)
        var overflowed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var writer = CompactWriter(buffer)
            write(root, into: &writer)
            initialized = writer.count
            overflowed = writer.overflowed || writer.count != size
        }
        guard !overflowed else { throw CompactCodingError("internal error: the encoded size was computed wrongly") }
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
