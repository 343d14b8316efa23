#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The first frames on every connection: each side says who it is and which protocol it speaks.
///
/// The host speaks first (`hello` with ``HostHello``); the extension answers (`hello` with
/// ``ExtensionHello``). A mismatch ends the connection before any call is made.
///
/// A hello is binary (``/AppexCoding``'s wire form, see `HandshakeCoding.swift`): the protocol
/// version first, then the fields in order. Protocol 1 spoke JSON; a hello that starts with `{`
/// is read as protocol 1, so either side can say which versions met.
@_spi(Wire) public enum Handshake {
    /// The wire protocol this build speaks: 2, the binary hello (1 was JSON). No protocol is 123:
    /// its varint is `{`, the first byte of protocol 1's JSON.
    public static let protocolVersion = 2

    /// What this build reads beyond protocol 2's frames, as a hello's features say it (an
    /// optional varint after a hello's fields, written only when not 0; docs/protocol.md 5).
    public enum Feature {
        /// Frames may carry a W3C `traceparent` (flag bit 1, docs/protocol.md 4.1).
        public static let traceContext: UInt64 = 1
    }

    /// The features this build reads.
    public static let features = Feature.traceContext

    /// What the host says.
    public struct HostHello: Codable, Sendable, Equatable {
        /// The host's wire protocol version.
        public var protocolVersion: Int
        /// The host app's bundle identifier.
        public var hostBundleIdentifier: String
        /// The extension the host believes it launched.
        public var extensionBundleIdentifier: String
        /// The extension point, as discovery read it from the bundle's Info.plist.
        public var extensionPoint: String
        /// The limits and shared-memory threshold the host's end uses; the extension adopts
        /// them, so both ends agree on what may be sent. Absent: the defaults.
        public var channel: ChannelConfiguration?
        /// What the host reads beyond protocol 2's frames (``Feature``); 0 for nothing.
        public var features: UInt64 = 0

        /// Makes a host hello for this build's protocol.
        public init(
            hostBundleIdentifier: String,
            extensionBundleIdentifier: String,
            extensionPoint: String,
            channel: FrameChannel.Configuration? = nil,
            features: UInt64 = 0
        ) {
            self.protocolVersion = Handshake.protocolVersion
            self.hostBundleIdentifier = hostBundleIdentifier
            self.extensionBundleIdentifier = extensionBundleIdentifier
            self.extensionPoint = extensionPoint
            self.channel = channel
            self.features = features
        }
    }

    /// What the extension answers.
    public struct ExtensionHello: Codable, Sendable, Equatable {
        /// The extension's wire protocol version.
        public var protocolVersion: Int
        /// The bundle identifier the extension was launched as.
        public var extensionBundleIdentifier: String
        /// The point the extension's code binds to (`AppExtension.boundAppExtensionPoint`).
        public var boundExtensionPoint: String
        /// The extension's process id, as it sees it.
        public var processIdentifier: Int32
        /// Why the extension refuses the connection; `nil` when it accepts.
        public var declined: String?
        /// What the extension reads beyond protocol 2's frames (``Feature``); 0 for nothing.
        public var features: UInt64 = 0

        /// Makes an extension hello for this build's protocol.
        public init(extensionBundleIdentifier: String, boundExtensionPoint: String, processIdentifier: Int32) {
            self.protocolVersion = Handshake.protocolVersion
            self.extensionBundleIdentifier = extensionBundleIdentifier
            self.boundExtensionPoint = boundExtensionPoint
            self.processIdentifier = processIdentifier
        }
    }

    /// Sends `hello` as a hello frame.
    package static func send(_ hello: some HandshakeMessage, on channel: FrameChannel) throws(AppexError) {
        try channel.send(Frame(kind: .hello, requestID: 0, payload: hello.payload))
    }

    /// Waits up to `timeout` for the peer's hello frame and decodes it. A hello of another
    /// protocol version comes back with only its ``HandshakeMessage/protocolVersion`` set, for
    /// the caller to refuse by name.
    package static func receive<Hello: HandshakeMessage>(
        _ type: Hello.Type,
        on channel: FrameChannel,
        timeout: Duration
    ) throws(AppexError) -> Hello {
        guard try channel.waitUntilReadable(timeout: timeout) else {
            throw AppexError(.deadlineExceeded, "the peer did not say hello within \(timeout)")
        }
        guard let frame = try channel.receive() else {
            throw AppexError(.closed, "the peer closed the connection before saying hello")
        }
        guard frame.kind == .hello else {
            throw AppexError(.protocolViolation, "the peer's first frame was a \(frame.kind), not hello")
        }
        return try Hello.received(frame.payload)
    }
}
