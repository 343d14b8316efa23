package import AppexCoding

/// A hello: what ``Handshake`` sends and receives, in the wire form.
package protocol HandshakeMessage: Sendable {
    /// The sender's protocol version, written first.
    var protocolVersion: Int { get }
    /// A hello of another protocol version: only its version is known.
    init(otherProtocolVersion: Int)
    /// Writes the fields after the version.
    func write(to writer: inout WireWriter)
    /// Reads the fields after the version.
    init(reading reader: inout WireReader) throws(WireFormatError)
}

extension HandshakeMessage {
    /// Decodes a hello frame's payload: the version, then (for this build's version) the fields.
    static func decoding(_ payload: [UInt8]) throws(WireFormatError) -> Self {
        // Protocol 1 sent JSON: `{` first.
        if payload.first == UInt8(ascii: "{") { return Self(otherProtocolVersion: 1) }
        var reader = WireReader(payload)
        let version = try reader.varint("the protocol version")
        // 123's varint is `{`, which says protocol 1: no protocol is 123, so a hello that spells 123 another way
        // (a varint with padding) is malformed, not a peer of protocol 123 that would encode as protocol 1.
        guard version != UInt64(UInt8(ascii: "{")) else {
            throw reader.error("the protocol version is 123, which no protocol has (its varint is protocol 1's `{`)")
        }
        guard version == UInt64(Handshake.protocolVersion) else {
            return Self(otherProtocolVersion: Int(clamping: version))
        }
        let hello = try Self(reading: &reader)
        try reader.expectEnd(of: "the hello")
        return hello
    }

    /// Decodes a hello frame's payload as ``Handshake`` receives it: one that is malformed is a
    /// `protocolViolation`.
    static func received(_ payload: [UInt8]) throws(AppexError) -> Self {
        do throws(WireFormatError) {
            return try decoding(payload)
        } catch {
            throw AppexError(.protocolViolation, "the peer's hello is malformed: \(error)")
        }
    }

    /// A hello frame's payload: the version, then (for this build's version) the fields.
    var payload: [UInt8] {
        var writer = WireWriter()
        writer.write(count: protocolVersion)
        if protocolVersion == Handshake.protocolVersion { write(to: &writer) }
        return writer.bytes
    }
}

// The hello's wire form on its own, without a channel, for the fuzz target `handshake` (`Fuzz/`): not part of the
// supported API (`@_spi(Fuzzing) import AppexIPC`).

extension Handshake.HostHello {
    /// Decodes a host hello frame's payload as an extension reads it.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `protocolViolation` when the bytes are not a hello.
    @_spi(Fuzzing) public init(decoding payload: [UInt8]) throws(AppexError) {
        self = try .received(payload)
    }

    /// The payload of the hello frame the host sends.
    @_spi(Fuzzing) public func encoded() -> [UInt8] { payload }
}

extension Handshake.ExtensionHello {
    /// Decodes an extension hello frame's payload as the host reads it.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `protocolViolation` when the bytes are not a hello.
    @_spi(Fuzzing) public init(decoding payload: [UInt8]) throws(AppexError) {
        self = try .received(payload)
    }

    /// The payload of the hello frame the extension sends.
    @_spi(Fuzzing) public func encoded() -> [UInt8] { payload }
}

extension Handshake.HostHello: HandshakeMessage {
    package init(otherProtocolVersion: Int) {
        self.init(hostBundleIdentifier: "", extensionBundleIdentifier: "", extensionPoint: "")
        protocolVersion = otherProtocolVersion
    }

    package func write(to writer: inout WireWriter) {
        writer.write(hostBundleIdentifier)
        writer.write(extensionBundleIdentifier)
        writer.write(extensionPoint)
        writer.write(channel != nil)
        if let channel {
            writer.write(count: channel.maximumFrameSize)
            writer.write(count: channel.maximumSharedPayloadSize)
            writer.write(count: channel.sharedMemoryThreshold)
        }
        if features != 0 { writer.write(varint: features) }
    }

    package init(reading reader: inout WireReader) throws(WireFormatError) {
        self.init(
            hostBundleIdentifier: try reader.string("the host's bundle identifier"),
            extensionBundleIdentifier: try reader.string("the extension's bundle identifier"),
            extensionPoint: try reader.string("the extension point")
        )
        if try reader.bool("whether the channel's limits are there") {
            var limits = FrameChannel.Configuration()
            limits.maximumFrameSize = try reader.size("the largest frame")
            limits.maximumSharedPayloadSize = try reader.size("the largest shared payload")
            limits.sharedMemoryThreshold = try reader.size("the shared-memory threshold")
            channel = limits
        }
        if !reader.isAtEnd { features = try reader.varint("the host's features") }
    }
}

extension Handshake.ExtensionHello: HandshakeMessage {
    package init(otherProtocolVersion: Int) {
        self.init(extensionBundleIdentifier: "", boundExtensionPoint: "", processIdentifier: 0)
        protocolVersion = otherProtocolVersion
    }

    package func write(to writer: inout WireWriter) {
        writer.write(extensionBundleIdentifier)
        writer.write(boundExtensionPoint)
        writer.write(Int64(processIdentifier))
        writer.write(declined != nil)
        if let declined { writer.write(declined) }
        if features != 0 { writer.write(varint: features) }
    }

    package init(reading reader: inout WireReader) throws(WireFormatError) {
        let identifier = try reader.string("the extension's bundle identifier")
        let point = try reader.string("the bound extension point")
        guard let pid = Int32(exactly: try reader.int64("the process identifier")) else {
            throw reader.error("the process identifier does not fit in 32 bits")
        }
        self.init(extensionBundleIdentifier: identifier, boundExtensionPoint: point, processIdentifier: pid)
        if try reader.bool("whether a refusal is there") { declined = try reader.string("the refusal") }
        if !reader.isAtEnd { features = try reader.varint("the extension's features") }
    }
}

extension WireReader {
    /// A size that must fit in `Int`.
    fileprivate mutating func size(_ what: String) throws(WireFormatError) -> Int {
        guard let size = Int(exactly: try varint(what)) else { throw error("\(what) does not fit in an Int") }
        return size
    }
}
