/// One message on the wire: a kind, the request it belongs to, and its bytes.
///
/// On the wire a frame is a 16-byte little-endian header — payload length (`UInt32`), kind
/// (`UInt8`), flags (`UInt8`, bit 0: the payload travels in a sealed memfd passed with the
/// frame; bit 1: a 55-byte W3C `traceparent` follows the header), two reserved zero bytes,
/// request id (`UInt64`) — then the trace context if flagged, then the payload unless it travels
/// in shared memory (docs/protocol.md, 4).
@_spi(Wire) public struct Frame: Sendable, Hashable {
    /// What a frame means. New kinds may be added; a peer refuses kinds it does not know.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Opens a connection: protocol version and identities.
        public static let hello = Kind(rawValue: 1)
        /// A call awaiting a reply with the same request id.
        public static let request = Kind(rawValue: 2)
        /// The successful answer to a request.
        public static let reply = Kind(rawValue: 3)
        /// The failed answer to a request.
        public static let failure = Kind(rawValue: 4)
        /// The caller no longer wants the answer to a request.
        public static let cancel = Kind(rawValue: 5)
        /// The sender is closing the connection on purpose.
        public static let goodbye = Kind(rawValue: 6)
        /// A call to a distributed actor, answered like a request.
        public static let invocation = Kind(rawValue: 7)

        /// Whether `byte` names a kind this side knows (hello … invocation). A range, not a
        /// `Set`: a set's metadata is built at first use from its mangled name, a scan of every
        /// protocol conformance in the binary that each extension's start would pay (decision 0168).
        static func isKnown(_ byte: UInt8) -> Bool { (1...7).contains(byte) }

        public var description: String {
            switch rawValue {
            case 1: "hello"
            case 2: "request"
            case 3: "reply"
            case 4: "failure"
            case 5: "cancel"
            case 6: "goodbye"
            case 7: "invocation"
            default: "kind \(rawValue)"
            }
        }
    }

    /// What the frame means.
    public var kind: Kind
    /// The request this frame starts or answers; 0 for connection-level frames.
    public var requestID: UInt64
    /// The frame's bytes where they arrived (in place, for shared memory).
    public var contents: Payload
    /// The W3C `traceparent` of the span the sender was in (55 ASCII bytes, version 00), sent
    /// only to a peer whose hello said it reads one; `nil` for none.
    public var traceParent: [UInt8]?

    /// The frame's bytes as an array (a copy, when they arrived in shared memory).
    public var payload: [UInt8] {
        get { contents.bytes }
        set { contents = Payload(newValue) }
    }

    /// Makes a frame.
    public init(kind: Kind, requestID: UInt64, payload: [UInt8]) {
        self.init(kind: kind, requestID: requestID, contents: Payload(payload))
    }

    /// Makes a frame of bytes where they are.
    public init(kind: Kind, requestID: UInt64, contents: Payload) {
        self.kind = kind
        self.requestID = requestID
        self.contents = contents
    }

    static let headerSize = 16
    static let sharedMemoryFlag: UInt8 = 1
    static let traceContextFlag: UInt8 = 2
    /// The size of a `traceparent` of version 00: `00-` 32 hex digits `-` 16 hex digits `-` 2.
    static let traceParentSize = 55

    /// The header's bytes, with room for `reserving` more (the payload, when it is sent in the
    /// same message).
    static func header(kind: Kind, flags: UInt8, requestID: UInt64, length: Int, reserving extra: Int = 0) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: headerSize)
        header.reserveCapacity(headerSize + extra)
        let length = UInt32(truncatingIfNeeded: length)
        for index in 0..<4 { header[index] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(index))) }
        header[4] = kind.rawValue
        header[5] = flags
        for index in 0..<8 { header[8 + index] = UInt8(truncatingIfNeeded: requestID >> (8 * UInt64(index))) }
        return header
    }
}
